package org.dp4j.training;

import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.Arrays;
import java.util.stream.Stream;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.api.MultiDataSet;

/**
 * A multi-input / multi-output training set addressed by record index, for a {@code ComputationGraph} with several
 * inputs or outputs ({@link SampledMultiDataSetIterator}); the counterpart of {@link IndexedData}. Record i is row i
 * of every feature, label and mask array. Implement it over your own record source (a database, files, a cache) or
 * use {@link #of(MultiDataSet)} for data in memory. An empty index array (an empty Poisson batch) must yield
 * zero-row arrays, so the step still adds its noise.
 *
 * <pre>{@code
 * // given: INDArray images; INDArray metadata; INDArray classes; INDArray targets
 * MultiDataSet all = new org.nd4j.linalg.dataset.MultiDataSet(
 *     new INDArray[] {images, metadata}, new INDArray[] {classes, targets});
 * SampledMultiDataSetIterator train = SampledMultiDataSetIterator.poisson(IndexedMultiData.of(all), 256);
 * }</pre>
 */
public interface IndexedMultiData {
  /** Number of records n. */
  int size();

  /** The records {@code indices} (ascending, distinct) as one MultiDataSet; zero rows for an empty array. */
  MultiDataSet rows(int[] indices);

  /** Rows of an in-memory MultiDataSet: every feature, label and mask array has one row per record. */
  static IndexedMultiData of(MultiDataSet all) {
    INDArray[] x = all.getFeatures();
    INDArray[] y = all.getLabels();
    INDArray[] xm = all.getFeaturesMaskArrays();
    INDArray[] ym = all.getLabelsMaskArrays();
    checkArgument(x != null && x.length > 0 && y != null && y.length > 0,
        "a MultiDataSet needs at least one feature and one label array");
    long n = x[0].size(0);
    Stream.of(x, y, xm, ym).filter(a -> a != null).flatMap(Arrays::stream).filter(a -> a != null)
        .forEach(a -> checkArgument(a.size(0) == n, "every array must have %s rows (one per record), one has "
            + "shape %s", n, Arrays.toString(a.shape())));
    checkArgument(n <= Integer.MAX_VALUE, "at most %s records, was %s", Integer.MAX_VALUE, n);
    return new IndexedMultiData() {
      @Override
      public int size() {
        return (int) n;
      }

      @Override
      public MultiDataSet rows(int[] indices) {
        return new org.nd4j.linalg.dataset.MultiDataSet(RowSelection.rows(x, indices),
            RowSelection.rows(y, indices), RowSelection.rows(xm, indices), RowSelection.rows(ym, indices));
      }
    };
  }
}
