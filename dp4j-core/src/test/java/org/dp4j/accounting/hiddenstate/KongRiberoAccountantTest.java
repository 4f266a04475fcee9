package org.dp4j.accounting.hiddenstate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.dp4j.accounting.NeighbouringRelation;
import org.dp4j.accounting.Orders;
import org.dp4j.accounting.PrivacyGuarantee;
import org.dp4j.accounting.RdpConversion;
import org.dp4j.accounting.ThreatModel;
import org.dp4j.accounting.hiddenstate.KongRiberoAccountant.Bound;
import org.dp4j.accounting.hiddenstate.KongRiberoAccountant.Gradients;
import org.dp4j.accounting.hiddenstate.KongRiberoAccountant.LipschitzVariant;
import org.junit.jupiter.api.Test;

class KongRiberoAccountantTest {
  private static final double TOL = 1e-12;

  /** Kong &amp; Ribero 2025; docs/accountants.md#kong-ribero Set B: α = 2, λ = 0.1, C = 1, σ = 0.5, b = 2, k = 10 (ℓ = 5), m = M = 1. */
  private static KongRiberoAccountant.Builder setB(long bigT, LipschitzVariant variant) {
    return KongRiberoAccountant.builder().datasetSize(10).batchSize(2).iterations(bigT).stepSize(0.1).clipNorm(1)
        .noiseStd(0.5).weakConvexity(1).smoothness(1)
        .lipschitzVariant(variant);
  }

  private static double eps2(KongRiberoAccountant.Builder builder) {
    return builder.build().rdp(Orders.of(2)).value(0);
  }

  @Test
  void setBPrintedEq13MatchesDigest() {
    LipschitzVariant v = LipschitzVariant.PRINTED_EQ13;
    long[] ts = {5, 6, 23};
    double[] eq19 = {0.103798191337458, 0.127596382674917, 0.198990956687292};
    double[] eq17 = {0.128496605237633, 0.176993210475267, 0.322483026188167};
    double[] refined = {0.04, 0.0518990956687292, 0.0875963826749167};
    double[] composition = {0.04, 0.08, 0.2};
    for (int i = 0; i < ts.length; i++) {
      assertThat(eps2(setB(ts[i], v).gradients(Gradients.UNCLIPPED_BOUNDED))).isCloseTo(eq19[i], within(TOL));
      assertThat(eps2(setB(ts[i], v))).isCloseTo(eq17[i], within(TOL));
      KongRiberoAccountant unclippedRefined =
          setB(ts[i], v).gradients(Gradients.UNCLIPPED_BOUNDED).refinedWorstCase(true).build();
      assertThat(2 * unclippedRefined.rho()).isCloseTo(refined[i], within(TOL));
      assertThat(unclippedRefined.tightestBound()).isEqualTo(Bound.REFINED_WORST_CASE);
      assertThat(2 * setB(ts[i], v).build().rhoComposition()).isCloseTo(composition[i], within(TOL));
    }
  }

  @Test
  void setBConservativeDefaultMatchesDigest() {
    LipschitzVariant v = LipschitzVariant.CONSERVATIVE;
    long[] ts = {5, 6, 23};
    double[] eq19 = {0.105266556822329, 0.130533113644657, 0.206332784111643};
    double[] eq17 = {0.129648638664957, 0.179297277329915, 0.328243193324787};
    double[] refined = {0.04, 0.0526332784111643, 0.0905331136446573};
    for (int i = 0; i < ts.length; i++) {
      assertThat(eps2(setB(ts[i], v).gradients(Gradients.UNCLIPPED_BOUNDED))).isCloseTo(eq19[i], within(TOL));
      assertThat(eps2(setB(ts[i], v))).isCloseTo(eq17[i], within(TOL));
      assertThat(2 * setB(ts[i], v).gradients(Gradients.UNCLIPPED_BOUNDED).build().rhoRefinedWorstCase())
          .isCloseTo(refined[i], within(TOL));
    }
    // the default variant is the conservative one
    assertThat(KongRiberoAccountant.builder().datasetSize(10).batchSize(2).iterations(23).stepSize(0.1)
        .clipNorm(1).noiseStd(0.5).weakConvexity(1).smoothness(1).build()
        .rdp(Orders.of(2)).value(0)).isCloseTo(0.328243193324787, within(TOL));
  }

