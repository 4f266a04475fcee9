package org.dp4j.training;

import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.INDArrayIndex;
import org.nd4j.linalg.indexing.NDArrayIndex;
import org.nd4j.linalg.indexing.SpecifiedIndex;

/** Rows (examples, along dimension 0) of an in-memory array, as the samplers' index batches select them. */
final class RowSelection {
  private RowSelection() {
  }

  /** The rows {@code indices} of {@code all}, a copy; zero rows of the same trailing shape for an empty array. */
  static INDArray rows(INDArray all, int[] indices) {
    if (all == null) {
      return null;
    }
    if (indices.length == 0) {
      long[] shape = all.shape().clone();
      shape[0] = 0;
      return Nd4j.create(all.dataType(), shape);
    }
    if (all.rank() == 2) {
      return Nd4j.pullRows(all, 1, indices);
    }
    INDArrayIndex[] index = new INDArrayIndex[all.rank()];
    index[0] = new SpecifiedIndex(indices);
    for (int d = 1; d < index.length; d++) {
      index[d] = NDArrayIndex.all();
    }
    return all.get(index).dup();
  }

  /** {@link #rows} of each array (null entries stay null). */
  static INDArray[] rows(INDArray[] all, int[] indices) {
    if (all == null) {
      return null;
    }
    INDArray[] out = new INDArray[all.length];
    for (int i = 0; i < all.length; i++) {
      out[i] = rows(all[i], indices);
    }
    return out;
  }
}
