package org.dp4j.accounting.hiddenstate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;
import static org.assertj.core.api.Assertions.withinPercentage;

import java.util.Random;
import java.util.stream.IntStream;
import org.dp4j.accounting.EpsilonDelta;
import org.dp4j.accounting.NeighbouringRelation;
import org.dp4j.accounting.Orders;
import org.dp4j.accounting.PrivacyGuarantee;
import org.dp4j.accounting.RdpConversion;
import org.dp4j.accounting.RdpCurve;
import org.dp4j.accounting.ThreatModel;
import org.junit.jupiter.api.Test;

/** Reference values: docs/accountants.md#dp-mbcd (float64 vectors computed separately from the paper's formulas, independent of this code). */
class DpMbcdAccountantTest {
  private static DpMbcdConfig config(long n, int b, double eta, NoiseTemperatureSchedule o, double lf, double lt,
      double sg, DpMbcdMode mode) {
    return DpMbcdConfig.builder().datasetSize(n).batchSize(b).stepSize(eta).noiseTemperature(o).mode(mode)
        .block("W", lf, lt, sg).build();
  }

  private static DpMbcdLedger ledger(DpMbcdConfig config) {
    return new DpMbcdLedger(config, config.blocks().get(0));
  }

  /** The §5.2 tiny accountant: n = 4, b = 2, η = 0.1, o = 0.01, L_F = 0.9, L_T = 1, S_g = 1. */
  private static DpMbcdLedger tiny() {
    return ledger(config(4, 2, 0.1, NoiseTemperatureSchedule.constant(0.01), 0.9, 1, 1, DpMbcdMode.SAFE));
  }

  @Test
  void lsiSequenceMatchesDigest51() {
    DpMbcdLedger l = ledger(config(1000, 1, 0.1, NoiseTemperatureSchedule.constant(0.01), 0.9, 1, 1,
        DpMbcdMode.SAFE));
    double[] expected = {0, 0.002, 0.00362, 0.0049322, 0.005995082, 0.0068560164, 0.0075533733};
    for (double invC : expected) {
      assertThat(l.inverseLsiConstant()).isCloseTo(invC, within(1e-10));
      l.step();
    }
    // Paper exponent with L_F = 1, L_T = 0.9: 1/c = 0, 0.00162, 0.0029322, ...
    DpMbcdLedger p = ledger(config(1000, 1, 0.1, NoiseTemperatureSchedule.constant(0.01), 1, 0.9, 1,
        DpMbcdMode.PAPER));
    for (double invC : new double[] {0, 0.00162, 0.0029322, 0.003995082, 0.0048560164}) {
      assertThat(p.inverseLsiConstant()).isCloseTo(invC, within(1e-10));
      p.step();
    }
  }

  @Test
  void tinyAccountantTraceAndResultsMatchDigest52() {
    DpMbcdLedger l = tiny();
    l.step(); // t=0: j0=0 gets Δ = 0.625, j0=1 is contracted by λ_0 = 0
    assertThat(l.bounds()).containsExactly(new double[] {0.625, 0}, within(1e-12));
    l.step(); // t=1: λ_1 = 0.4475138122
    assertThat(l.bounds()).containsExactly(new double[] {0.2796961326, 0.625}, within(1e-10));
    l.step(); // t=2: λ_2 = 0.5945014395
    assertThat(l.bounds()).containsExactly(new double[] {0.9046961326, 0.3715633997}, within(1e-10));
    l.step();
    assertThat(l.bounds()).containsExactly(new double[] {0.6028833692, 0.9965633997}, within(1e-10));
    assertThat(l.rdp(2)).isCloseTo(1.6750161037, within(1e-9));
    assertThat(l.rdp(10)).isCloseTo(9.8886176436, within(1e-9));
  }

  @Test
  void tinyAccountantByEpochsMatchesDigest52Table() {
    int[] epochs = {1, 3, 5, 10, 50};
    double[][] g = {{0.2796961326, 0.6250000000}, {0.9027615143, 1.3308513189}, {1.4078950810, 1.8890412168},
        {2.1719704236, 2.7366294451}, {2.6643581777, 3.2893432433}};
    double[] eps2 = {0.9631651262, 2.3225741497, 3.4084786981, 5.0602052818, 6.1374750392};
    for (int i = 0; i < epochs.length; i++) {
      DpMbcdLedger l = tiny().advanceEpochs(epochs[i]);
      assertThat(l.bounds()).containsExactly(g[i], within(1e-9));
      assertThat(l.rdp(2)).isCloseTo(eps2[i], within(1e-9));
    }
    // Steady state Δ·λ*^{N−1−j0}/(1 − λ*^{N−1}) with λ* = L_F² = 0.81: [2.6644736842, 3.2894736842] to ~1e-4.
    assertThat(tiny().advanceEpochs(50).bounds())
        .containsExactly(new double[] {2.6644736842, 3.2894736842}, within(2e-4));
  }

