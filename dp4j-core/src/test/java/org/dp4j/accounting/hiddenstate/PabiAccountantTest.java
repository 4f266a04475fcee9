package org.dp4j.accounting.hiddenstate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.dp4j.accounting.NeighbouringRelation;
import org.dp4j.accounting.Orders;
import org.dp4j.accounting.PrivacyGuarantee;
import org.dp4j.accounting.RdpConversion;
import org.dp4j.accounting.ThreatModel;
import org.junit.jupiter.api.Test;

class PabiAccountantTest {
  /** α = 2, σ = 1 as in docs/accountants.md#pabi; batches of size 10, so n = 10·Q. */
  private static PabiAccountant.Builder config(long bigQ, long bigT) {
    return PabiAccountant.builder().datasetSize(10 * bigQ).batchSize(10).epochs(bigT).noiseMultiplier(1)
        .stepSize(0.1).smoothness(1).lipschitzConstant(1);
  }

  private static double eps2(PabiAccountant acc) {
    return acc.rdp(Orders.of(2)).value(0);
  }

  @Test
  void digestVectors() {
    // Boninsegna's survey; docs/accountants.md#pabi: corrected (α/2σ²)[(T−1)/Q + 1/(Q−κ+1)], worst κ = Q, composition T·α/(2σ²)
    PabiAccountant q10 = config(10, 5).build();
    assertThat(2 * q10.rhoAtPosition(1)).isCloseTo(0.5, within(1e-12));
    assertThat(2 * q10.rhoAtPosition(10)).isCloseTo(1.4, within(1e-12));
    assertThat(2 * q10.rhoAtPosition(4)).isCloseTo(0.542857, within(1e-6));
    assertThat(eps2(q10)).isCloseTo(1.4, within(1e-12));
    assertThat(2 * q10.rhoComposition()).isCloseTo(5, within(1e-12));

    PabiAccountant q100 = config(100, 1).build();
    assertThat(eps2(q100)).isCloseTo(1.0, within(1e-12));
    assertThat(2 * q100.rhoAtPosition(1)).isCloseTo(0.01, within(1e-12));
    assertThat(2 * q100.rhoComposition()).isCloseTo(1, within(1e-12));

    PabiAccountant q50 = config(50, 20).build();
    assertThat(2 * q50.rhoAtPosition(25)).isCloseTo(0.418462, within(1e-6));
    assertThat(eps2(q50)).isCloseTo(1.38, within(1e-12));
    assertThat(2 * q50.rhoComposition()).isCloseTo(20, within(1e-12));
  }

  @Test
  void worstPositionDominatesAndHiddenStateNeverExceedsComposition() {
    for (long t = 1; t <= 30; t++) {
      PabiAccountant acc = config(20, t).build();
      for (long kappa = 1; kappa <= 20; kappa++) {
        assertThat(acc.rhoAtPosition(kappa)).isLessThanOrEqualTo(acc.rho());
      }
      assertThat(acc.rho()).isLessThanOrEqualTo(acc.rhoComposition());
      if (t > 1) {
        assertThat(acc.rho()).isGreaterThan(config(20, t - 1).build().rho());
      }
    }
    assertThat(config(10, 5).noiseMultiplier(2).build().rho()).isLessThan(config(10, 5).build().rho());
  }

  @Test
  void guaranteeNamesItsTerms() {
    PabiAccountant acc = config(10, 5).build();
    PrivacyGuarantee g = acc.guarantee(1e-5, Orders.DEFAULT, RdpConversion.IMPROVED);
    assertThat(g.threatModel()).isEqualTo(ThreatModel.LAST_ITERATE_ONLY);
    assertThat(g.relation()).isEqualTo(NeighbouringRelation.REPLACE_ONE);
    assertThat(g.summary()).contains("β-smooth", "κ = Q", "Lipschitz");
    PrivacyGuarantee comp = acc.compositionGuarantee(1e-5, Orders.DEFAULT, RdpConversion.IMPROVED);
    assertThat(comp.threatModel()).isEqualTo(ThreatModel.ALL_ITERATES_RELEASED);
    assertThat(comp.epsilon()).isGreaterThan(g.epsilon());
  }

  @Test
  void refusesConfigurationsOutsideTheTheorem() {
    assertThatThrownBy(() -> config(10, 5).stepSize(2.5).build()).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("η = 2.5 violates η ≤ 2/β = 2.0");
    assertThatThrownBy(() -> config(10, 5).batchSize(30).build()).hasMessageContaining("B = 30 must divide n = 100");
    assertThatThrownBy(() -> PabiAccountant.builder().datasetSize(100).batchSize(10).epochs(5).noiseMultiplier(1)
        .stepSize(0.1).smoothness(1).build())
        .hasMessageContaining("L (Lipschitz constant) must be set");
    assertThatThrownBy(() -> config(10, 5).build().rhoAtPosition(11)).hasMessageContaining("κ");
  }
}
