package org.dp4j.accounting.hiddenstate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.dp4j.accounting.GaussianDp;
import org.dp4j.accounting.NeighbouringRelation;
import org.dp4j.accounting.Orders;
import org.dp4j.accounting.PrivacyGuarantee;
import org.dp4j.accounting.RdpConversion;
import org.dp4j.accounting.ThreatModel;
import org.dp4j.accounting.hiddenstate.ShiftedInterpolationNoisyGdAccountant.Bound;
import org.junit.jupiter.api.Test;

class ShiftedInterpolationNoisyGdAccountantTest {
  /** L/(nσ) = 0.1 and c = 1 − η (m = M = 1, η ≤ 2/(M+m)), as in docs/accountants.md#shifted-interpolation; Bok, Su &amp; Altschuler 2024, Table 7. */
  private static ShiftedInterpolationNoisyGdAccountant.Builder table7(double c, long t) {
    return ShiftedInterpolationNoisyGdAccountant.builder().datasetSize(10).gradientSensitivity(1).noiseStd(1)
        .stepSize(1 - c).strongConvexity(1).smoothness(1).iterations(t);
  }

  @Test
  void table7StronglyConvex() {
    // docs/accountants.md#shifted-interpolation; Bok, Su & Altschuler 2024, Table 7 (3 decimals): rows t = 10, 100, 1000
    double[] cs = {0.92, 0.96, 0.98, 0.99, 0.995};
    long[] ts = {10, 100, 1000};
    double[][] expected = {
        {0.308, 0.314, 0.316, 0.316, 0.316},
        {0.490, 0.688, 0.871, 0.961, 0.990},
        {0.490, 0.700, 0.995, 1.411, 1.984}};
    double[] composition = {0.316, 1.000, 3.162};
    for (int i = 0; i < ts.length; i++) {
      for (int j = 0; j < cs.length; j++) {
        ShiftedInterpolationNoisyGdAccountant acc = table7(cs[j], ts[i]).build();
        assertThat(acc.contractionFactor()).isCloseTo(cs[j], within(1e-12));
        assertThat(acc.muStronglyConvex().getAsDouble()).isCloseTo(expected[i][j], within(5e-4));
        assertThat(acc.mu()).isCloseTo(expected[i][j], within(5e-4));
        assertThat(acc.muComposition()).isCloseTo(composition[i], within(5e-4));
      }
    }
  }

  @Test
  void figure6ExactGaussianDpConversion() {
    // docs/accountants.md#shifted-interpolation; Bok, Su & Altschuler 2024, Fig. 6 [computed]: c = 0.99, L/(nσ) = 0.1; μ and ε(δ = 1e-5)
    long[] ts = {10, 20, 40, 80, 160, 320, 640};
    double[] mu = {0.3161, 0.4465, 0.6283, 0.8715, 1.1515, 1.3552, 1.4084};
    double[] eps = {1.199, 1.757, 2.575, 3.736, 5.158, 6.248, 6.541};
    for (int i = 0; i < ts.length; i++) {
      ShiftedInterpolationNoisyGdAccountant acc = table7(0.99, ts[i]).build();
      assertThat(acc.mu()).isCloseTo(mu[i], within(5e-5));
      PrivacyGuarantee g = acc.guarantee(1e-5, Orders.DEFAULT, RdpConversion.IMPROVED);
      assertThat(g.epsilon()).isCloseTo(eps[i], within(5e-4));
    }
  }

