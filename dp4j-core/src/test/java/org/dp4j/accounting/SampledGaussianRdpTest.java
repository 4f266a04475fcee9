package org.dp4j.accounting;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;
import static org.assertj.core.api.Assertions.withinPercentage;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SampledGaussianRdpTest {
  private static final double MNIST_Q = 256.0 / 60000;

  /** 1e-8 relative, as a percentage for AssertJ. */
  private static final double REL_1E8 = 1e-6;

  /**
   * Reference: mpmath quadrature (40 digits) of A_α = E_{N(0,z²)}[((1−q) + q e^{(2x−1)/(2z²)})^α];
   * the integer-order values are the and TF Privacy's (docs/accountants.md#sampled-gaussian-rdp), the others computed separately from the formulas (docs/accountants.md#sampled-gaussian-rdp).
   */
  @ParameterizedTest(name = "q={0}, z={1}, alpha={2}")
  @CsvSource({
      "0.004266666666666667, 1.1, 2,    2.33957760099492e-5",
      "0.004266666666666667, 1.1, 8,    9.8341061779926e-5",
      "0.004266666666666667, 1.1, 32,   7.59018834621011",
      "0.004266666666666667, 1.1, 1.25, 1.4538842929907e-5",
      "0.004266666666666667, 1.1, 10.5, 1.32165411307523e-4",
      "0.01,                 1.1, 10.5, 9.67271305229599e-4",
      "0.1,                  1.0, 2.5,  2.35037272610031e-2",
      "0.01,                 4.0, 1.5,  4.83549317563319e-6",
  })
  void matchesHighPrecisionQuadrature(double q, double z, double alpha, double expected) {
    assertThat(SampledGaussianRdp.rdp(q, z, alpha)).isCloseTo(expected, withinPercentage(REL_1E8));
  }

  /** Boninsegna's survey; docs/accountants.md#sampled-gaussian-rdp table (7 significant digits printed). */
  @ParameterizedTest(name = "q={0}, z={1}")
  @CsvSource({
      "0.01, 1.1, 9.554529e-05, 1.285101e-04, 1.620774e-04, 1.962779e-04, 5.840703e-04, 9.672713e-04, 8.469416e+00",
      "0.01, 4.0, 4.835493e-06, 6.449425e-06, 8.064410e-06, 9.680449e-06, 2.589912e-05, 3.404848e-05, 1.052636e-04",
      "0.1,  1.0, 1.173459e-02, 1.703686e-02, 2.350373e-02, 3.171230e-02, 1.378361e+00, 2.705786e+00, 1.362314e+01",
  })
  void matchesDigestTable(double q, double z, double a15, double a2, double a25, double a3, double a8, double a105,
      double a32) {
    double[] orders = {1.5, 2, 2.5, 3, 8, 10.5, 32};
    double[] expected = {a15, a2, a25, a3, a8, a105, a32};
    for (int i = 0; i < orders.length; i++) {
      assertThat(SampledGaussianRdp.rdp(q, z, orders[i])).as("alpha=%s", orders[i])
          .isCloseTo(expected[i], withinPercentage(1e-4));
    }
  }

  @Test
  void edgeCases() {
    assertThat(SampledGaussianRdp.rdp(0, 1.1, 8)).isZero();
    assertThat(SampledGaussianRdp.rdp(1, 2.0, 8)).isEqualTo(8 / (2 * 4.0));
    assertThat(SampledGaussianRdp.rdp(1, 2.0, 2.5)).isEqualTo(2.5 / 8.0);
    assertThat(SampledGaussianRdp.rdp(0.01, 1.1, Double.POSITIVE_INFINITY)).isInfinite();
    assertThat(SampledGaussianRdp.rdp(0, 1.1, Double.POSITIVE_INFINITY)).isZero();
  }

  @Test
  void fractionalOrdersInterpolateIntegerOnesMonotonically() {
    // RDP is non-decreasing in α (van Erven & Harremoës 2014): fractional orders sit between integers.
    double previous = 0;
    for (double a = 1.1; a < 40; a += 0.1) {
      double r = SampledGaussianRdp.rdp(MNIST_Q, 1.1, a);
      assertThat(r).as("alpha=%s", a).isGreaterThanOrEqualTo(previous * (1 - 1e-9));
      previous = r;
    }
  }

  @Test
  void neverAboveTheUnsampledGaussian() {
    for (double a : Orders.DEFAULT.toArray()) {
      assertThat(SampledGaussianRdp.rdp(0.3, 0.8, a)).isLessThanOrEqualTo(a / (2 * 0.64) * (1 + 1e-12));
    }
  }

  @Test
  void largeOrdersStayFinite() {
    assertThat(SampledGaussianRdp.rdp(MNIST_Q, 1.1, 1024)).isFinite().isPositive();
    assertThat(SampledGaussianRdp.rdp(MNIST_Q, 0.5, 1023.5)).isFinite().isPositive();
  }

  @Test
  void rejectsInvalidInput() {
    assertThatThrownBy(() -> SampledGaussianRdp.rdp(1.5, 1, 2)).hasMessageContaining("1.5");
    assertThatThrownBy(() -> SampledGaussianRdp.rdp(0.1, -1, 2)).hasMessageContaining("-1.0");
    assertThatThrownBy(() -> SampledGaussianRdp.rdp(0.1, 1, 1)).hasMessageContaining("order");
  }

  @Test
  void logErfcMatchesMpmathAcrossTheSwitchToTheAsymptoticSeries() {
    // mpmath, 40 digits.
    assertThat(GaussianTail.logErfc(5)).isCloseTo(-27.200889545537434422, within(1e-12));
    assertThat(GaussianTail.logErfc(19.9)).isCloseTo(-399.57434330827493344, within(1e-11));
    assertThat(GaussianTail.logErfc(20.1)).isCloseTo(-407.58431854520046429, within(1e-11));
    assertThat(GaussianTail.logErfc(30)).isCloseTo(-903.97411711064387808, within(1e-10));
    assertThat(GaussianTail.logErfc(100)).isCloseTo(-10005.177585122664333, within(1e-9));
    assertThat(GaussianTail.logErfc(-3)).isCloseTo(Math.log(2 - 2.209049699858544e-5), within(1e-14));
  }
}
