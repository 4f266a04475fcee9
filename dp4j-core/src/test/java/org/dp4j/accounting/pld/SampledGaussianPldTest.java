package org.dp4j.accounting.pld;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SampledGaussianPldTest {
  /**
   * The mean-preserving discretisation keeps E[Y] = KL: KL(P‖Q) for REMOVE, KL(Q‖P) for ADD.
   * References: mpmath quad of the mixture KL integrals at 30 digits (python3, mpmath 1.3.0);
   * q = 1: KL = 1/(2z²) exactly.
   */
  @ParameterizedTest(name = "q={0} z={1} {2}")
  @CsvSource({
      "0.01, 1.0, REMOVE, 8.38122076508231181e-5",
      "0.01, 1.0, ADD, 8.18897691406344550e-5",
      "0.004266666666666667, 1.1, REMOVE, 1.16091115338258189e-5",
      "0.004266666666666667, 1.1, ADD, 1.15227368210724258e-5",
      "1.0, 2.0, REMOVE, 0.125",
      "1.0, 2.0, ADD, 0.125",
  })
  void keepsTheMeanAndTheMass(double q, double z, LossDirection direction, double kl) {
    PrivacyLossPmf p = SampledGaussianPld.pmf(q, z, direction, 1e-4, 1e-18);
    assertThat(p.finiteMass() + p.infinityMass()).isCloseTo(1, within(1e-13));
    assertThat(p.infinityMass()).isLessThan(1e-13);
    // the lowest bin is rounded up by at most Δ; its mass is tiny, so the mean moves by < 1e-12
    assertThat(p.mean()).isCloseTo(kl, within(1e-11 + 1e-9 * kl));
    assertThat(p.mean()).isGreaterThanOrEqualTo(kl - 1e-14);
  }

  @Test
  void finerGridsKeepTheSameMass() {
    PrivacyLossPmf coarse = SampledGaussianPld.pmf(0.1, 0.8, LossDirection.REMOVE, 1e-3, 1e-18);
    PrivacyLossPmf fine = SampledGaussianPld.pmf(0.1, 0.8, LossDirection.REMOVE, 1e-5, 1e-18);
    assertThat(fine.mean()).isCloseTo(coarse.mean(), within(1e-12));
    assertThat(fine.size()).isGreaterThan(90 * coarse.size());
  }

  @Test
  void rejectsBadInput() {
    assertThatThrownBy(() -> SampledGaussianPld.pmf(0, 1, LossDirection.ADD, 1e-4, 1e-18))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("sampling rate").hasMessageContaining("0");
    assertThatThrownBy(() -> SampledGaussianPld.pmf(0.1, -1, LossDirection.ADD, 1e-4, 1e-18))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("noise multiplier");
    assertThatThrownBy(() -> SampledGaussianPld.pmf(0.1, 1, LossDirection.ADD, 1e-9, 1e-18))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("too fine");
  }
}