  @Test
  void fullBatchGrowsLinearly() {
    DpMbcdLedger l = ledger(config(2, 2, 0.1, NoiseTemperatureSchedule.constant(0.01), 0.9, 1, 1,
        DpMbcdMode.SAFE));
    assertThat(l.advanceEpochs(1).bounds()[0]).isCloseTo(0.625, within(1e-12));
    assertThat(l.advanceEpochs(1).bounds()[0]).isCloseTo(1.25, within(1e-12));
    assertThat(l.advanceEpochs(3).bounds()[0]).isCloseTo(3.125, within(1e-12));
  }

  @Test
  void adaptiveScheduleMatchesDigest53() {
    DpMbcdLedger l = ledger(config(6, 2, 0.05, NoiseTemperatureSchedule.linearInEpoch(0.02, -0.005), 0.95, 1, 1,
        DpMbcdMode.SAFE));
    double[] invCAfter = {2.0e-3, 3.805e-3, 5.4340125e-3, 6.4041962812e-3, 7.2797871438e-3, 8.0700078973e-3,
        8.2831821273e-3, 8.4755718699e-3, 8.6492036126e-3};
    for (double invC : invCAfter) {
      l.step();
      assertThat(l.inverseLsiConstant()).isCloseTo(invC, withinPercentage(1e-8));
    }
    assertThat(l.bounds()).containsExactly(new double[] {3.7241984399e-1, 4.5613005608e-1, 5.4774329334e-1},
        within(1e-10));
    assertThat(l.rdp(2)).isCloseTo(9.2778245355e-1, within(1e-10));
    assertThat(l.rdp(10)).isCloseTo(5.3553940817, within(1e-9));
    assertThat(l.inverseLsiConstantsAfterEpochs())
        .containsExactly(new double[] {5.4340125e-3, 8.0700078973e-3, 8.6492036126e-3}, within(1e-12));
  }

  @Test
  void modesMatchDigest54AndPaperIsBelowSafe() {
    NoiseTemperatureSchedule o = NoiseTemperatureSchedule.constant(0.01);
    DpMbcdLedger paper = ledger(config(6, 2, 0.05, o, 1, 0.9, 1, DpMbcdMode.PAPER)).advanceEpochs(3);
    DpMbcdLedger safe = ledger(config(6, 2, 0.05, o, 1, 0.9, 1, DpMbcdMode.SAFE)).advanceEpochs(3);
    assertThat(paper.bounds()).containsExactly(new double[] {2.5271257433e-1, 3.7413810558e-1, 5.3413595305e-1},
        within(1e-10));
    assertThat(paper.rdp(2)).isCloseTo(8.0071373645e-1, within(1e-10));
    assertThat(safe.bounds()).containsExactly(new double[] {3.0871375478e-1, 4.3034623313e-1, 5.7832436152e-1},
        within(1e-10));
    assertThat(safe.rdp(2)).isCloseTo(9.0262587173e-1, within(1e-10));
    for (double alpha : new double[] {1.5, 2, 8, 64}) {
      assertThat(paper.rdp(alpha)).isLessThanOrEqualTo(safe.rdp(alpha));
    }
  }

  @Test
  void noContractionFromTheMapsGrowsWithoutBoundDigest54() {
    int[] epochs = {1, 2, 5, 10, 20, 40};
    double[] eps2 = {0.98555350, 1.80103460, 4.28325904, 8.44055266, 16.76718600, 33.42910825};
    DpMbcdLedger l = ledger(config(4, 2, 0.1, NoiseTemperatureSchedule.constant(0.01), 1, 1, 1, DpMbcdMode.SAFE));
    for (int i = 0; i < epochs.length; i++) {
      l.advanceEpochs(epochs[i] - l.epoch());
      assertThat(l.rdp(2)).isCloseTo(eps2[i], within(1e-8));
      if (i == 0) {
        assertThat(l.bounds()).containsExactly(new double[] {0.3125, 0.625}, within(1e-12));
      }
    }
  }

