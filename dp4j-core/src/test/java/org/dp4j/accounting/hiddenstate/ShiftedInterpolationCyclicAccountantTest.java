package org.dp4j.accounting.hiddenstate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.dp4j.accounting.Orders;
import org.dp4j.accounting.PrivacyGuarantee;
import org.dp4j.accounting.RdpConversion;
import org.dp4j.accounting.hiddenstate.ShiftedInterpolationCyclicAccountant.Bound;
import org.junit.jupiter.api.Test;

class ShiftedInterpolationCyclicAccountantTest {
  /** L/(bσ) = 0.2 with b = 5, l batches, c = 1 − η (m = M = 1), as in docs/accountants.md#shifted-interpolation; Bok, Su &amp; Altschuler 2024, Table 9. */
  private static ShiftedInterpolationCyclicAccountant.Builder table9(long l, double c, long bigE) {
    return ShiftedInterpolationCyclicAccountant.builder().datasetSize(5 * l).batchSize(5).gradientSensitivity(1)
        .noiseStd(1).stepSize(1 - c).strongConvexity(1).smoothness(1).epochs(bigE);
  }

  @Test
  void table9StronglyConvex() {
    // docs/accountants.md#shifted-interpolation; Bok, Su & Altschuler 2024, Table 9 (3 decimals), L/(bσ) = 0.2; columns (l, c), rows E = 5, 50, 500
    long[] ls = {10, 10, 10, 20, 20, 20, 40, 40, 40};
    double[] cs = {0.98, 0.99, 0.995, 0.98, 0.99, 0.995, 0.98, 0.99, 0.995};
    long[] es = {5, 50, 500};
    double[][] expected = {
        {0.229, 0.233, 0.235, 0.211, 0.215, 0.217, 0.202, 0.205, 0.208},
        {0.270, 0.334, 0.410, 0.216, 0.237, 0.275, 0.203, 0.208, 0.219},
        {0.270, 0.336, 0.439, 0.216, 0.237, 0.276, 0.203, 0.208, 0.219}};
    double[] composition = {0.447, 1.414, 4.472};
    for (int i = 0; i < es.length; i++) {
      for (int j = 0; j < ls.length; j++) {
        ShiftedInterpolationCyclicAccountant acc = table9(ls[j], cs[j], es[i]).build();
        assertThat(acc.mu()).isCloseTo(expected[i][j], within(5e-4));
        assertThat(acc.tightestBound()).isEqualTo(Bound.STRONGLY_CONVEX_THM_4_5);
        assertThat(acc.muComposition()).isCloseTo(composition[i], within(5e-4));
      }
    }
  }

  @Test
  void table3And4LogisticRegression() {
    // docs/accountants.md#shifted-interpolation; Bok, Su & Altschuler 2024, Tables 3/4: n = 60000, b = 1500 (l = 40), L = 10, σ = 0.01, η = 0.05, c = 1 − ηλ
    long[] es = {50, 100, 200};
    double[][] mu = {{0.9925, 1.2353, 1.5930}, {0.9889, 1.2175, 1.5061}};
    double[][] eps = {{4.339, 5.601, 7.579}, {4.321, 5.506, 7.086}};
    double[] composition = {4.7140, 6.6667, 9.4281};
    double[] lambdas = {0.002, 0.004};
    for (int r = 0; r < 2; r++) {
      for (int i = 0; i < 3; i++) {
        ShiftedInterpolationCyclicAccountant acc = ShiftedInterpolationCyclicAccountant.builder()
            .datasetSize(60_000).batchSize(1500).gradientSensitivity(10).noiseStd(0.01).stepSize(0.05)
            .strongConvexity(lambdas[r]).smoothness(1).epochs(es[i]).build();
        assertThat(acc.mu()).isCloseTo(mu[r][i], within(5e-5));
        assertThat(acc.muComposition()).isCloseTo(composition[i], within(5e-5));
        PrivacyGuarantee g = acc.guarantee(1e-5, Orders.DEFAULT, RdpConversion.IMPROVED);
        assertThat(g.epsilon()).isCloseTo(eps[r][i], within(5e-4));
      }
    }
  }

