package org.dp4j.accounting.hiddenstate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.dp4j.accounting.Orders;
import org.dp4j.accounting.PrivacyGuarantee;
import org.dp4j.accounting.RdpConversion;
import org.dp4j.accounting.RdpCurve;
import org.dp4j.accounting.ThreatModel;
import org.dp4j.accounting.ledger.PrivacyBudget;
import org.dp4j.accounting.ledger.PrivacyLedger;
import org.junit.jupiter.api.Test;

/** Reference values: docs/accountants.md#dp-mbcd (float64 values computed separately from the paper's formulas). */
class DpMbcdStepAccountantTest {
  private static final Orders ORDERS = Orders.of(2, 10);

  /** The §5.2 tiny accountant: n = 4, b = 2, η = 0.1, o = 0.01, L_F = 0.9, L_T = 1, S_g = 1. */
  private static DpMbcdConfig tiny() {
    return DpMbcdConfig.builder().datasetSize(4).batchSize(2).stepSize(0.1)
        .noiseTemperature(NoiseTemperatureSchedule.constant(0.01)).block("W", 0.9, 1, 1).build();
  }

  /** The §5.3 adaptive schedule: n = 6, b = 2, η = 0.05, o = 0.02 − 0.005k, L_F = 0.95; two blocks. */
  private static DpMbcdConfig adaptive() {
    return DpMbcdConfig.builder().datasetSize(6).batchSize(2).stepSize(0.05)
        .noiseTemperature(NoiseTemperatureSchedule.linearInEpoch(0.02, -0.005))
        .block("W0", 0.95, 1, 1).block("W1", 0.95, 1, 1).build();
  }

  @Test
  void steppingReproducesTheDigestVectors() {
    DpMbcdStepAccountant acc = new DpMbcdStepAccountant(tiny(), ORDERS, "constant o = 0.01");
    assertThat(acc.lsiConstants()).isEmpty(); // c_0 = ∞
    acc.advance(2);
    assertThat(acc.lsiConstants().get("W")).isCloseTo(1 / 0.00362, within(1e-6)); // §5.1, c_2
    assertThat(acc.curve().value(0)).isCloseTo(0.9631651262, within(1e-9)); // §5.2, K = 1
    acc.advance(2);
    assertThat(acc.steps()).isEqualTo(4);
    assertThat(acc.curve().value(0)).isCloseTo(1.6750161037, within(1e-9)); // §5.2, K = 2
    assertThat(acc.curve().value(1)).isCloseTo(9.8886176436, within(1e-9));
    assertThat(acc.lsiConstants().get("W")).isCloseTo(1 / 0.005995082, within(1e-6)); // §5.1, c_4

    DpMbcdStepAccountant two = new DpMbcdStepAccountant(adaptive(), ORDERS, "linear 0.02 - 0.005k");
    two.advance(9);
    // §5.3: ε(2) = 0.92778245355 and ε(10) = 5.3553940817 per block, summed over the two blocks
    assertThat(two.curve().value(0)).isCloseTo(2 * 0.92778245355, within(2e-10));
    assertThat(two.curve().value(1)).isCloseTo(2 * 5.3553940817, within(2e-9));
    assertThat(two.lsiConstants()).containsOnlyKeys("W0", "W1");
    assertThat(two.lsiConstants().get("W1")).isCloseTo(1 / 8.6492036126e-3, within(1e-6));
  }

  @Test
  void curveAfterMatchesDirectStepsAndLeavesTheStateAlone() {
    DpMbcdStepAccountant acc = new DpMbcdStepAccountant(adaptive(), Orders.DEFAULT, "linear");
    for (int steps = 0; steps < 9; steps++) {
      RdpCurve before = acc.curve();
      for (long more : new long[] {0, 1, 2, 4}) {
        if (steps + more > 9) {
          continue;
        }
        DpMbcdAccountant direct = new DpMbcdAccountant(adaptive());
        for (int i = 0; i < steps + more; i++) {
          direct.step();
        }
        assertThat(acc.curveAfter(more).values())
            .containsExactly(direct.rdp(Orders.DEFAULT).values(), within(1e-15));
      }
      assertThat(acc.steps()).isEqualTo(steps);
      assertThat(acc.curve()).isEqualTo(before);
      acc.advance(1);
    }
  }

  @Test
  void ledgerHaltsBeforeTheStepThatWouldExceedTheBudget() {
    double budget = 6.0;
    DpMbcdStepAccountant acc = new DpMbcdStepAccountant(tiny(), Orders.DEFAULT, "constant o = 0.01");
    PrivacyLedger ledger = PrivacyLedger.builder().accountant(acc).delta(1e-5)
        .budget(new PrivacyBudget(budget, 1e-5, ThreatModel.LAST_ITERATE_ONLY)).build();
    int taken = 0;
    while (taken < 1000 && ledger.tryStep()) {
      taken++;
    }
    // Chen & Liu 2025; docs/accountants.md#dp-mbcd: K = 2 (4 steps) converts to improved ε = 6.843493 at δ = 1e-5, over budget
    assertThat(taken).isBetween(1, 3);
    PrivacyGuarantee now = ledger.best(ThreatModel.LAST_ITERATE_ONLY, 0).orElseThrow();
    assertThat(now.epsilon()).isLessThanOrEqualTo(budget);
    assertThat(RdpConversion.IMPROVED.epsilon(acc.curveAfter(1), 1e-5).epsilon()).isGreaterThan(budget);
    assertThat(ledger.closeEpoch(1).lsiConstants()).containsKey(DpMbcdAccountant.NAME + "/W");
  }

  @Test
  void mechanismDescriptionNamesEveryConstantAndTheSchedule() {
    String d = new DpMbcdStepAccountant(adaptive(), ORDERS, "linear 0.02 - 0.005k").mechanismDescription();
    assertThat(d).contains("n=6", "b=2", "eta=0.05", "SAFE", "linear 0.02 - 0.005k", "W0(L_F=0.95", "W1(");
  }

  @Test
  void everyAccountantFeedsTheCombiner() {
    DpMbcdAccountant mbcd = DpMbcdAccountant.afterEpochs(tiny(), 2);
    YeShokriConfig ys = YeShokriConfig.builder().datasetSize(50).batchSize(4).stepSize(0.02).strongConvexity(1)
        .smoothness(4).gradientSensitivity(4).sigma(2).epochs(10).build();
    List<HiddenStateAccountant> all = List.of(mbcd, new YeShokriShuffleAccountant(ys),
        new YeShokriFixedBatchAccountant(ys), new YeShokriWithoutReplacementAccountant(ys));
    List<HiddenStateCombiner.Best> report =
        new HiddenStateCombiner(1e-5, Orders.DEFAULT, RdpConversion.IMPROVED).combine(all, List.of());
    assertThat(report).hasSize(1);
    HiddenStateCombiner.Best best = report.get(0);
    assertThat(best.candidates()).hasSize(4);
    assertThat(best.best().accountant()).isEqualTo(YeShokriShuffleAccountant.NAME); // shuffle ≤ fixed (Thm 5.2)
    // Chen & Liu 2025; docs/accountants.md#dp-mbcd: K = 2 converts to improved ε = 6.843493 at α ≈ 4.084, δ = 1e-5; the grid has 4.1
    assertThat(best.candidates().get(0).epsilon()).isBetween(6.843493, 6.843493 + 2e-4);
  }
}