  @Test
  void madelonLikeSettingsMatchDigest55() {
    DpMbcdConfig c = config(4800, 960, 0.05, NoiseTemperatureSchedule.constant(0.005), 0.95, 1, 1,
        DpMbcdMode.SAFE);
    DpMbcdLedger l = ledger(c);
    int[] epochs = {1, 2, 5, 10, 20, 30, 40};
    double[] eps2 = {3.033591e-6, 5.293778e-6, 9.898970e-6, 1.264792e-5, 1.325416e-5, 1.326742e-5, 1.326766e-5};
    for (int i = 0; i < epochs.length; i++) {
      l.advanceEpochs(epochs[i] - l.epoch());
      assertThat(l.rdp(2)).isCloseTo(eps2[i], withinPercentage(1e-4));
    }
    assertThat(l.bounds()).containsExactly(new double[] {5.3469e-6, 5.9245e-6, 6.5645e-6, 7.2737e-6, 8.0595e-6},
        within(1e-10));
    // Conversion at δ = 1e-5, K = 40, on a fine integer grid: classic 0.018272 (α ≈ 1192), improved 0.010332
    // (α ≈ 804).
    Orders fine = Orders.of(IntStream.rangeClosed(2, 3000).asDoubleStream().toArray());
    DpMbcdAccountant acc = DpMbcdAccountant.afterEpochs(c, 40);
    EpsilonDelta classic = RdpConversion.CLASSIC.epsilon(acc.rdp(fine), 1e-5);
    EpsilonDelta improved = RdpConversion.IMPROVED.epsilon(acc.rdp(fine), 1e-5);
    assertThat(classic.epsilon()).isCloseTo(0.018272, within(1e-6));
    assertThat(classic.order()).isCloseTo(1192, within(2.0));
    assertThat(improved.epsilon()).isCloseTo(0.010332, within(1e-6));
    assertThat(improved.order()).isCloseTo(804, within(2.0));
  }

  @Test
  void madelonDecreasingScheduleMatchesDigest55() {
    for (int k : new int[] {10, 40}) {
      DpMbcdConfig c = config(4800, 960, 0.05, NoiseTemperatureSchedule.decreasingTo(0.002, 0.00025, k), 0.95, 1,
          1, DpMbcdMode.SAFE);
      assertThat(ledger(c).advanceEpochs(k).rdp(2)).isCloseTo(k == 10 ? 3.072370e-5 : 3.222591e-5,
          withinPercentage(1e-4));
    }
  }

  @Test
  void figureOneLikeSettingsMatchDigest55() {
    DpMbcdLedger l = ledger(config(2500, 100, 0.05, NoiseTemperatureSchedule.constant(0.01), 0.98, 1, 1,
        DpMbcdMode.SAFE));
    int[] epochs = {1, 2, 5, 10, 20};
    double[] eps10 = {5.472920e-4, 8.884590e-4, 1.248737e-3, 1.293160e-3, 1.293794e-3};
    for (int i = 0; i < epochs.length; i++) {
      l.advanceEpochs(epochs[i] - l.epoch());
      assertThat(l.rdp(10)).isCloseTo(eps10[i], withinPercentage(1e-4));
    }
  }

  @Test
  void conversionOfTinyResultMatchesDigest55() {
    DpMbcdAccountant acc = DpMbcdAccountant.afterEpochs(
        config(4, 2, 0.1, NoiseTemperatureSchedule.constant(0.01), 0.9, 1, 1, DpMbcdMode.SAFE), 2);
    Orders fine = Orders.of(IntStream.rangeClosed(1001, 20000).mapToDouble(i -> i / 1000.0).toArray());
    EpsilonDelta classic = RdpConversion.CLASSIC.epsilon(acc.rdp(fine), 1e-5);
    EpsilonDelta improved = RdpConversion.IMPROVED.epsilon(acc.rdp(fine), 1e-5);
    assertThat(classic.epsilon()).isCloseTo(7.565077, within(1e-6));
    assertThat(classic.order()).isCloseTo(4.301, within(0.002));
    assertThat(improved.epsilon()).isCloseTo(6.843493, within(1e-6));
    assertThat(improved.order()).isCloseTo(4.084, within(0.002));
  }

