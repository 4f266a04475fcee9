package org.dp4j.accounting;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;
import static org.assertj.core.api.Assertions.withinPercentage;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RdpConversionTest {
  /** TF Privacy's compute_dp_sgd_privacy order list (docs/accountants.md#rdp-orders). */
  private static final Orders TF_ORDERS = tfOrders();

  private static Orders tfOrders() {
    double[] head = {1.25, 1.5, 1.75, 2, 2.25, 2.5, 3, 3.5, 4, 4.5};
    double[] all = new double[head.length + 59 + 3];
    System.arraycopy(head, 0, all, 0, head.length);
    for (int a = 5; a <= 63; a++) {
      all[head.length + a - 5] = a;
    }
    all[all.length - 3] = 128;
    all[all.length - 2] = 256;
    all[all.length - 1] = 512;
    return Orders.of(all);
  }

  private static RdpCurve sgm(double q, double z, long steps, Orders orders) {
    return SampledGaussianRdp.curve(q, z, orders).times(steps);
  }

  @Test
  void tfPrivacyPublishedValues() {
    // compute_dp_sgd_privacy(n=60000, batch=150, noise=1.3, epochs=15, delta=1e-5) = 0.7242234026109595 (order 19)
    long steps = SampledGaussianMechanism.stepsForEpochs(15, 60000, 150);
    EpsilonDelta a = RdpConversion.IMPROVED.epsilon(sgm(150.0 / 60000, 1.3, steps, TF_ORDERS), 1e-5);
    assertThat(a.epsilon()).isCloseTo(0.7242234026109595, withinPercentage(1e-7));
    assertThat(a.order()).isEqualTo(19);
    // (100000, 100, 1.0, 30, 1e-7) = 1.4154988495444842 (order 13)
    steps = SampledGaussianMechanism.stepsForEpochs(30, 100000, 100);
    EpsilonDelta b = RdpConversion.IMPROVED.epsilon(sgm(100.0 / 100000, 1.0, steps, TF_ORDERS), 1e-7);
    assertThat(b.epsilon()).isCloseTo(1.4154988495444842, withinPercentage(1e-7));
    assertThat(b.order()).isEqualTo(13);
  }

  /** Boninsegna's survey; docs/accountants.md#sampled-gaussian-rdp (grid 1.1..10.9, 12..63, 128, 256, 512), both conversions. */
  @ParameterizedTest(name = "q={0}, z={1}, T={2}")
  @CsvSource({
      "0.01,                 4.0,  10000, 1.258575, 20,  1.035490, 17",
      "0.004266666666666667, 1.1,  14063, 3.008381, 8.8, 2.596656, 8.1",
      "0.01,                 1.0,  1000,  2.537983, 7.9, 2.101365, 7.8",
      "1,                    1.0,  1,     5.298526, 5.8, 4.728507, 5.4",
      "1,                    10.0, 100,   5.298526, 5.8, 4.728507, 5.4",
  })
  void digestEndToEndTable(double q, double z, long steps, double classic, double classicOrder, double improved,
      double improvedOrder) {
    RdpCurve curve = sgm(q, z, steps, digestGrid());
    EpsilonDelta c = RdpConversion.CLASSIC.epsilon(curve, 1e-5);
    EpsilonDelta i = RdpConversion.IMPROVED.epsilon(curve, 1e-5);
    assertThat(c.epsilon()).isCloseTo(classic, within(1e-6));
    assertThat(c.order()).isCloseTo(classicOrder, within(1e-9));
    assertThat(i.epsilon()).isCloseTo(improved, within(1e-6));
    assertThat(i.order()).isCloseTo(improvedOrder, within(1e-9));
  }

  private static Orders digestGrid() {
    double[] all = new double[99 + 52 + 3];
    int k = 0;
    for (int t = 11; t <= 109; t++) {
      all[k++] = t / 10.0;
    }
    for (int a = 12; a <= 63; a++) {
      all[k++] = a;
    }
    all[k++] = 128;
    all[k++] = 256;
    all[k] = 512;
    return Orders.of(all);
  }

  @Test
  void anchorsMnistSettingOnTheDefaultGrid() {
    RdpCurve curve = sgm(256.0 / 60000, 1.1, 14063, Orders.DEFAULT);
    assertThat(RdpConversion.IMPROVED.epsilon(curve, 1e-5).epsilon()).isCloseTo(2.5967, within(1e-4));
    assertThat(RdpConversion.CLASSIC.epsilon(curve, 1e-5).epsilon()).isCloseTo(3.008, within(1e-3));
  }

  @Test
  void inverseDirectionDigestValues() {
    // Boninsegna's survey; docs/accountants.md#sampled-gaussian-rdp: δ(ε=1.26) = 9.732835e-6 @α=20 and δ(ε=2) = 1.657366e-13 @α=31, classic form.
    RdpCurve curve = sgm(0.01, 4.0, 10000, digestGrid());
    EpsilonDelta d1 = RdpConversion.CLASSIC.delta(curve, 1.26);
    assertThat(d1.delta()).isCloseTo(9.732835e-6, withinPercentage(1e-4));
    assertThat(d1.order()).isEqualTo(20);
    EpsilonDelta d2 = RdpConversion.CLASSIC.delta(curve, 2);
    assertThat(d2.delta()).isCloseTo(1.657366e-13, withinPercentage(1e-4));
    assertThat(d2.order()).isEqualTo(31);
  }

  @Test
  void deltaAndEpsilonAreInverse() {
    RdpCurve curve = sgm(0.01, 1.0, 1000, Orders.DEFAULT);
    for (RdpConversion conversion : RdpConversion.values()) {
      EpsilonDelta e = conversion.epsilon(curve, 1e-6);
      assertThat(conversion.delta(curve, e.epsilon()).delta()).isCloseTo(1e-6, withinPercentage(1e-6));
    }
  }

  @Test
  void classicIsNeverBelowImproved() {
    for (double z : new double[] {0.6, 1.0, 2.0, 8.0}) {
      RdpCurve curve = sgm(0.02, z, 5000, Orders.DEFAULT);
      assertThat(RdpConversion.CLASSIC.epsilon(curve, 1e-5).epsilon())
          .isGreaterThanOrEqualTo(RdpConversion.IMPROVED.epsilon(curve, 1e-5).epsilon());
    }
  }

  @Test
  void epsilonGrowsWithStepsAndSamplingRateAndShrinksWithNoise() {
    double base = eps(0.01, 1.0, 1000);
    assertThat(eps(0.01, 1.0, 2000)).isGreaterThan(base);
    assertThat(eps(0.02, 1.0, 1000)).isGreaterThan(base);
    assertThat(eps(0.01, 1.5, 1000)).isLessThan(base);
  }

  private static double eps(double q, double z, long steps) {
    return RdpConversion.IMPROVED.epsilon(sgm(q, z, steps, Orders.DEFAULT), 1e-5).epsilon();
  }

  @Test
  void flagsAnOptimumOnTheEdgeOfTheGrid() {
    // Very little privacy spent: the best order is the largest one available.
    RdpCurve tiny = sgm(0.001, 20, 10, Orders.of(2, 4, 8, 16));
    assertThat(RdpConversion.CLASSIC.epsilon(tiny, 1e-5).orderOnGridEdge()).isTrue();
    RdpCurve mnist = sgm(256.0 / 60000, 1.1, 14063, Orders.DEFAULT);
    assertThat(RdpConversion.IMPROVED.epsilon(mnist, 1e-5).orderOnGridEdge()).isFalse();
  }

  @Test
  void infiniteCurveGivesInfiniteEpsilonNotNaN() {
    RdpCurve inf = RdpCurve.of(Orders.of(2, 3), Double.POSITIVE_INFINITY, Double.POSITIVE_INFINITY);
    EpsilonDelta e = RdpConversion.IMPROVED.epsilon(inf, 1e-5);
    assertThat(e.epsilon()).isInfinite();
    assertThat(e.isFinite()).isFalse();
    assertThat(RdpConversion.IMPROVED.delta(inf, 1).delta()).isEqualTo(1);
  }

  @Test
  void rejectsBadDelta() {
    RdpCurve c = RdpCurve.zero(Orders.DEFAULT);
    assertThatThrownBy(() -> RdpConversion.IMPROVED.epsilon(c, 0)).hasMessageContaining("delta");
    assertThatThrownBy(() -> RdpConversion.IMPROVED.epsilon(c, 1)).hasMessageContaining("delta");
  }
}