  @Test
  void figure1GenuineStepsizeAndCurvature() {
    // docs/accountants.md#shifted-interpolation; Bok, Su & Altschuler 2024, Fig. 1: m = 1, M = 10, η = 0.05 ⇒ c = 0.95; L/(nσ) = 0.1; δ = 1e-5
    long[] ts = {10, 20, 40, 80, 160};
    double[] mu = {0.3129, 0.4291, 0.5488, 0.6143, 0.6243};
    double[] eps = {1.185, 1.681, 2.212, 2.510, 2.557};
    double[] muComp = {0.3162, 0.4472, 0.6325, 0.8944, 1.2649};
    for (int i = 0; i < ts.length; i++) {
      ShiftedInterpolationNoisyGdAccountant acc = ShiftedInterpolationNoisyGdAccountant.builder()
          .datasetSize(10).gradientSensitivity(1).noiseStd(1).stepSize(0.05).strongConvexity(1).smoothness(10)
          .iterations(ts[i]).build();
      assertThat(acc.contractionFactor()).isCloseTo(0.95, within(1e-12));
      assertThat(acc.mu()).isCloseTo(mu[i], within(5e-5));
      assertThat(acc.muComposition()).isCloseTo(muComp[i], within(5e-5));
      PrivacyGuarantee g = acc.guarantee(1e-5, Orders.DEFAULT, RdpConversion.IMPROVED);
      assertThat(g.epsilon()).isCloseTo(eps[i], within(5e-4));
      // the RDP route (αμ²/2) is lossier than the exact conversion (docs/errata.md#shifted-interpolation-gdp-conversion)
      double viaRdp = RdpConversion.IMPROVED.epsilon(acc.rdp(Orders.DEFAULT), 1e-5).epsilon();
      assertThat(viaRdp).isGreaterThan(g.epsilon());
    }
  }

  @Test
  void table8AndFigure7Constrained() {
    // docs/accountants.md#shifted-interpolation; Bok, Su & Altschuler 2024, Table 8: D = 1, σ = 8, rows L/n, columns η: plateau μ*
    double[] perRecord = {0.25, 0.5, 1};
    double[] etas = {0.2, 0.1, 0.05};
    double[][] muStar = {{0.280, 0.395, 0.559}, {0.395, 0.559, 0.791}, {0.559, 0.791, 1.118}};
    for (int i = 0; i < 3; i++) {
      for (int j = 0; j < 3; j++) {
        ShiftedInterpolationNoisyGdAccountant acc = ShiftedInterpolationNoisyGdAccountant.builder()
            .datasetSize(4).gradientSensitivity(4 * perRecord[i]).noiseStd(8).stepSize(etas[j]).smoothness(1)
            .diameter(1).iterations(100_000).build();
        assertThat(acc.mu()).isCloseTo(muStar[i][j], within(5e-4));
        assertThat(acc.tightestBound()).isEqualTo(Bound.CONSTRAINED_THM_4_3);
      }
    }
    // Fig. 7: L/n = 0.5, η = 0.1: composition below t* = 80, μ* = 0.559017 (ε = 2.258 at 1e-5) after
    long[] ts = {10, 20, 40, 80, 1000};
    double[] mu = {0.1976, 0.2795, 0.3953, 0.559017, 0.559017};
    for (int i = 0; i < ts.length; i++) {
      ShiftedInterpolationNoisyGdAccountant acc = ShiftedInterpolationNoisyGdAccountant.builder()
          .datasetSize(2).gradientSensitivity(1).noiseStd(8).stepSize(0.1).smoothness(1).diameter(1)
          .iterations(ts[i]).build();
      assertThat(acc.mu()).isCloseTo(mu[i], within(5e-5));
    }
    ShiftedInterpolationNoisyGdAccountant plateau = ShiftedInterpolationNoisyGdAccountant.builder()
        .datasetSize(2).gradientSensitivity(1).noiseStd(8).stepSize(0.1).smoothness(1).diameter(1).iterations(500)
        .build();
    assertThat(plateau.guarantee(1e-5, Orders.DEFAULT, RdpConversion.IMPROVED).epsilon())
        .isCloseTo(2.258, within(5e-4));
    assertThat(plateau.guarantee(1e-3, Orders.DEFAULT, RdpConversion.IMPROVED).epsilon())
        .isCloseTo(1.546, within(5e-4));
  }

