package org.dp4j.accounting;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.assertj.core.api.Assertions.withinPercentage;

import org.junit.jupiter.api.Test;

class GaussianDpTest {
  @Test
  void publishedValues() {
    // docs/accountants.md#gaussian-dp: δ(ε=1; μ=1) = 0.1269367375, ε(δ=1e-5; μ=1) = 4.3771780957
    assertThat(GaussianDp.delta(1, 1)).isCloseTo(0.1269367375, within(1e-10));
    assertThat(GaussianDp.epsilon(1e-5, 1)).isCloseTo(4.3771780957, within(1e-9));
  }

  @Test
  void epsilonErrsOnThePrivateSide() {
    for (double mu : new double[] {0.1, 0.5, 1, 2, 5}) {
      double e = GaussianDp.epsilon(1e-6, mu);
      assertThat(GaussianDp.delta(e, mu)).isLessThanOrEqualTo(1e-6);
      assertThat(GaussianDp.delta(Math.max(0, e - 1e-9), mu)).isGreaterThan(1e-6 * (1 - 1e-6));
    }
  }

  @Test
  void farTailStaysAccurate() {
    // mpmath (50 digits): δ(10; 0.5) = 9.85512061085017e-89, δ(30; 3) = 2.43098043175946e-18.
    assertThat(GaussianDp.delta(10, 0.5)).isCloseTo(9.85512061085017e-89, withinPercentage(1e-7));
    assertThat(GaussianDp.delta(30, 3)).isCloseTo(2.43098043175946e-18, withinPercentage(1e-7));
    // δ(20; 0.5) ≈ 9.7e-348 underflows double: 0, not NaN.
    assertThat(GaussianDp.delta(20, 0.5)).isZero();
    // mpmath root of δ(ε; 0.5) = 1e-100: ε = 10.6729454398096326
    assertThat(GaussianDp.epsilon(1e-100, 0.5)).isCloseTo(10.6729454398096326, within(1e-9));
  }

  @Test
  void deltaIsDecreasingInEpsilonAndIncreasingInMu() {
    assertThat(GaussianDp.delta(2, 1)).isLessThan(GaussianDp.delta(1, 1));
    assertThat(GaussianDp.delta(1, 2)).isGreaterThan(GaussianDp.delta(1, 1));
  }

  @Test
  void rdpOfGdp() {
    RdpCurve c = GaussianDp.rdp(2, Orders.of(2, 10));
    assertThat(c.values()).containsExactly(4, 20);
    // The RDP route is looser than the exact GDP conversion.
    double viaRdp = RdpConversion.IMPROVED.epsilon(GaussianDp.rdp(1, Orders.DEFAULT), 1e-5).epsilon();
    assertThat(viaRdp).isGreaterThan(GaussianDp.epsilon(1e-5, 1));
    assertThat(GaussianRdp.curve(2, 4, Orders.of(10)).value(0)).isCloseTo(1.25, withinPercentage(1e-12));
  }
}
