package org.dp4j.accounting;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.assertj.core.api.Assertions.withinPercentage;

import org.junit.jupiter.api.Test;

class SampledGaussianAccountantTest {
  @Test
  void heterogeneousPhasesComposeAndSplittingStepsChangesNothing() {
    SampledGaussianMechanism a = new SampledGaussianMechanism(0.01, 1.0);
    SampledGaussianMechanism b = new SampledGaussianMechanism(0.02, 2.0);
    SampledGaussianAccountant whole = new SampledGaussianAccountant(Orders.DEFAULT).compose(a, 1000).compose(b, 500);
    SampledGaussianAccountant split = new SampledGaussianAccountant(Orders.DEFAULT);
    for (int i = 0; i < 10; i++) {
      split.compose(a, 100);
    }
    split.compose(b, 250).compose(b, 250);
    assertThat(split.steps()).isEqualTo(1500);
    for (int i = 0; i < Orders.DEFAULT.size(); i++) {
      assertThat(split.curve().value(i)).isCloseTo(whole.curve().value(i), withinPercentage(1e-10));
    }
    double onlyA = new SampledGaussianAccountant(Orders.DEFAULT).compose(a, 1000)
        .guarantee(1e-5, RdpConversion.IMPROVED).epsilon();
    assertThat(whole.guarantee(1e-5, RdpConversion.IMPROVED).epsilon()).isGreaterThan(onlyA);
  }

  @Test
  void guaranteeNamesItsTermsAndMatchesTheAnchor() {
    PrivacyGuarantee g = new SampledGaussianAccountant(Orders.DEFAULT)
        .compose(new SampledGaussianMechanism(256.0 / 60000, 1.1), 14063)
        .guarantee(1e-5, RdpConversion.IMPROVED);
    assertThat(g.epsilon()).isCloseTo(2.5967, within(1e-4));
    assertThat(g.relation()).isEqualTo(NeighbouringRelation.ADD_REMOVE);
    assertThat(g.threatModel()).isEqualTo(ThreatModel.ALL_ITERATES_RELEASED);
    assertThat(g.summary()).contains("δ = 1.0E-5", "add/remove", "all iterates released", "Poisson");
  }
}
