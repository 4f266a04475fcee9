package org.dp4j.accounting.pld;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.dp4j.accounting.Orders;
import org.dp4j.accounting.RdpConversion;
import org.dp4j.accounting.SgmCalibration;
import org.dp4j.accounting.event.DpEvent;
import org.junit.jupiter.api.Test;

class PldCalibrationTest {
  private static final PldAccountant PLD = PldAccountant.withTolerance(0.01);

  @Test
  void noiseMeetsTheTargetAndIsBelowTheRdpNoise() {
    // python reference (PldAccountantTest): q = 0.01, z = 1, T = 1000 has optimal ε(1e-5) in [1.8277, 1.8288],
    // so the smallest z certified for ε ≤ 1.85 lies just below 1
    PldCalibration.Result r = PldCalibration.noiseMultiplier(PLD, 1.85, 1e-5, 0.01, 1000);
    assertThat(r.achieved().epsilon()).isLessThanOrEqualTo(1.85);
    assertThat(r.noiseMultiplier()).isBetween(0.98, 1.0);
    double slightlyLess = r.noiseMultiplier() * (1 - 2 * PldCalibration.NOISE_RELATIVE_TOLERANCE);
    assertThat(PLD.compose(DpEvent.sampledGaussian(0.01, slightlyLess).times(1000)).epsilon(1e-5).epsilon())
        .isGreaterThan(1.85);
    double rdpNoise = SgmCalibration.noiseMultiplier(1.85, 1e-5, 0.01, 1000, Orders.DEFAULT, RdpConversion.IMPROVED)
        .noiseMultiplier();
    assertThat(r.noiseMultiplier()).isLessThan(rdpNoise);
  }

  @Test
  void maxStepsFitsTheBudget() {
    PldCalibration.Result r = PldCalibration.maxSteps(PLD, 1.85, 1e-5, 0.01, 1.0);
    assertThat(r.achieved().epsilon()).isLessThanOrEqualTo(1.85);
    assertThat(r.steps()).isBetween(1000L, 1100L);
    assertThat(PLD.compose(DpEvent.sampledGaussian(0.01, 1.0).times(r.steps() + 1)).epsilon(1e-5).epsilon())
        .isGreaterThan(1.85);
    assertThat(PldCalibration.maxSteps(PLD, 0.01, 1e-5, 1.0, 0.5).steps()).isZero();
  }

  @Test
  void rejectsBadTargets() {
    assertThatThrownBy(() -> PldCalibration.noiseMultiplier(PLD, -1, 1e-5, 0.01, 10))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("target epsilon").hasMessageContaining("-1");
    assertThatThrownBy(() -> PldCalibration.noiseMultiplier(PLD, 1, 1e-5, 0.01, 0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("steps");
  }
}
