package org.dp4j.clipping;

import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.Arrays;
import org.deeplearning4j.nn.conf.RNNFormat;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.indexing.NDArrayIndex;

/**
 * Conversions between DL4J's time-series layouts ({@link RNNFormat#NCW} [n, k, T], {@link RNNFormat#NWC}
 * [n, T, k]) and the batch-major [n, T, k] contiguous arrays the recurrent rules work on.
 */
final class SequenceArrays {
  private SequenceArrays() {
  }

  /** A [n, T, k] contiguous copy (or the array itself when it already is one) of a 3-D time series. */
  static INDArray batchMajor(INDArray series, RNNFormat format, String where) {
    checkArgument(series.rank() == 3, "%s: expects a time series [n, features, T], got shape %s", where,
        Arrays.toString(series.shape()));
    INDArray view = format == RNNFormat.NCW ? series.permute(0, 2, 1) : series;
    return view.dup('c');
  }

  /** A batch-major [n, T, k] array in the given layout (a view, not a copy). */
  static INDArray toFormat(INDArray batchMajor, RNNFormat format) {
    return format == RNNFormat.NCW ? batchMajor.permute(0, 2, 1) : batchMajor;
  }

  /** Step t of a time-major [T, n, k] array: a contiguous [n, k] view. */
  static INDArray step(INDArray timeMajor, long t) {
    return timeMajor.get(NDArrayIndex.point(t), NDArrayIndex.all(), NDArrayIndex.all());
  }

  /** Column t of a mask [n, T] as an [n, 1] view. */
  static INDArray maskColumn(INDArray mask, long t) {
    return mask.get(NDArrayIndex.all(), NDArrayIndex.interval(t, t + 1));
  }

  /** Step t of a batch-major [n, T, k] array, as a contiguous [n, k] copy. */
  static INDArray stepCopy(INDArray batchMajor, long t) {
    return batchMajor.get(NDArrayIndex.all(), NDArrayIndex.point(t), NDArrayIndex.all()).dup('c');
  }

  /** The time-major [T, n, k] array moved one step later (step 0 is zero): h_{t-1} for every t. */
  static INDArray previousStep(INDArray timeMajor) {
    long steps = timeMajor.size(0);
    INDArray shifted = timeMajor.like();
    if (steps > 1) {
      shifted.get(NDArrayIndex.interval(1, steps), NDArrayIndex.all(), NDArrayIndex.all())
          .assign(timeMajor.get(NDArrayIndex.interval(0, steps - 1), NDArrayIndex.all(), NDArrayIndex.all()));
    }
    return shifted;
  }

  /** A time-major [T, n, k] array as a batch-major [n, T, k] contiguous copy. */
  static INDArray timeToBatchMajor(INDArray timeMajor) {
    return timeMajor.permute(1, 0, 2).dup('c');
  }

  /**
   * The error with respect to the layer input, δ·Wᵀ for every (step, example) row in one product, in the layer's
   * format.
   *
   * @param delta time-major [T, n, d]
   * @param weights [nIn, d]
   */
  static INDArray inputError(INDArray delta, INDArray weights, RNNFormat format) {
    long steps = delta.size(0);
    long n = delta.size(1);
    INDArray error = delta.reshape('c', steps * n, delta.size(2)).mmul(weights.transpose())
        .reshape('c', steps, n, weights.size(0));
    return toFormat(error.permute(1, 0, 2), format);
  }

  /** The mask [n, T] in the data type, contiguous; null stays null. */
  static INDArray mask(INDArray mask, DataType type, long n, long steps, String where) {
    if (mask == null) {
      return null;
    }
    checkArgument(mask.rank() == 2 && mask.size(0) == n && mask.size(1) == steps,
        "%s: the feature mask must be [%s, %s] (examples, time steps), was %s", where, n, steps,
        Arrays.toString(mask.shape()));
    return mask.castTo(type).dup('c');
  }
}
