package org.dp4j.training;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;

class FeatureClippedDataTest {
  @Test
  void longRowsAreScaledToLShortRowsKept() {
    INDArray x = Nd4j.create(new float[][] {{3, 4}, {0.3f, 0.4f}, {0, 0}});
    INDArray y = Nd4j.create(new float[][] {{1, 0}, {0, 1}, {1, 0}});
    FeatureClippedData data = FeatureClippedData.of(IndexedData.of(new DataSet(x, y)), 1.0);
    DataSet d = data.rows(new int[] {0, 1, 2});
    INDArray norms = d.getFeatures().norm2(1);
    assertThat(norms.getDouble(0)).isCloseTo(1.0, within(2e-6)).isLessThanOrEqualTo(1.0);
    assertThat(d.getFeatures().getDouble(0, 0) / d.getFeatures().getDouble(0, 1)).isCloseTo(0.75, within(1e-6));
    assertThat(d.getFeatures().getRow(1).toDoubleVector()).containsExactly(0.3f, 0.4f);
    assertThat(norms.getDouble(2)).isZero();
    assertThat(d.getLabels()).isEqualTo(y);
    assertThat(x.getDouble(0, 0)).isEqualTo(3.0); // source untouched
  }

  @Test
  void imagesAreClippedOverAllTheirPixels() {
    Nd4j.getRandom().setSeed(3);
    INDArray images = Nd4j.rand(DataType.FLOAT, 5, 1, 28, 28);
    INDArray clipped = FeatureClippedData.clip(images, 2.0);
    assertThat(clipped.shape()).isEqualTo(images.shape());
    INDArray norms = clipped.reshape(5, 784).norm2(1);
    for (int i = 0; i < 5; i++) {
      assertThat(norms.getDouble(i)).isLessThanOrEqualTo(2.0).isGreaterThan(1.999);
    }
  }

  @Test
  void refusesABadNorm() {
    IndexedData d = IndexedData.of(new DataSet(Nd4j.ones(2, 2), Nd4j.ones(2, 1)));
    assertThatThrownBy(() -> FeatureClippedData.of(d, 0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("feature clip norm L must be finite and > 0, was 0.0");
  }
}
