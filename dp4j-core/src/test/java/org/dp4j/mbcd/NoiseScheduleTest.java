package org.dp4j.mbcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class NoiseScheduleTest {

  @Test
  void constantIsConstant() {
    NoiseSchedule s = NoiseSchedule.constant(0.005);
    assertThat(s.temperature(0, 0)).isEqualTo(0.005);
    assertThat(s.temperature(39, 4)).isEqualTo(0.005);
  }

  @Test
  void linearDecayIsThePapersDScheduleWithZeroBasedEpochs() {
    // digest 003 §5.5 / P14: o = 0.002 + 0.00025·(K−1−k), K = 10
    NoiseSchedule s = NoiseSchedule.linearDecay(0.002, 0.00025, 10);
    assertThat(s.temperature(0, 3)).isCloseTo(0.00425, within(1e-15));
    assertThat(s.temperature(9, 0)).isCloseTo(0.002, within(1e-15));
    assertThatThrownBy(() -> s.temperature(10, 0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("10");
  }

  @Test
  void piecewiseSwitchesAtTheGivenEpochs() {
    NoiseSchedule s = NoiseSchedule.piecewise(new int[] {0, 13}, new double[] {0.01, 0.05});
    assertThat(s.temperature(12, 24)).isEqualTo(0.01);
    assertThat(s.temperature(13, 0)).isEqualTo(0.05);
    assertThat(s.temperature(100, 0)).isEqualTo(0.05);
  }

  @Test
  void rejectsNonPositiveOrMalformedSchedules() {
    assertThatThrownBy(() -> NoiseSchedule.constant(0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("0.0");
    assertThatThrownBy(() -> NoiseSchedule.piecewise(new int[] {1}, new double[] {0.1}))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("epoch 0");
    assertThatThrownBy(() -> NoiseSchedule.piecewise(new int[] {0, 5, 5}, new double[] {1, 2, 3}))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("strictly");
  }

  @Test
  void shuffleOncePartitionIsADisjointFixedPermutationWithTheRemainderDropped() {
    ShuffleOncePartition p = ShuffleOncePartition.create(103, 10, 42);
    assertThat(p.numBatches()).isEqualTo(10);
    assertThat(p.dropped()).isEqualTo(3);
    int[] order = p.order();
    assertThat(Arrays.stream(order).distinct().count()).isEqualTo(100);
    assertThat(Arrays.stream(order).allMatch(i -> i >= 0 && i < 103)).isTrue();
    assertThat(ShuffleOncePartition.create(103, 10, 42).order()).containsExactly(order);
    assertThat(ShuffleOncePartition.create(103, 10, 43).order()).isNotEqualTo(order);
    assertThatThrownBy(() -> ShuffleOncePartition.create(5, 10, 1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("n=5");
  }
}
