package org.dp4j.audit;

import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;

/**
 * The audited runs' synthetic data: two Gaussian blobs (means ±1.5, unit variance, labels alternating) in the first
 * {@code informative} of {@code inputs} features; the other features are blank in every record, so the weights that
 * read them get no data gradient (room for canaries).
 */
public final class Blobs {
  private Blobs() {}

  public static DataSet of(int n, int informative, int inputs) {
    Nd4j.getRandom().setSeed(5);
    INDArray x = Nd4j.zeros(DataType.FLOAT, n, inputs);
    INDArray y = Nd4j.zeros(DataType.FLOAT, n, 2);
    INDArray signal = Nd4j.randn(DataType.FLOAT, n, informative);
    for (int i = 0; i < n; i++) {
      int c = i % 2;
      for (int f = 0; f < informative; f++) {
        x.putScalar(i, f, signal.getDouble(i, f) + (c == 0 ? 1.5 : -1.5));
      }
      y.putScalar(i, c, 1f);
    }
    return new DataSet(x, y);
  }
}