  @Test
  void efficientLedgerEqualsNaiveRecursionOnRandomSchedules() {
    Random random = new Random(20260101);
    for (int trial = 0; trial < 40; trial++) {
      int batches = 1 + random.nextInt(30);
      int b = 1 + random.nextInt(50);
      double eta = 0.01 + 0.2 * random.nextDouble();
      double lf = 0.8 + 0.2 * random.nextDouble();
      double lt = 0.85 + 0.15 * random.nextDouble();
      double sg = 0.5 + random.nextDouble();
      boolean paper = random.nextBoolean();
      int epochs = 1 + random.nextInt(8);
      double[][] o = new double[epochs + 1][batches];
      for (double[] row : o) {
        for (int j = 0; j < batches; j++) {
          row[j] = 0.001 + 0.05 * random.nextDouble();
        }
      }
      NoiseTemperatureSchedule schedule = (k, j) -> o[k][j];
      DpMbcdLedger fast = ledger(config((long) batches * b + random.nextInt(b), b, eta, schedule, lf, lt, sg,
          paper ? DpMbcdMode.PAPER : DpMbcdMode.SAFE));
      DpMbcdNaiveLedger naive = new DpMbcdNaiveLedger(eta, lf, lt, sg, b, batches, paper, schedule);
      int steps = epochs * batches + random.nextInt(batches); // end mid-epoch as well
      for (int s = 0; s < steps; s++) {
        fast.step();
        naive.step();
      }
      double[] g = fast.bounds();
      for (int j0 = 0; j0 < batches; j0++) {
        assertThat(g[j0]).isCloseTo(naive.g[j0], within(1e-12 * naive.g[j0] + 1e-300));
      }
      assertThat(fast.inverseLsiConstant()).isCloseTo(naive.invC, withinPercentage(1e-10));
      for (double alpha : new double[] {1.5, 2, 10, 100}) {
        assertThat(fast.rdp(alpha)).isCloseTo(naive.rdp(alpha), withinPercentage(1e-10));
      }
    }
  }

  @Test
  void epochContributionsSumToTheMeanBoundAndDecayWithConstantNoise() {
    DpMbcdLedger l = ledger(config(2500, 100, 0.05, NoiseTemperatureSchedule.constant(0.01), 0.98, 1, 1,
        DpMbcdMode.SAFE)).advanceEpochs(20);
    l.step().step(); // a partial 21st epoch is the last entry
    double[] contributions = l.epochContributions();
    assertThat(contributions).hasSize(21);
    double mean = java.util.Arrays.stream(l.bounds()).average().orElseThrow();
    assertThat(java.util.Arrays.stream(contributions).sum()).isCloseTo(mean, withinPercentage(1e-10));
    // Fig. 1b: with constant noise older epochs contribute geometrically less (near-linear on a log scale).
    for (int k = 1; k < 20; k++) {
      assertThat(contributions[k]).isGreaterThan(contributions[k - 1]);
    }
    assertThat(l.inverseLsiConstantsAfterEpochs()).hasSize(20);
  }

  @Test
  void hiddenStateNeverExceedsCompositionAndIsMonotoneWithConstantNoise() {
    DpMbcdLedger l = ledger(config(60, 4, 0.1, NoiseTemperatureSchedule.constant(0.02), 0.95, 1, 1,
        DpMbcdMode.SAFE));
    double delta = 0.1 / (4.0 * 16 * 0.02);
    double previous = 0;
    for (int k = 1; k <= 30; k++) {
      l.advanceEpochs(1);
      for (double g : l.bounds()) {
        assertThat(g).isLessThanOrEqualTo(k * delta * (1 + 1e-12)); // composition: Δ per epoch, no contraction
      }
      double eps = l.rdp(4);
      assertThat(eps).isGreaterThanOrEqualTo(previous);
      previous = eps;
    }
  }

  @Test
  void moreNoiseGivesLessPrivacyLoss() {
    double low = ledger(config(60, 4, 0.1, NoiseTemperatureSchedule.constant(0.01), 0.95, 1, 1,
        DpMbcdMode.SAFE)).advanceEpochs(5).rdp(8);
    double high = ledger(config(60, 4, 0.1, NoiseTemperatureSchedule.constant(0.02), 0.95, 1, 1,
        DpMbcdMode.SAFE)).advanceEpochs(5).rdp(8);
    assertThat(high).isLessThan(low);
  }

