package org.dp4j.training;

import static org.dp4j.InvalidSettingException.checkArgument;

import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;

/**
 * The layout of K views per example (augmentation multiplicity, {@link DpSgdTrainer.Builder#viewsPerExample}): data
 * rows hold an example's K views side by side, [m, K·d]; a network takes them as rows, example e's views in rows
 * e·K … e·K + K − 1. Used by the trainer for training batches and by evaluations that average over test-time views.
 *
 * <pre>{@code
 * // given: INDArray features; INDArray oneHot
 * INDArray rows = ExampleViews.rows(features, 2);            // [m, 2d] -> [2m, d]
 * INDArray labels = ExampleViews.repeatedRows(oneHot, 2);    // [m, c]  -> [2m, c]
 * }</pre>
 */
public final class ExampleViews {
  private ExampleViews() {}

  /** [m, K·d] as [m·K, d]: a view when the rows are row-major, a copy otherwise (ND4J's reshape). */
  public static INDArray rows(INDArray sideBySide, int views) {
    checkArgument(views >= 1 && sideBySide.rank() == 2 && sideBySide.size(1) % views == 0,
        "expected [m, K·d] rows of %s views, was %s", views, java.util.Arrays.toString(sideBySide.shape()));
    return sideBySide.reshape('c', sideBySide.size(0) * views, sideBySide.size(1) / views);
  }

  /** Each row of [m, c] repeated K times in place: [m·K, c] (each example's label for each of its views). */
  public static INDArray repeatedRows(INDArray perExample, int views) {
    long m = perExample.size(0);
    long c = perExample.size(1);
    INDArray out = Nd4j.create(perExample.dataType(), m, views, c);
    for (int k = 0; k < views; k++) {
      out.get(NDArrayIndex.all(), NDArrayIndex.point(k), NDArrayIndex.all()).assign(perExample);
    }
    return out.reshape('c', m * views, c);
  }
}
