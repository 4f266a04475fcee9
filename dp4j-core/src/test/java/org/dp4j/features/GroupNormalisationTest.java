package org.dp4j.features;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;

class GroupNormalisationTest {
  @Test
  void eachGroupOfEachExampleIsStandardisedByItsOwnStatistics() {
    // 2 examples, 4 channels of 2 values, 2 groups of 2 channels (4 values each)
    INDArray f = Nd4j.create(new double[][] {
        {1, 2, 3, 4, 10, 10, 10, 14},
        {0, 0, 0, 8, -1, 1, -1, 1}}).castTo(DataType.FLOAT);
    GroupNormalisation.of(2, 4, 2).normaliseInPlace(f);
    // group {1, 2, 3, 4}: mean 2.5, biased variance 1.25
    double s = Math.sqrt(1.25 + 1e-5);
    assertThat(f.getDouble(0, 0)).isCloseTo(-1.5 / s, within(1e-6));
    assertThat(f.getDouble(0, 3)).isCloseTo(1.5 / s, within(1e-6));
    // group {10, 10, 10, 14}: mean 11, variance 3
    assertThat(f.getDouble(0, 7)).isCloseTo(3 / Math.sqrt(3 + 1e-5), within(1e-6));
    // group {0, 0, 0, 8}: mean 2, variance 12; group {-1, 1, -1, 1}: mean 0, variance 1
    assertThat(f.getDouble(1, 0)).isCloseTo(-2 / Math.sqrt(12 + 1e-5), within(1e-6));
    assertThat(f.getDouble(1, 5)).isCloseTo(1 / Math.sqrt(1 + 1e-5), within(1e-6));
  }

  @Test
  void anExampleIsNormalisedTheSameAloneOrInABatch() {
    // more rows than one block of the implementation (2048)
    INDArray batch = Nd4j.rand(DataType.FLOAT, 2100, 9 * 4).muli(3);
    INDArray alone = batch.getRow(2099).dup().reshape(1, 9 * 4);
    GroupNormalisation gn = GroupNormalisation.of(3, 9, 4);
    gn.normaliseInPlace(batch);
    gn.normaliseInPlace(alone);
    assertThat(batch.getRow(2099).reshape(1, 9 * 4).equalsWithEps(alone, 1e-5)).isTrue();
    assertThat(alone.get(NDArrayIndex.point(0), NDArrayIndex.interval(0, 12)).meanNumber().doubleValue())
        .isCloseTo(0.0, within(1e-5));
  }

  @Test
  void refusesGroupsThatDoNotDivideTheChannels() {
    assertThatThrownBy(() -> GroupNormalisation.of(10, 81, 49)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("was 10");
  }
}