  @Test
  void blocksAreSummedAndTheGuaranteeNamesItsTerms() {
    DpMbcdConfig two = DpMbcdConfig.builder().datasetSize(4).batchSize(2).stepSize(0.1)
        .noiseTemperature(NoiseTemperatureSchedule.constant(0.01))
        .block("W0", 0.9, 1, 1).block("W1", 0.9, 1, 1).build();
    DpMbcdAccountant acc = DpMbcdAccountant.afterEpochs(two, 2);
    RdpCurve curve = acc.rdp(Orders.of(2, 10));
    assertThat(curve.value(0)).isCloseTo(2 * 1.6750161037, within(1e-9));
    assertThat(curve.value(1)).isCloseTo(2 * 9.8886176436, within(1e-9));
    double[] perEpoch = acc.epochContributions();
    assertThat(perEpoch).hasSize(2);
    assertThat(perEpoch[0] + perEpoch[1]).isCloseTo(0.6028833692 + 0.9965633997, within(1e-9)); // 2 blocks × mean G
    assertThat(acc.ledgers().get(0).lsiConstantsAfterEpochs()).containsExactly(
        new double[] {1 / 0.00362, 1 / 0.005995082}, within(1e-6)); // docs/accountants.md#dp-mbcd, c_2 and c_4
    PrivacyGuarantee g = acc.guarantee(Orders.DEFAULT, 1e-5, RdpConversion.IMPROVED);
    assertThat(g.relation()).isEqualTo(NeighbouringRelation.REPLACE_ONE);
    assertThat(g.threatModel()).isEqualTo(ThreatModel.LAST_ITERATE_ONLY);
    assertThat(g.summary()).contains("Chen & Liu", "same order every epoch", "W0", "W1", "fixed before training");
    assertThat(g.epsilon()).isGreaterThan(RdpConversion.IMPROVED.epsilon(
        DpMbcdAccountant.afterEpochs(config(4, 2, 0.1, NoiseTemperatureSchedule.constant(0.01), 0.9, 1, 1,
            DpMbcdMode.SAFE), 2).rdp(Orders.DEFAULT), 1e-5).epsilon());
  }

  @Test
  void derivedBlockConstantsFollowDigestP4P6() {
    DpMbcdConfig c = DpMbcdConfig.builder().datasetSize(100).batchSize(10).stepSize(0.1)
        .noiseTemperature(NoiseTemperatureSchedule.constant(0.01))
        .liftedBlock("convex", 1.0, 0.0, 0.5)
        .liftedBlock("strong", 1.0, 0.5, 0.5)
        .paperLiftedBlock("paper", 1.0, 1.0).mode(DpMbcdMode.PAPER).build();
    assertThat(c.blocks().get(0).lipschitzF()).isEqualTo(1.0); // λ_min = 0: L_F = 1, not |1 − ηβ| = 0.9
    assertThat(c.blocks().get(0).gradientSensitivity()).isEqualTo(1.0); // S_g = 2C
    assertThat(c.blocks().get(1).lipschitzF()).isCloseTo(0.95, within(1e-15));
    assertThat(c.blocks().get(2).lipschitzF()).isCloseTo(0.9, within(1e-15));
    assertThat(c.blocks().get(2).gradientSensitivity()).isEqualTo(1.0);
    assertThatThrownBy(() -> DpMbcdConfig.builder().datasetSize(100).batchSize(10).stepSize(0.1)
        .noiseTemperature(NoiseTemperatureSchedule.constant(0.01)).paperLiftedBlock("W2", 1.0, 1.0).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("[W2]").hasMessageContaining("PAPER mode");
  }

  @Test
  void invalidConfigurationsAreRefusedWithTheViolatedCondition() {
    assertThatThrownBy(() -> config(4, 2, 0.1, NoiseTemperatureSchedule.constant(0.01), 0.9, 1.5, 1,
        DpMbcdMode.SAFE)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("L_T must be in (0, 1]")
        .hasMessageContaining("1.5");
    assertThatThrownBy(() -> config(2, 4, 0.1, NoiseTemperatureSchedule.constant(0.01), 0.9, 1, 1,
        DpMbcdMode.SAFE)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("b = 4");
    assertThatThrownBy(() -> NoiseTemperatureSchedule.constant(-0.01))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-0.01");
    DpMbcdLedger decaying = ledger(config(4, 2, 0.1, NoiseTemperatureSchedule.linearInEpoch(0.02, -0.01), 0.9, 1,
        1, DpMbcdMode.SAFE)).advanceEpochs(2);
    assertThatThrownBy(decaying::step).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("o(k=2, j=0)");
  }

  @Test
  void schedulesGiveTheirValues() {
    NoiseTemperatureSchedule pieces = NoiseTemperatureSchedule.piecewiseByEpoch(new int[] {0, 13}, new double[] {
        0.01, 0.05});
    assertThat(pieces.temperature(0, 3)).isEqualTo(0.01);
    assertThat(pieces.temperature(12, 0)).isEqualTo(0.01);
    assertThat(pieces.temperature(13, 0)).isEqualTo(0.05);
    assertThat(pieces.temperature(40, 7)).isEqualTo(0.05);
    NoiseTemperatureSchedule d = NoiseTemperatureSchedule.decreasingTo(0.002, 0.00025, 40);
    assertThat(d.temperature(39, 0)).isEqualTo(0.002);
    assertThat(d.temperature(0, 0)).isCloseTo(0.002 + 39 * 0.00025, within(1e-15));
  }
}
