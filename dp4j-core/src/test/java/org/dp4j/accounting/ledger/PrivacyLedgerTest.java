package org.dp4j.accounting.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Map;
import org.dp4j.accounting.NeighbouringRelation;
import org.dp4j.accounting.Orders;
import org.dp4j.accounting.RdpConversion;
import org.dp4j.accounting.RdpCurve;
import org.dp4j.accounting.SampledGaussianAccountant;
import org.dp4j.accounting.SampledGaussianMechanism;
import org.dp4j.accounting.SgmCalibration;
import org.dp4j.accounting.ThreatModel;
import org.dp4j.sampling.SamplingPlan;
import org.junit.jupiter.api.Test;

class PrivacyLedgerTest {
  private static final SampledGaussianMechanism SGM = new SampledGaussianMechanism(0.01, 1.0);

  private static PrivacyLedger ledger(PrivacyBudget budget, StepAccountant... extra) {
    PrivacyLedger.Builder b = PrivacyLedger.builder()
        .accountant(new CompositionStepAccountant(SGM, Orders.DEFAULT)).delta(1e-5);
    for (StepAccountant a : extra) {
      b.accountant(a);
    }
    if (budget != null) {
      b.budget(budget);
    }
    return b.build();
  }

  @Test
  void haltsBeforeTheStepThatWouldExceedTheBudget() {
    PrivacyLedger ledger = ledger(new PrivacyBudget(1.0, 1e-5, ThreatModel.ALL_ITERATES_RELEASED));
    long preflight = ledger.stepsWithinBudget(1_000_000);
    int taken = 0;
    while (ledger.tryStep()) {
      taken++;
    }
    // Independent count: the calibration's integer search over the same accountant.
    long expected = SgmCalibration.maxSteps(1.0, 1e-5, 0.01, 1.0, Orders.DEFAULT, RdpConversion.IMPROVED).steps();
    assertThat(taken).isEqualTo(expected).isPositive();
    assertThat(preflight).isEqualTo(expected);
    assertThat(ledger.best(ThreatModel.ALL_ITERATES_RELEASED, 0).orElseThrow().epsilon()).isLessThanOrEqualTo(1.0);
    assertThat(ledger.best(ThreatModel.ALL_ITERATES_RELEASED, 1).orElseThrow().epsilon()).isGreaterThan(1.0);
    assertThat(ledger.tryStep()).isFalse();
    assertThat(ledger.steps()).isEqualTo(expected);
  }

  @Test
  void rowsEqualDirectAccountantCalls() {
    PrivacyLedger ledger = ledger(null);
    for (int epoch = 1; epoch <= 3; epoch++) {
      for (int i = 0; i < 100; i++) {
        assertThat(ledger.tryStep()).isTrue();
      }
      LedgerRow row = ledger.closeEpoch(epoch);
      double direct = new SampledGaussianAccountant(Orders.DEFAULT).compose(SGM, 100L * epoch)
          .guarantee(1e-5, RdpConversion.IMPROVED).epsilon();
      assertThat(row.steps()).isEqualTo(100L * epoch);
      assertThat(row.composition().orElseThrow().epsilon()).isCloseTo(direct, within(1e-12));
      assertThat(row.hiddenState()).isEmpty();
      assertThat(row.lastIterate().orElseThrow().epsilon()).isEqualTo(row.composition().orElseThrow().epsilon());
    }
    assertThat(ledger.rows()).hasSize(3);
    assertThatThrownBy(() -> ledger.closeEpoch(2)).hasMessageContaining("epoch 2");
  }

  /** A hidden-state bound that saturates (as LSI bounds do): min(steps, 5) · α/(2·100). */
  private static final class SaturatingHiddenState implements RdpStepAccountant {
    private long steps;

    @Override public String name() { return "test-hidden"; }
    @Override public String mechanismDescription() { return "test"; }
    @Override public String theorem() { return "test"; }
    @Override public ThreatModel threatModel() { return ThreatModel.LAST_ITERATE_ONLY; }
    @Override public NeighbouringRelation relation() { return NeighbouringRelation.REPLACE_ONE; }
    @Override public List<String> assumptions() { return List.of("asserted"); }
    @Override public Orders orders() { return Orders.DEFAULT; }
    @Override public long steps() { return steps; }
    @Override public RdpCurve curve() { return curveAfter(0); }
    @Override public RdpCurve curveAfter(long more) {
      double k = Math.min(steps + more, 5);
      return RdpCurve.tabulate(Orders.DEFAULT, a -> k * a / 200);
    }
    @Override public void advance(long count) { steps += count; }
    @Override public Map<String, Double> lsiConstants() { return Map.of("W1", 1.0 / (steps + 1)); }
    @Override public void requireCovers(SamplingPlan plan, double noiseMultiplier) { }
  }

  @Test
  void threatModelsAreReportedSeparatelyAndHiddenStateCanBeVoided() {
    PrivacyLedger ledger = ledger(new PrivacyBudget(2.0, 1e-5, ThreatModel.LAST_ITERATE_ONLY),
        new SaturatingHiddenState());
    for (int i = 0; i < 3000; i++) {
      assertThat(ledger.tryStep()).isTrue();
    }
    LedgerRow row = ledger.closeEpoch(1);
    double composition = row.composition().orElseThrow().epsilon();
    double hidden = row.hiddenState().orElseThrow().epsilon();
    assertThat(hidden).isLessThan(composition);
    assertThat(row.lastIterate().orElseThrow().accountant()).isEqualTo("test-hidden");
    assertThat(row.composition().orElseThrow().threatModel()).isEqualTo(ThreatModel.ALL_ITERATES_RELEASED);
    assertThat(row.lsiConstants()).containsKey("test-hidden/W1");
    // The hidden-state bound saturates, so the last-iterate budget allows many more steps than composition would.
    assertThat(ledger.wouldExceedBudget(100_000)).isFalse();

    ledger.voidHiddenState("CheckpointListener saved parameters during training");
    LedgerRow after = ledger.closeEpoch(2);
    assertThat(after.hiddenState()).isEmpty();
    assertThat(after.lastIterate().orElseThrow().accountant()).isEqualTo(SampledGaussianAccountant.NAME);
    assertThat(ledger.warnings()).anyMatch(w -> w.contains("CheckpointListener"));
    assertThat(ledger.wouldExceedBudget(100_000)).isTrue();
  }

  @Test
  void rejectsABudgetWithAnotherDelta() {
    assertThatThrownBy(() -> PrivacyLedger.builder().accountant(new CompositionStepAccountant(SGM, Orders.DEFAULT))
        .delta(1e-5).budget(new PrivacyBudget(1, 1e-6, ThreatModel.ALL_ITERATES_RELEASED)).build())
        .hasMessageContaining("differs");
  }
}
