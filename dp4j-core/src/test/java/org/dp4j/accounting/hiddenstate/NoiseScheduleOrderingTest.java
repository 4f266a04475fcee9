package org.dp4j.accounting.hiddenstate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Random;
import org.dp4j.accounting.Orders;
import org.junit.jupiter.api.Test;

/**
 * When does more noise spend less privacy in the DP-MBCD recursion (Chen &amp; Liu 2025; docs/errata.md#dp-mbcd-step-recursion)? With
 * 1/c_t = 2ηL_T²·Σ_{s&lt;t} o_s L^{2(t−s−1)}, the contraction λ_t = (1 + 2η·o_t·c_t/L_F²)^(−1/L_T²) depends on
 * o_t·c_t, the current temperature relative to a weighted sum of past ones, and Δ_t ∝ 1/o_t. Hence:
 * <ul>
 *   <li>scaling every o by s &gt; 0 leaves every λ_t unchanged and divides every Δ_t, hence every position's
 *       bound G_{j0}, by s;</li>
 *   <li>if o'_t = r_t·o_t with r_t ≥ 1 non-decreasing in t ("extra noise back-loaded"), then o'_t·c'_t ≥ o_t·c_t
 *       (Σ r_s o_s L.. ≤ r_t Σ o_s L..), so every λ'_t ≤ λ_t and Δ'_t ≤ Δ_t: the RDP is no larger;</li>
 *   <li>but o' ≥ o pointwise alone is not enough: extra noise early weakens every later contraction.</li>
 * </ul>
 * Reference values computed with an independent Python implementation of docs/errata.md#dp-mbcd-step-recursion (float64).
 */
class NoiseScheduleOrderingTest {
  private static double rdp(NoiseTemperatureSchedule o, double lf, int n, int b, int epochs, double alpha) {
    DpMbcdConfig c = DpMbcdConfig.builder().datasetSize(n).batchSize(b).stepSize(0.1).noiseTemperature(o)
        .block("W", lf, 1.0, 1.0).build();
    return DpMbcdAccountant.afterEpochs(c, epochs).rdp(Orders.of(alpha)).value(0);
  }

  @Test
  void pointwiseMoreNoiseCanSpendMorePrivacy() {
    // Chen & Liu 2025; docs/accountants.md#dp-mbcd setting (n = 4, b = 2, η = 0.1, L_F = 0.9, S_g = 1, K = 2): constant o = 0.01 gives
    // ε(2) = 1.6750161037; raising only o(0, 0) to 1 gives 2.0420707166 (Python, §3.11 recursion)
    NoiseTemperatureSchedule base = NoiseTemperatureSchedule.constant(0.01);
    NoiseTemperatureSchedule more = (k, j) -> k == 0 && j == 0 ? 1.0 : 0.01;
    assertThat(rdp(base, 0.9, 4, 2, 2, 2)).isCloseTo(1.6750161037, within(1e-9));
    assertThat(rdp(more, 0.9, 4, 2, 2, 2)).isCloseTo(2.0420707166, within(1e-9));
  }

  @Test
  void scalingTheScheduleDividesEveryPositionsBound() {
    NoiseTemperatureSchedule d = NoiseTemperatureSchedule.decreasingTo(0.002, 0.00025, 12);
    NoiseTemperatureSchedule d3 = (k, j) -> 3 * d.temperature(k, j);
    double[] g = bounds(d);
    double[] g3 = bounds(d3);
    for (int j0 = 0; j0 < g.length; j0++) {
      assertThat(3 * g3[j0]).isCloseTo(g[j0], within(1e-12 * g[j0]));
    }
    // the RDP is a log-mean-exp of α(α−1)·G over j0, convex and 0 at G = 0: scaling by 3 divides it by at least 3
    for (double alpha : new double[] {2, 10}) {
      assertThat(3 * rdp(d3, 0.95, 30, 5, 12, alpha)).isLessThanOrEqualTo(rdp(d, 0.95, 30, 5, 12, alpha));
    }
  }

  private static double[] bounds(NoiseTemperatureSchedule o) {
    DpMbcdConfig c = DpMbcdConfig.builder().datasetSize(30).batchSize(5).stepSize(0.1).noiseTemperature(o)
        .block("W", 0.95, 1.0, 1.0).build();
    return DpMbcdAccountant.afterEpochs(c, 12).ledgers().get(0).bounds();
  }

  @Test
  void backLoadedExtraNoiseNeverSpendsMore() {
    Random rnd = new Random(17);
    for (int trial = 0; trial < 200; trial++) {
      int n = 2 + rnd.nextInt(4);
      int epochs = 1 + rnd.nextInt(4);
      double lf = new double[] {0.5, 0.9, 0.95, 1.0}[rnd.nextInt(4)];
      double[] o = new double[n * epochs];
      double[] ratio = new double[n * epochs];
      double r = 1;
      for (int t = 0; t < o.length; t++) {
        o[t] = 0.1 + rnd.nextDouble();
        r *= rnd.nextBoolean() ? 1 : 1 + rnd.nextDouble();
        ratio[t] = r;
      }
      NoiseTemperatureSchedule base = (k, j) -> o[k * n + j];
      NoiseTemperatureSchedule more = (k, j) -> ratio[k * n + j] * o[k * n + j];
      for (double alpha : new double[] {2, 10}) {
        assertThat(rdp(more, lf, n, 1, epochs, alpha))
            .isLessThanOrEqualTo(rdp(base, lf, n, 1, epochs, alpha) * (1 + 1e-12));
      }
    }
  }
}
