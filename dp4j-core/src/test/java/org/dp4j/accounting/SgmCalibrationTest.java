package org.dp4j.accounting;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.dp4j.accounting.SgmCalibration.Calibration;
import org.junit.jupiter.api.Test;

class SgmCalibrationTest {
  private static final double Q = 256.0 / 60000;

  @Test
  void recoversTheNoiseOfAKnownSetting() {
    // docs/accountants.md#sampled-gaussian-rdp: z = 1.1, T = 14063 gives ε ≈ 2.5967 (improved). Calibrating to that ε returns z ≈ 1.1.
    Calibration c = SgmCalibration.noiseMultiplier(2.5967, 1e-5, Q, 14063, Orders.DEFAULT, RdpConversion.IMPROVED);
    assertThat(c.noiseMultiplier()).isCloseTo(1.1, within(1e-3));
    assertThat(c.achieved().epsilon()).isLessThanOrEqualTo(2.5967);
  }

  @Test
  void neverOvershootsTheTargetAndIsTight() {
    for (double target : new double[] {0.5, 1, 3, 8}) {
      Calibration c = SgmCalibration.noiseMultiplier(target, 1e-5, 0.01, 5000, Orders.DEFAULT,
          RdpConversion.IMPROVED);
      assertThat(c.achieved().epsilon()).isLessThanOrEqualTo(target);
      double slightlyLess = c.noiseMultiplier() * (1 - 2 * SgmCalibration.NOISE_RELATIVE_TOLERANCE);
      double epsLess = RdpConversion.IMPROVED.epsilon(
          SampledGaussianRdp.curve(0.01, slightlyLess, Orders.DEFAULT).times(5000), 1e-5).epsilon();
      assertThat(epsLess).isGreaterThan(target);
    }
  }

  @Test
  void maxStepsIsTheLastStepWithinBudget() {
    Calibration c = SgmCalibration.maxSteps(2.5967, 1e-5, Q, 1.1, Orders.DEFAULT, RdpConversion.IMPROVED);
    // ε(14063 steps) ≈ 2.59666 < 2.5967, so T is at least 14063 and only slightly more.
    assertThat(c.steps()).isBetween(14063L, 14100L);
    assertThat(c.achieved().epsilon()).isLessThanOrEqualTo(2.5967);
    RdpCurve next = SampledGaussianRdp.curve(Q, 1.1, Orders.DEFAULT).times(c.steps() + 1);
    assertThat(RdpConversion.IMPROVED.epsilon(next, 1e-5).epsilon()).isGreaterThan(2.5967);
  }

  @Test
  void zeroStepsWhenOneStepAlreadyExceeds() {
    assertThat(SgmCalibration.maxSteps(0.01, 1e-5, 1, 0.5, Orders.DEFAULT, RdpConversion.IMPROVED).steps())
        .isZero();
  }

  @Test
  void rejectsBadTargets() {
    assertThatThrownBy(() -> SgmCalibration.noiseMultiplier(-1, 1e-5, 0.1, 10, Orders.DEFAULT,
        RdpConversion.IMPROVED)).hasMessageContaining("-1.0");
    assertThatThrownBy(() -> SgmCalibration.noiseMultiplier(1, 2, 0.1, 10, Orders.DEFAULT,
        RdpConversion.IMPROVED)).hasMessageContaining("delta");
  }
}