  @Test
  void figure8AndStableLimitAsCTendsToOne() {
    // docs/accountants.md#shifted-interpolation; Bok, Su & Altschuler 2024, Fig. 8: c = 0.99, l = 20, L/(bσ) = 0.2
    long[] es = {5, 10, 20, 40, 80, 1000};
    double[] mu = {0.2151, 0.2275, 0.2360, 0.2374, 0.2375, 0.2375};
    for (int i = 0; i < es.length; i++) {
      assertThat(table9(20, 0.99, es[i]).build().mu()).isCloseTo(mu[i], within(5e-5));
    }
    assertThat(table9(20, 0.99, 80).build().guarantee(1e-5, Orders.DEFAULT, RdpConversion.IMPROVED).epsilon())
        .isCloseTo(0.876, within(5e-4));
    // Bok, Su & Altschuler 2024; docs/accountants.md#shifted-interpolation: Thm 4.5 in units of L/(bσ), l = 20, E = 50, for 1 − c = 1e-2, 1e-4, 1e-12
    double[] oneMinusC = {1e-2, 1e-4, 1e-12};
    double[] expected = {1.187265, 1.855638, 1.857418};
    for (int i = 0; i < 3; i++) {
      double muThm45 = ShiftedInterpolationCyclicAccountant.builder().datasetSize(20).batchSize(1)
          .gradientSensitivity(1).noiseStd(1)
          .stepSize(oneMinusC[i]).strongConvexity(1).smoothness(1).epochs(50).build().muStronglyConvex().getAsDouble();
      assertThat(muThm45).isCloseTo(expected[i], within(1e-6));
    }
  }

  @Test
  void tables10To12ConstrainedPlateau() {
    // Bok, Su & Altschuler 2024; docs/accountants.md#shifted-interpolation: D = 1, σ = 3; μ* per (l, L/b, η). The E* column is a code typo and not used.
    long[] ls = {10, 20, 40};
    double[] perRecord = {0.25, 0.5, 1};
    double[] etas = {0.04, 0.02, 0.01};
    double[][][] muStar = {
        {{0.534, 0.750, 1.057}, {0.764, 1.067, 1.500}, {1.106, 1.528, 2.134}},
        {{0.382, 0.534, 0.750}, {0.553, 0.764, 1.067}, {0.816, 1.106, 1.528}},
        {{0.276, 0.382, 0.534}, {0.408, 0.553, 0.764}, {0.624, 0.816, 1.106}}};
    for (int i = 0; i < 3; i++) {
      for (int j = 0; j < 3; j++) {
        for (int k = 0; k < 3; k++) {
          ShiftedInterpolationCyclicAccountant acc = ShiftedInterpolationCyclicAccountant.builder()
              .datasetSize(4 * ls[i]).batchSize(4).gradientSensitivity(4 * perRecord[j]).noiseStd(3)
              .stepSize(etas[k]).smoothness(1).diameter(1).epochs(100_000).build();
          assertThat(acc.mu()).isCloseTo(muStar[i][j][k], within(5e-4));
        }
      }
    }
    // Fig. 9: η = 0.02, L/b = 0.5, l = 20: μ* = 0.763763, ε(1e-5) = 3.213; composition at E = 5, 10, 20
    ShiftedInterpolationCyclicAccountant.Builder fig9 = ShiftedInterpolationCyclicAccountant.builder()
        .datasetSize(20).batchSize(1).gradientSensitivity(0.5).noiseStd(3).stepSize(0.02).smoothness(1).diameter(1);
    // Thm 4.6 needs E ≥ Db/(ηL) = 100 (and K = E − τ ≤ E − 1, docs/errata.md#shifted-interpolation-plateau): the plateau holds
    // from E = 101; the figure's plateau from E = 40 uses the closed form outside that hypothesis.
    assertThat(fig9.epochs(101).build().muConstrained().getAsDouble()).isCloseTo(0.763763, within(5e-6));
    assertThat(fig9.epochs(40).build().muConstrained().getAsDouble()).isGreaterThan(0.763763);
    // at E = 40 the §3.9.1 convex bound (1/6)·√(1 + 39/20) = 0.2863 is lower still; it crosses μ* near E = 401
    assertThat(fig9.epochs(40).build().mu()).isCloseTo(Math.sqrt(1 + 39.0 / 20) / 6, within(1e-12));
    ShiftedInterpolationCyclicAccountant plateau = fig9.epochs(10_000).build();
    assertThat(plateau.mu()).isCloseTo(0.763763, within(5e-6));
    assertThat(plateau.guarantee(1e-5, Orders.DEFAULT, RdpConversion.IMPROVED).epsilon())
        .isCloseTo(3.213, within(5e-4));
    long[] es = {5, 10, 20};
    double[] composition = {0.3727, 0.5270, 0.7454};
    for (int i = 0; i < 3; i++) {
      ShiftedInterpolationCyclicAccountant acc = fig9.epochs(es[i]).build();
      assertThat(acc.muComposition()).isCloseTo(composition[i], within(5e-5));
      // the §3.9.1 convex bound is below composition here, which Fig. 9 did not use
      assertThat(acc.mu()).isLessThanOrEqualTo(acc.muComposition());
    }
  }

