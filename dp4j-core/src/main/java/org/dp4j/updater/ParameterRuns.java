package org.dp4j.updater;

import java.util.List;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.indexing.NDArrayIndex;

/**
 * Splits a flattened gradient view into trainable and frozen parts. Consecutive blocks of the same kind form one
 * view, so that a model without frozen parameters gets its noise in one draw over the whole gradient (as fast as a
 * single draw, and prefetchable).
 */
final class ParameterRuns {
  private ParameterRuns() {
  }

  /**
   * @param view the flattened gradient view, [1, Σ sizes]
   * @param sizes parameter count of each block, in the layout of the view (0 for blocks without parameters)
   * @param isFrozen whether each block is frozen
   */
  static void split(INDArray view, long[] sizes, boolean[] isFrozen, List<INDArray> trainable,
      List<INDArray> frozen) {
    long offset = 0;
    long runStart = 0;
    Boolean runFrozen = null;
    for (int i = 0; i < sizes.length; i++) {
      if (sizes[i] == 0) {
        continue;
      }
      if (runFrozen != null && runFrozen != isFrozen[i]) {
        (runFrozen ? frozen : trainable).add(interval(view, runStart, offset));
        runStart = offset;
      }
      runFrozen = isFrozen[i];
      offset += sizes[i];
    }
    if (runFrozen != null) {
      (runFrozen ? frozen : trainable).add(interval(view, runStart, offset));
    }
  }

  private static INDArray interval(INDArray view, long from, long to) {
    return view.get(NDArrayIndex.all(), NDArrayIndex.interval(from, to));
  }
}
