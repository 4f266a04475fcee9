package org.dp4j.mbcd;

import static org.dp4j.InvalidSettingException.checkArgument;

import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;

/**
 * The hidden per-example auxiliaries of a lifted network for the whole training set (Chen &amp; Liu
 * Eq. 4; docs/threat-models.md#dp-mbcd-auxiliaries): post-activations x_d, d = 1..D, and pre-activations u_d, d = 0..D−1, one
 * row per example in batch order. Memory: n·2·(n_1 + … + n_D) elements. Never serialised, never
 * exposed outside the package (hidden-state accounting is void if they leak; docs/threat-models.md#dp-mbcd-auxiliaries).
 */
final class AuxiliaryStore {
  private final INDArray[] x;
  private final INDArray[] u;
  private final int batchSize;

  AuxiliaryStore(int examples, int batchSize, int[] widths, DataType type) {
    int depth = widths.length - 2;
    this.batchSize = batchSize;
    this.x = new INDArray[depth + 1];
    this.u = new INDArray[depth];
    for (int d = 0; d < depth; d++) {
      u[d] = Nd4j.create(type, examples, widths[d + 1]);
      x[d + 1] = Nd4j.create(type, examples, widths[d + 1]);
    }
  }

  /** Bytes the store needs for n examples and layer widths n_0..n_{D+1}. */
  static long bytesRequired(long examples, int[] widths, DataType type) {
    long perExample = 0;
    for (int d = 1; d < widths.length - 1; d++) {
      perExample += 2L * widths[d];
    }
    return examples * perExample * type.width();
  }

  long bytes() {
    long total = 0;
    for (INDArray a : u) {
      total += a.length() * a.dataType().width();
    }
    for (int d = 1; d < x.length; d++) {
      total += x[d].length() * x[d].dataType().width();
    }
    return total;
  }

  /** View of x_d (d ≥ 1) for the rows of batch j. */
  INDArray x(int d, int batch) {
    checkArgument(d >= 1 && d < x.length, "x_d exists for d in [1, %s], was %s", x.length - 1, d);
    return rows(x[d], batch);
  }

  /** View of u_d (0 ≤ d &lt; D) for the rows of batch j. */
  INDArray u(int d, int batch) {
    checkArgument(d >= 0 && d < u.length, "u_d exists for d in [0, %s], was %s", u.length - 1, d);
    return rows(u[d], batch);
  }

  private INDArray rows(INDArray a, int batch) {
    long from = (long) batch * batchSize;
    return a.get(NDArrayIndex.interval(from, from + batchSize), NDArrayIndex.all());
  }
}