  @Test
  void section47GoldenValues() {
    // Bok, Su & Altschuler 2024; docs/accountants.md#shifted-interpolation: ε(μ, δ = 1e-5) for μ = 0.5, 1, 2 (mpmath, 40 digits), here μ = L/(nσ) after one step
    double[] sigmas = {2, 1, 0.5};
    double[] eps = {1.9930914044, 4.3771780957, 9.9972561464};
    for (int i = 0; i < 3; i++) {
      ShiftedInterpolationNoisyGdAccountant acc = ShiftedInterpolationNoisyGdAccountant.builder()
          .datasetSize(1).gradientSensitivity(1).noiseStd(sigmas[i]).stepSize(1).smoothness(1).iterations(1).build();
      assertThat(acc.guarantee(1e-5, Orders.DEFAULT, RdpConversion.IMPROVED).epsilon()).isCloseTo(eps[i], within(1e-9));
    }
    // Prop 5.1 (LMC = noisy GD with n = 1, σ = √(2/η)): L = 1, m = 1, η = 0.1 ⇒ μ = 0.974679 as t → ∞
    ShiftedInterpolationNoisyGdAccountant lmc = ShiftedInterpolationNoisyGdAccountant.builder()
        .datasetSize(1).gradientSensitivity(1).noiseStd(Math.sqrt(2 / 0.1)).stepSize(0.1).strongConvexity(1)
        .smoothness(1).iterations(100_000).build();
    assertThat(lmc.mu()).isCloseTo(0.974679, within(5e-7));
  }

  @Test
  void neverAboveCompositionAndMonotoneInT() {
    double previous = 0;
    for (long t = 1; t <= 400; t++) {
      ShiftedInterpolationNoisyGdAccountant acc = table7(0.97, t).diameter(3).build();
      assertThat(acc.muStronglyConvex().getAsDouble()).isLessThanOrEqualTo(acc.muComposition() * (1 + 1e-12));
      assertThat(acc.mu()).isGreaterThanOrEqualTo(previous);
      previous = acc.mu();
    }
    assertThat(table7(0.97, 50).noiseStd(2).build().mu()).isLessThan(table7(0.97, 50).build().mu());
  }

  @Test
  void guaranteeNamesItsTerms() {
    ShiftedInterpolationNoisyGdAccountant acc = table7(0.99, 160).build();
    PrivacyGuarantee g = acc.guarantee(1e-5, Orders.DEFAULT, RdpConversion.IMPROVED);
    assertThat(g.epsilon()).isEqualTo(GaussianDp.epsilon(1e-5, acc.mu()));
    assertThat(g.threatModel()).isEqualTo(ThreatModel.LAST_ITERATE_ONLY);
    assertThat(g.relation()).isEqualTo(NeighbouringRelation.REPLACE_ONE);
    assertThat(g.theorem()).contains("Thm 4.2", "exact μ-GDP");
    assertThat(g.summary()).contains("strongly convex", "L = 1.0");
    assertThat(acc.rdp(Orders.of(2)).value(0)).isCloseTo(acc.mu() * acc.mu(), within(1e-15));
  }

  @Test
  void refusesConfigurationsOutsideTheTheorem() {
    assertThatThrownBy(() -> ShiftedInterpolationNoisyGdAccountant.builder().datasetSize(10)
        .gradientSensitivity(1).noiseStd(1).stepSize(0.6).strongConvexity(1).smoothness(5)
        .iterations(10).build()).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("η = 0.6 violates η ≤ 2/M = 0.4");
    assertThatThrownBy(() -> table7(0.9, 10).strongConvexity(2).build()).hasMessageContaining("m (strong convexity)");
    assertThatThrownBy(() -> table7(0.9, 10).smoothness(Double.NaN).build()).hasMessageContaining("M (smoothness)");
    assertThatThrownBy(() -> table7(0.9, 0).build()).hasMessageContaining("iterations t");
    // m > 0 but η = 2/M: c = 1, no strongly convex bound, composition only
    ShiftedInterpolationNoisyGdAccountant edge = ShiftedInterpolationNoisyGdAccountant.builder().datasetSize(10)
        .gradientSensitivity(1)
        .noiseStd(1).stepSize(2).strongConvexity(0.5).smoothness(1).iterations(10).build();
    assertThat(edge.muStronglyConvex()).isEmpty();
    assertThat(edge.tightestBound()).isEqualTo(Bound.COMPOSITION_THM_4_1);
  }
}
