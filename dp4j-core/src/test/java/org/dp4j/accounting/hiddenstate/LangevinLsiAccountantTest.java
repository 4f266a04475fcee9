package org.dp4j.accounting.hiddenstate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.dp4j.accounting.Orders;
import org.dp4j.accounting.PrivacyGuarantee;
import org.dp4j.accounting.RdpConversion;
import org.dp4j.accounting.ThreatModel;
import org.junit.jupiter.api.Test;

class LangevinLsiAccountantTest {
  private static LangevinLsiAccountant.Builder caseOne(long bigK) {
    return LangevinLsiAccountant.builder().strongConvexity(0.1).smoothness(1.5).stepSize(0.5).noiseMultiplier(2)
        .iterations(bigK);
  }

  private static LangevinLsiAccountant.Builder caseTwo(long bigK) {
    return LangevinLsiAccountant.builder().strongConvexity(0.01).smoothness(1).stepSize(0.1).noiseMultiplier(5)
        .iterations(bigK);
  }

  @Test
  void digestVectors() {
    // Boninsegna's survey; docs/accountants.md#langevin-lsi, case λ = 0.1, η = 0.5, σ = 2, α = 2
    long[] ks = {1, 10, 100, 1000};
    double[] lsi = {0.493802, 4.423984, 18.358300, 20.000000};
    double[] composition = {0.25, 2.5, 25, 250};
    for (int i = 0; i < ks.length; i++) {
      LangevinLsiAccountant acc = caseOne(ks[i]).build();
      assertThat(acc.rdp(Orders.of(2)).value(0)).isCloseTo(lsi[i], within(1e-6));
      assertThat(2 * acc.rhoComposition()).isCloseTo(composition[i], within(1e-12));
    }
    assertThat(2 * caseOne(1).build().rhoLimit()).isCloseTo(20, within(1e-12));
    // case λ = 0.01, η = 0.1, σ = 5, α = 10
    double[] lsi2 = {0.399900, 3.990017, 39.016460, 314.775472};
    for (int i = 0; i < ks.length; i++) {
      assertThat(caseTwo(ks[i]).build().rdp(Orders.of(10)).value(0)).isCloseTo(lsi2[i], within(1e-6));
    }
    assertThat(10 * caseTwo(1).build().rhoLimit()).isCloseTo(800, within(1e-9));
  }

  @Test
  void monotoneBoundedAndComparedWithComposition() {
    double previous = 0;
    for (long k = 1; k <= 2000; k *= 2) {
      LangevinLsiAccountant acc = caseOne(k).build();
      assertThat(acc.rho()).isGreaterThan(previous).isLessThanOrEqualTo(acc.rhoLimit());
      previous = acc.rho();
    }
    // γ = ½ costs a factor up to 2 at small K; at large K the LSI bound wins, except in case two
    assertThat(caseOne(1).build().rho()).isGreaterThan(caseOne(1).build().rhoComposition());
    assertThat(caseOne(100).build().rho()).isLessThan(caseOne(100).build().rhoComposition());
    assertThat(caseTwo(1000).build().rho()).isGreaterThan(caseTwo(1000).build().rhoComposition());
  }

  @Test
  void guaranteeAndRefusals() {
    PrivacyGuarantee g = caseOne(100).build().guarantee(1e-5, Orders.DEFAULT, RdpConversion.IMPROVED);
    assertThat(g.threatModel()).isEqualTo(ThreatModel.LAST_ITERATE_ONLY);
    assertThat(g.summary()).contains("strongly convex", "θ₀ ~ Π_C");
    assertThatThrownBy(() -> caseOne(10).stepSize(0.7).build()).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("η = 0.7 violates η < 1/β = 0.666");
    assertThatThrownBy(() -> caseOne(10).strongConvexity(2).build()).hasMessageContaining("λ = 2.0 violates λ ≤ β = 1.5");
    assertThatThrownBy(() -> caseOne(0).build()).hasMessageContaining("K (iterations)");
  }
}
