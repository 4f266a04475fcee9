package org.dp4j.mbcd;

import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.Arrays;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.INDArrayIndex;
import org.nd4j.linalg.indexing.NDArrayIndex;

/**
 * The u-update of the lifted ReLU network, elementwise: u = argmin (a − max(0,u))² + (u − b)² with
 * a = x_{d+1}, b = W_d x_d (Chen &amp; Liu Eq. 10 = Zeng et al. 2019 Lemma 13; docs/errata.md#dp-mbcd-lifted-updates:
 * not convex, but this ordered rule is the exact global minimiser).
 *
 * <pre>{@code
 * PreActivationUpdate.solve(1.0, -0.3);   // 0.35
 * }</pre>
 */
final class PreActivationUpdate {
  private static final double SQRT2_MINUS_1 = Math.sqrt(2.0) - 1.0;

  private PreActivationUpdate() {}

  /** The minimiser for one coordinate; conditions checked in the paper's order. */
  static double solve(double a, double b) {
    if (-a <= b && b <= -SQRT2_MINUS_1 * a && -SQRT2_MINUS_1 * a <= 0) {
      return b;
    }
    if (b + a <= 0) {
      return Math.min(0.0, b);
    }
    return 0.5 * (a + b);
  }

  /** Elementwise over equally shaped arrays; returns a new array of b's shape and data type. */
  static INDArray solve(INDArray a, INDArray b) {
    checkArgument(Arrays.equals(a.shape(), b.shape()),
        "a and b must have the same shape, were %s and %s", Arrays.toString(a.shape()),
        Arrays.toString(b.shape()));
    if (b.rank() != 2) {
      return solveChunk(a, b);
    }
    // row chunks of about 2^20 entries: a 60,000 × 2,048 batch would otherwise need three 1 GB Java arrays
    INDArray u = Nd4j.create(b.dataType(), b.shape());
    long rows = b.rows();
    long chunk = Math.max(1, (1L << 20) / Math.max(1, b.columns()));
    for (long start = 0; start < rows; start += chunk) {
      long end = Math.min(rows, start + chunk);
      INDArrayIndex[] range = {NDArrayIndex.interval(start, end), NDArrayIndex.all()};
      u.get(range).assign(solveChunk(a.get(range), b.get(range)));
    }
    return u;
  }

  private static INDArray solveChunk(INDArray a, INDArray b) {
    double[] av = a.dup('c').data().asDouble();
    double[] bv = b.dup('c').data().asDouble();
    double[] u = new double[bv.length];
    for (int i = 0; i < u.length; i++) {
      u[i] = solve(av[i], bv[i]);
    }
    return Nd4j.createFromArray(u).reshape('c', b.shape()).castTo(b.dataType());
  }
}
