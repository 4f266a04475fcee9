package org.dp4j.training;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.dp4j.accounting.Orders;
import org.dp4j.accounting.SampledGaussianMechanism;
import org.dp4j.accounting.ThreatModel;
import org.dp4j.accounting.ledger.CompositionStepAccountant;
import org.dp4j.accounting.ledger.LedgerRow;
import org.dp4j.accounting.ledger.PrivacyBudget;
import org.dp4j.accounting.ledger.PrivacyLedger;
import org.dp4j.noise.GaussianNoise;
import org.junit.jupiter.api.Test;

/**
 * The epoch loop {@link DpSgdTrainer} and {@code SparkDpSgdTrainer} share, without a network: rows, callbacks and
 * stop reasons against the ledger's own step counts, for a run that completes and one the budget stops mid-epoch.
 */
class LedgerEpochLoopTest {
  private static final int STEPS_PER_EPOCH = 50;

  /** A trainer builder with nothing of its own. */
  private static final class Options extends LedgerTrainerBuilder<Options> {
    @Override
    protected Options self() {
      return this;
    }

    LedgerEpochLoop loop(Runnable endOfEpoch) {
      return epochLoop(endOfEpoch);
    }
  }

  private static PrivacyLedger ledger(double epsilonBudget) {
    PrivacyLedger.Builder b = PrivacyLedger.builder()
        .accountant(new CompositionStepAccountant(new SampledGaussianMechanism(0.02, 1.1), Orders.DEFAULT))
        .delta(1e-5);
    if (epsilonBudget > 0) {
      b.budget(new PrivacyBudget(epsilonBudget, 1e-5, ThreatModel.ALL_ITERATES_RELEASED));
    }
    return b.build();
  }

  @Test
  void aRunWithinBudgetClosesOneRowPerEpochAfterTheEpochCount() {
    PrivacyLedger ledger = ledger(0);
    List<String> events = new ArrayList<>();
    int[] steps = {0};
    LedgerEpochLoop loop = new Options().ledger(ledger).epochs(3).insecureNoise(GaussianNoise.insecureFixedSeed(1))
        .onEpoch(row -> events.add("row " + row.epoch() + " at " + row.steps()))
        .onStep(() -> steps[0]++)
        .loop(() -> events.add("epoch count"));
    while (!loop.isFinished()) {
      assertThat(loop.runEpoch(STEPS_PER_EPOCH, (epoch, s) -> ledger.tryStep())).isTrue();
    }
    assertThat(events).containsExactly("epoch count", "row 1 at 50", "epoch count", "row 2 at 100", "epoch count",
        "row 3 at 150");
    assertThat(steps[0]).isEqualTo(150);
    assertThat(ledger.steps()).isEqualTo(150);
    assertThat(loop.stopReason()).isEqualTo(StopReason.COMPLETED);
    assertThat(loop.epochsCompleted()).isEqualTo(3).isEqualTo(ledger.epochsCompleted());
    assertThatThrownBy(() -> loop.runEpoch(STEPS_PER_EPOCH, (epoch, s) -> ledger.tryStep()))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("training is finished (COMPLETED after 3");
  }

  @Test
  void aBudgetStopClosesAPartialRowWithExactlyTheStepsTaken() {
    PrivacyLedger ledger = ledger(2.0);
    List<LedgerRow> rows = new ArrayList<>();
    LedgerEpochLoop loop = new Options().ledger(ledger).epochs(1000).onEpoch(rows::add)
        .loop(() -> { });
    int epochsRun = 0;
    while (!loop.isFinished()) {
      loop.runEpoch(STEPS_PER_EPOCH, (epoch, s) -> ledger.tryStep());
      epochsRun++;
    }
    long allowed = loop.stepsAllowed();
    assertThat(allowed).isPositive().isLessThan(1000L * STEPS_PER_EPOCH);
    assertThat(ledger.steps()).isEqualTo(allowed);
    assertThat(loop.stopReason()).isEqualTo(StopReason.BUDGET);
    assertThat(loop.epochsCompleted()).isEqualTo((int) (allowed / STEPS_PER_EPOCH)).isEqualTo(epochsRun - 1);
    // one row per full epoch, and a partial row unless the budget ran out exactly at an epoch's end
    assertThat(rows).hasSize(epochsRun - (allowed % STEPS_PER_EPOCH == 0 ? 1 : 0));
    assertThat(rows.get(rows.size() - 1).steps()).isEqualTo(allowed);
    assertThat(ledger.wouldExceedBudget(1)).isTrue();
  }

  @Test
  void aLoopNeedsALedgerAndEpochsAndALedgerAtAnEpochBoundary() {
    assertThatThrownBy(() -> new Options().epochs(1).loop(() -> { })).hasMessageContaining("a ledger is required");
    assertThatThrownBy(() -> new Options().ledger(ledger(0)).loop(() -> { }))
        .hasMessageContaining("epochs are required");
    PrivacyLedger midEpoch = ledger(0);
    midEpoch.tryStep();
    assertThatThrownBy(() -> new Options().ledger(midEpoch).epochs(1).loop(() -> { }))
        .hasMessageContaining("fresh or restored at an epoch boundary");
    assertThatThrownBy(() -> new Options().noise(GaussianNoise.insecureFixedSeed(1)))
        .hasMessageContaining("not cryptographically secure");
  }
}