  @Test
  void setBBoundedDomainTheorem22() {
    // Kong & Ribero 2025; docs/accountants.md#kong-ribero, d_h = 2: "(16) as stated" uses L_λ, "√2-safe" uses √2·L_λ (erratum E3)
    double[][] expected = {{21.8288543819998, 42.5698221281347}, {22.6642806801586, 44.2199224794555}};
    LipschitzVariant[] variants = {LipschitzVariant.PRINTED_EQ13, LipschitzVariant.CONSERVATIVE};
    for (int i = 0; i < 2; i++) {
      double asStated = 2 * setB(5, variants[i]).domainDiameter(2).theorem22AsPrinted(true).build()
          .rhoBoundedDomain().getAsDouble();
      double unclipped = 2 * setB(5, variants[i]).domainDiameter(2).gradients(Gradients.UNCLIPPED_BOUNDED).build()
          .rhoBoundedDomain().getAsDouble();
      double safe = 2 * setB(5, variants[i]).domainDiameter(2).build().rhoBoundedDomain().getAsDouble();
      assertThat(asStated).isCloseTo(expected[i][0], within(1e-10));
      assertThat(unclipped).isCloseTo(expected[i][0], within(1e-10));
      assertThat(safe).isCloseTo(expected[i][1], within(1e-10));
    }
    assertThat(setB(5, LipschitzVariant.CONSERVATIVE).build().rhoBoundedDomain()).isEmpty();
  }

  @Test
  void setAFigureOneParameters() {
    // Kong & Ribero 2025; docs/accountants.md#kong-ribero Set A: λ = 1e-5, C = 10, σ = 1e-5, b = 10, k = 1e4 (ℓ = 1000, r = 1); values ε/α
    long[] ts = {1, 1000, 1001, 10_000, 50_000, 100_000};
    double[] eq19 = {4.9230769, 4.9230769, 5.8461538, 13.230769, 50.153846, 96.307692};
    double[] eq17 = {6.4615385, 6.4615385, 8.9230769, 28.615385, 127.07692, 250.15385};
    for (int i = 0; i < ts.length; i++) {
      KongRiberoAccountant.Builder b = setA(ts[i], 1e4, 1e4);
      assertThat(b.build().rho()).isCloseTo(eq17[i], within(1e-6 * eq17[i]));
      assertThat(b.gradients(Gradients.UNCLIPPED_BOUNDED).build().rho()).isCloseTo(eq19[i], within(1e-6 * eq19[i]));
    }
    // (m, M) = (2.5e4, 0), conservative: L_λ = √2, θ = 1/2; (m, M) = (0, 1): L = 1, θ = 1/ℓ
    assertThat(setA(100_000, 2.5e4, 0).build().rho()).isCloseTo(304, within(1e-9));
    assertThat(setA(100_000, 2.5e4, 0).gradients(Gradients.UNCLIPPED_BOUNDED).build().rho())
        .isCloseTo(204, within(1e-9));
    assertThat(setA(100_000, 0, 1).gradients(Gradients.UNCLIPPED_BOUNDED).build().rho())
        .isCloseTo(4.4, within(1e-12));
    assertThat(setA(100_000, 0, 1).build().lipschitzFactor()).isEqualTo(1);
  }

  private static KongRiberoAccountant.Builder setA(long bigT, double m, double bigM) {
    return KongRiberoAccountant.builder().datasetSize(10_000).batchSize(10).iterations(bigT).stepSize(1e-5)
        .clipNorm(10).noiseStd(1e-5).weakConvexity(m).smoothness(bigM);
  }