  @Test
  void convexUnconstrainedBoundOfDigestSection391() {
    // docs/errata.md#shifted-interpolation-convex-cyclic: s = ηL/b = 0.05, D = 1, l = 10, E = 25: 0.0922/(ησ) vs 0.15/(ησ) from Thm 4.6
    ShiftedInterpolationCyclicAccountant acc = ShiftedInterpolationCyclicAccountant.builder()
        .datasetSize(10).batchSize(1).gradientSensitivity(1).noiseStd(1).stepSize(0.05).smoothness(1).diameter(1)
        .epochs(25).build();
    assertThat(acc.muConvexUnconstrained() * 0.05).isCloseTo(0.0922, within(5e-5));
    assertThat(acc.muConstrained().getAsDouble() * 0.05).isCloseTo(0.15, within(1e-12));
    assertThat(acc.tightestBound()).isEqualTo(Bound.CONVEX_UNCONSTRAINED);
    assertThat(acc.theorem()).contains("shifted-interpolation-convex-cyclic", "not stated in the paper");
    // it is the c → 1 limit of Thm 4.5 (Bok, Su & Altschuler 2024; docs/accountants.md#shifted-interpolation value √(1 + 49/20) for l = 20, E = 50)
    assertThat(ShiftedInterpolationCyclicAccountant.builder().datasetSize(20).batchSize(1).gradientSensitivity(1)
        .noiseStd(1).stepSize(0.5).smoothness(1).epochs(50).build()
        .muConvexUnconstrained()).isCloseTo(Math.sqrt(1 + 49.0 / 20), within(1e-15));
  }

  @Test
  void neverAboveCompositionAndMonotoneInEpochs() {
    double previous = 0;
    for (long e = 1; e <= 300; e++) {
      ShiftedInterpolationCyclicAccountant acc = table9(10, 0.995, e).diameter(5).build();
      assertThat(acc.muStronglyConvex().getAsDouble()).isLessThanOrEqualTo(acc.muConvexUnconstrained() * (1 + 1e-12));
      assertThat(acc.muConvexUnconstrained()).isLessThanOrEqualTo(acc.muComposition() * (1 + 1e-12));
      assertThat(acc.mu()).isGreaterThanOrEqualTo(previous);
      previous = acc.mu();
    }
  }

  @Test
  void refusesConfigurationsOutsideTheTheorem() {
    assertThatThrownBy(() -> table9(10, 0.9, 5).smoothness(10).stepSize(0.3).build()).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("η = 0.3 violates η ≤ 2/M = 0.2");
    assertThatThrownBy(() -> table9(10, 0.9, 5).batchSize(3).build())
        .hasMessageContaining("batch size b = 3 must divide the dataset size n = 50");
    assertThatThrownBy(() -> table9(10, 0.9, 0).build()).hasMessageContaining("epochs E");
    assertThatThrownBy(() -> table9(10, 0.9, 5).noiseStd(0).build()).hasMessageContaining("σ");
  }
}
