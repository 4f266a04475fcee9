package org.dp4j.accounting.hiddenstate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class NoiseTemperatureScheduleTest {

  @Test
  void decreasingIsThePapersDScheduleWithZeroBasedEpochs() {
    // Chen & Liu 2025; docs/accountants.md#dp-mbcd; docs/threat-models.md#data-independent-choices: o = 0.002 + 0.00025·(K−1−k), K = 10
    NoiseTemperatureSchedule s = NoiseTemperatureSchedule.decreasingTo(0.002, 0.00025, 10);
    assertThat(s.temperature(0, 3)).isCloseTo(0.00425, within(1e-15));
    assertThat(s.temperature(9, 0)).isCloseTo(0.002, within(1e-15));
  }

  @Test
  void piecewiseSwitchesAtTheGivenEpochs() {
    NoiseTemperatureSchedule s = NoiseTemperatureSchedule.piecewiseByEpoch(new int[] {0, 13}, new double[] {0.01, 0.05});
    assertThat(s.temperature(12, 24)).isEqualTo(0.01);
    assertThat(s.temperature(13, 0)).isEqualTo(0.05);
    assertThat(s.temperature(100, 0)).isEqualTo(0.05);
  }

  @Test
  void rejectsNonPositiveOrMalformedSchedules() {
    assertThatThrownBy(() -> NoiseTemperatureSchedule.constant(0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("0.0");
    assertThatThrownBy(() -> NoiseTemperatureSchedule.piecewiseByEpoch(new int[] {1}, new double[] {0.1}))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("epoch 0");
    assertThatThrownBy(() -> NoiseTemperatureSchedule.piecewiseByEpoch(new int[] {0, 5, 5}, new double[] {1, 2, 3}))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("strictly");
  }

  @Test
  void describeIdentifiesTheScheduleOnTheRunsSteps() {
    assertThat(NoiseTemperatureSchedule.describe(NoiseTemperatureSchedule.constant(0.001), 3, 5))
        .isEqualTo("constant o=0.001");
    assertThat(NoiseTemperatureSchedule.describe(NoiseTemperatureSchedule.linearInEpoch(0.02, -0.005), 3, 2))
        .isEqualTo("o by epoch [0.02, 0.015, 0.01]");
    String a = NoiseTemperatureSchedule.describe((k, j) -> 0.01 + 0.001 * j, 2, 3);
    String b = NoiseTemperatureSchedule.describe((k, j) -> 0.01 + 0.002 * j, 2, 3);
    assertThat(a).contains("varying within epochs", "3 values").isNotEqualTo(b);
  }
}