  @Test
  void thetaExactValues() {
    // Kong & Ribero 2025; docs/accountants.md#kong-ribero: θ_{√2}(ℓ) for ℓ = 1, 2, 3, 5, 10 and θ_2(3) = 16/21, θ_1(ℓ) = 1/ℓ; θ(0) = 0
    assertThat(KongRiberoAccountant.theta(1, 1)).isCloseTo(1, within(1e-15));
    assertThat(KongRiberoAccountant.theta(1, 2)).isCloseTo(2.0 / 3, within(1e-15));
    assertThat(KongRiberoAccountant.theta(1, 3)).isCloseTo(4.0 / 7, within(1e-15));
    assertThat(KongRiberoAccountant.theta(1, 5)).isCloseTo(16.0 / 31, within(1e-15));
    assertThat(KongRiberoAccountant.theta(1, 10)).isCloseTo(512.0 / 1023, within(1e-15));
    assertThat(KongRiberoAccountant.theta(3, 3)).isCloseTo(16.0 / 21, within(1e-15));
    assertThat(KongRiberoAccountant.theta(0, 7)).isEqualTo(1.0 / 7);
    assertThat(KongRiberoAccountant.theta(0.5, 0)).isZero();
    // no overflow for huge s: limit 1 − L^{-2}
    assertThat(KongRiberoAccountant.theta(1, 1_000_000_000L)).isCloseTo(0.5, within(1e-15));
  }

  @Test
  void corollaryC2CorrectedSigmaAchievesEpsilon() {
    // docs/accountants.md#kong-ribero; Kong & Ribero 2025, Cor. C.2 check: α = 2, ε = 1, m = 1, M = 3, C = 1, b = 10, E = 5
    KongRiberoCorollaryC2 c2 = new KongRiberoCorollaryC2(2, 1, 1, 3, 1, 10, 5);
    assertThat(c2.lambdaBar()).isEqualTo(0.125);
    assertThat(c2.ellBar()).isCloseTo(5.88494919236, within(1e-10));
    assertThat(c2.minBatchesPerEpoch()).isEqualTo(6);
    assertThat(c2.sigmaBar()).isCloseTo(0.0866025403784, within(1e-12));
    assertThat(c2.sigmaBarAsPrinted()).isCloseTo(0.0108253175473, within(1e-12));
    // ℓ = 6, k = 60, T = 30: Thm (19) gives 0.4030 (13) / 0.4133 (cons) at σ̄, 25.79 / 26.45 at the printed σ̄
    double[][] expected = {{0.4030, 25.79}, {0.4133, 26.45}};
    LipschitzVariant[] variants = {LipschitzVariant.PRINTED_EQ13, LipschitzVariant.CONSERVATIVE};
    double[] sigmas = {c2.sigmaBar(), c2.sigmaBarAsPrinted()};
    for (int v = 0; v < 2; v++) {
      for (int s = 0; s < 2; s++) {
        double eps = KongRiberoAccountant.builder().datasetSize(60).batchSize(10).iterations(30)
            .stepSize(c2.lambdaBar()).clipNorm(1).noiseStd(sigmas[s])
            .weakConvexity(1).smoothness(3).gradients(Gradients.UNCLIPPED_BOUNDED).lipschitzVariant(variants[v]).build()
            .rdp(Orders.of(2)).value(0);
        assertThat(eps).isCloseTo(expected[v][s], within(expected[v][s] * 2e-4));
      }
    }
    assertThatThrownBy(() -> new KongRiberoCorollaryC2(2, 1, 0, 3, 1, 10, 5)).hasMessageContaining("m = 0");
  }

  @Test
  void guaranteeConvertsTheLinearCurve() {
    // Kong & Ribero 2025; docs/accountants.md#kong-ribero conversion check: ρ = 4.4, δ = 1e-5 → ε = 18.63472824 at α* = 2.617582755 (Mironov)
    KongRiberoAccountant acc = setA(100_000, 0, 1).gradients(Gradients.UNCLIPPED_BOUNDED).build();
    PrivacyGuarantee g = acc.guarantee(1e-5, Orders.of(2.617582755), RdpConversion.CLASSIC);
    assertThat(g.epsilon()).isCloseTo(18.63472824, within(1e-7));
    assertThat(g.threatModel()).isEqualTo(ThreatModel.LAST_ITERATE_ONLY);
    assertThat(g.relation()).isEqualTo(NeighbouringRelation.REPLACE_ONE);
    assertThat(g.theorem()).contains("Thm 2.3", "(19)");
    assertThat(g.summary()).contains("(18)", "M = 1.0", "only the last iterate");
    PrivacyGuarantee comp = acc.compositionGuarantee(1e-5, Orders.DEFAULT, RdpConversion.IMPROVED);
    assertThat(comp.threatModel()).isEqualTo(ThreatModel.ALL_ITERATES_RELEASED);
  }

