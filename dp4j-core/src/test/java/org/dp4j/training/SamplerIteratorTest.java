package org.dp4j.training;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import org.dp4j.noise.AesCtrRandom;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.dataset.api.MultiDataSet;
import org.nd4j.linalg.factory.Nd4j;

/**
 * The behaviour both sampler iterators share through {@link SamplerIterator}: a pre-processor runs on every
 * non-empty batch and never on an empty Poisson batch (which is still a step), a caller-chosen batch size is refused,
 * an epoch ends after {@code stepsPerEpoch} batches and {@code reset()} starts the next. Record i has features equal
 * to i, so each batch names the records it holds.
 */
class SamplerIteratorTest {
  private static final int N = 20;

  /** Features of record i are [i, i]; labels are one column. */
  private static INDArray indexFeatures() {
    return Nd4j.arange(N).castTo(DataType.DOUBLE).reshape(N, 1).repeat(1, 2);
  }

  @Test
  void dataSetIteratorPreProcessesNonEmptyBatchesOnly() {
    SampledDataSetIterator it = SampledDataSetIterator.poisson(
        IndexedData.of(new DataSet(indexFeatures(), Nd4j.zeros(DataType.DOUBLE, N, 1))), 1,
        AesCtrRandom.insecureFixedSeed(7));
    List<Long> calls = new ArrayList<>();
    it.setPreProcessor(ds -> {
      calls.add(ds.getFeatures().size(0));
      ds.setFeatures(ds.getFeatures().mul(-1));
    });
    List<INDArray> batches = new ArrayList<>();
    while (it.hasNext()) {
      batches.add(it.next().getFeatures());
    }
    assertEpoch(it, batches, calls);
    assertThatThrownBy(() -> it.next(3)).isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining("drawn by the sampler");
    assertThat(it.asyncSupported()).isFalse();
  }

  @Test
  void multiDataSetIteratorPreProcessesNonEmptyBatchesOnly() {
    MultiDataSet data = new org.nd4j.linalg.dataset.MultiDataSet(
        new INDArray[] {indexFeatures(), indexFeatures().add(100)},
        new INDArray[] {Nd4j.zeros(DataType.DOUBLE, N, 1)});
    SampledMultiDataSetIterator it = SampledMultiDataSetIterator.poisson(IndexedMultiData.of(data), 1,
        AesCtrRandom.insecureFixedSeed(7));
    List<Long> calls = new ArrayList<>();
    it.setPreProcessor(mds -> {
      calls.add(mds.getFeatures(0).size(0));
      mds.setFeatures(0, mds.getFeatures(0).mul(-1));
    });
    List<INDArray> batches = new ArrayList<>();
    while (it.hasNext()) {
      MultiDataSet batch = it.next();
      batches.add(batch.getFeatures(0));
      if (batch.getFeatures(0).size(0) > 0) {
        // the second input is not touched by the pre-processor: the same records, offset by 100
        assertThat(batch.getFeatures(1).sub(100)).isEqualTo(batch.getFeatures(0).mul(-1));
      }
    }
    assertEpoch(it, batches, calls);
    assertThatThrownBy(() -> it.next(3)).isInstanceOf(UnsupportedOperationException.class);
    assertThat(it.asyncSupported()).isFalse();
  }

  /**
   * One epoch of N steps at q = 1/N: some batches are empty (each with probability (1 - 1/N)^N ≈ 0.36), the
   * pre-processor saw exactly the non-empty ones, in order, and each row is a distinct record negated by it.
   */
  private static void assertEpoch(SamplerIterator<?, ?> it, List<INDArray> batches, List<Long> calls) {
    assertThat(batches).hasSize(N);
    List<Long> nonEmpty = new ArrayList<>();
    for (INDArray features : batches) {
      long rows = features.size(0);
      if (rows > 0) {
        nonEmpty.add(rows);
        double[] records = features.getColumn(0).neg().toDoubleVector();
        assertThat(records).doesNotHaveDuplicates();
        for (double r : records) {
          assertThat(r).isBetween(0.0, N - 1.0).isEqualTo(Math.rint(r));
        }
      }
    }
    assertThat(nonEmpty).hasSizeLessThan(N).isNotEmpty();
    assertThat(calls).isEqualTo(nonEmpty);
    assertThat(it.hasNext()).isFalse();
    assertThat(it.remainingInEpoch()).isZero();
    assertThatThrownBy(it::nextRows).isInstanceOf(NoSuchElementException.class).hasMessageContaining("reset()");
    it.reset();
    assertThat(it.remainingInEpoch()).isEqualTo(N);
    assertThat(it.hasNext()).isTrue();
  }
}
