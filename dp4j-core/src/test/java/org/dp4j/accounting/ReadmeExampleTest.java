package org.dp4j.accounting;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** The README's Java example, verbatim in substance, with the numbers it promises. */
class ReadmeExampleTest {
  @Test
  void readmeExampleDoesWhatItSays() {
    double q = 256.0 / 60000;
    long steps = SampledGaussianMechanism.stepsForEpochs(60, 60000, 256);
    SampledGaussianAccountant acc = new SampledGaussianAccountant(Orders.DEFAULT)
        .compose(new SampledGaussianMechanism(q, 1.1), steps);
    PrivacyGuarantee g = acc.guarantee(1e-5, RdpConversion.IMPROVED);
    assertThat(steps).isEqualTo(14063);
    assertThat(g.summary()).startsWith("ε = 2.5967 at δ = 1.0E-5 (optimal order α = 8.1); neighbours: ");

    double z = SgmCalibration.noiseMultiplier(3.0, 1e-5, q, steps, Orders.DEFAULT, RdpConversion.IMPROVED)
        .noiseMultiplier();
    double achieved = RdpConversion.IMPROVED.epsilon(SampledGaussianRdp.curve(q, z, Orders.DEFAULT).times(steps),
        1e-5).epsilon();
    assertThat(achieved).isLessThanOrEqualTo(3.0).isCloseTo(3.0, within(1e-4));
  }
}