  @Test
  void monotoneInIterationsNoiseAndCurvature() {
    double previous = 0;
    for (long t = 1; t <= 60; t++) {
      double rho = setB(t, LipschitzVariant.CONSERVATIVE).build().rho();
      assertThat(rho).isGreaterThanOrEqualTo(previous);
      previous = rho;
    }
    assertThat(setB(23, LipschitzVariant.CONSERVATIVE).noiseStd(1).build().rho())
        .isLessThan(setB(23, LipschitzVariant.CONSERVATIVE).build().rho());
    assertThat(setB(23, LipschitzVariant.CONSERVATIVE).weakConvexity(2).build().rho())
        .isGreaterThan(setB(23, LipschitzVariant.CONSERVATIVE).weakConvexity(0.5).build().rho());
    // Thm 2.2 does not depend on T
    assertThat(setB(5, LipschitzVariant.CONSERVATIVE).domainDiameter(2).build().rhoBoundedDomain())
        .isEqualTo(setB(500, LipschitzVariant.CONSERVATIVE).domainDiameter(2).build().rhoBoundedDomain());
  }

  @Test
  void orderingAgainstComposition() {
    // Kong & Ribero 2025; docs/errata.md#kong-ribero-theorem-2-3: refined ≤ swap composition ≤ (17) (θ_{√2L} ≥ ½), for every T
    for (long t = 1; t <= 40; t++) {
      for (Gradients g : Gradients.values()) {
        KongRiberoAccountant acc = setB(t, LipschitzVariant.CONSERVATIVE).gradients(g).build();
        assertThat(acc.rhoRefinedWorstCase()).isLessThanOrEqualTo(acc.rhoComposition() * (1 + 1e-15));
      }
      KongRiberoAccountant clipped = setB(t, LipschitzVariant.CONSERVATIVE).build();
      assertThat(clipped.rhoCyclic()).isGreaterThan(clipped.rhoComposition());
    }
    // convex, unclipped: (19) beats composition for E > 4/(2 − 4/ℓ) = 3.33 at ℓ = 5 (Kong & Ribero 2025; docs/accountants.md#kong-ribero)
    KongRiberoAccountant convex = setB(25, LipschitzVariant.CONSERVATIVE).weakConvexity(0)
        .gradients(Gradients.UNCLIPPED_BOUNDED).build();
    assertThat(convex.rhoCyclic()).isLessThan(convex.rhoComposition());
    KongRiberoAccountant early = setB(15, LipschitzVariant.CONSERVATIVE).weakConvexity(0)
        .gradients(Gradients.UNCLIPPED_BOUNDED).build();
    assertThat(early.rhoCyclic()).isGreaterThan(early.rhoComposition());
  }

  @Test
  void refusesConfigurationsOutsideTheTheorem() {
    assertThatThrownBy(() -> setB(5, LipschitzVariant.CONSERVATIVE).stepSize(0.3).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("λ = 0.3 violates λ ≤ 1/(2(m+M)) = 0.25");
    assertThatThrownBy(() -> setB(5, LipschitzVariant.CONSERVATIVE).stepSize(0.6)
        .gradients(Gradients.UNCLIPPED_BOUNDED).build())
        .hasMessageContaining("λ = 0.6 violates λ ≤ 1/(m+M) = 0.5");
    assertThatThrownBy(() -> setB(5, LipschitzVariant.CONSERVATIVE).batchSize(3).build())
        .hasMessageContaining("b = 3 must divide k = 10");
    assertThatThrownBy(() -> KongRiberoAccountant.builder().datasetSize(10).batchSize(2).iterations(5)
        .stepSize(0.1).clipNorm(1).noiseStd(0.5).weakConvexity(1).build())
        .hasMessageContaining("M (smoothness) must be set");
    assertThatThrownBy(() -> setB(0, LipschitzVariant.CONSERVATIVE).build()).hasMessageContaining("T");
    // the stepsize check survives m = M = 0 (no 0/0)
    assertThat(setB(5, LipschitzVariant.CONSERVATIVE).weakConvexity(0).smoothness(0).stepSize(10).build().lipschitzFactor()).isEqualTo(1);
  }
}
