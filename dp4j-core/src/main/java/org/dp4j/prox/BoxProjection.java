package org.dp4j.prox;

import static org.dp4j.InvalidSettingException.checkArgument;

import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.ops.transforms.Transforms;

/**
 * r = indicator of the box [lo, hi]^d: coordinate-wise clamping, L_T = 1 (Chen &amp; Liu 2025; docs/errata.md#dp-mbcd-lipschitz-t);
 * independent of η. {@code box(0, +∞)} is the non-negativity constraint of NMF (Chen &amp; Liu Eq. 2).
 */
final class BoxProjection implements ProximalOperator {
  private final double lo;
  private final double hi;

  BoxProjection(double lo, double hi) {
    checkArgument(!Double.isNaN(lo) && !Double.isNaN(hi) && lo <= hi,
        "box bounds must satisfy lo <= hi, were lo=%s, hi=%s", lo, hi);
    checkArgument(lo < Double.POSITIVE_INFINITY && hi > Double.NEGATIVE_INFINITY,
        "box must be non-empty, was [%s, %s]", lo, hi);
    this.lo = lo;
    this.hi = hi;
  }

  @Override
  public double[] apply(double[] v, double eta) {
    ProxArguments.checkStep(eta);
    double[] out = new double[v.length];
    for (int i = 0; i < v.length; i++) {
      out[i] = Math.min(hi, Math.max(lo, v[i]));
    }
    return out;
  }

  @Override
  public INDArray apply(INDArray v, double eta) {
    ProxArguments.checkStep(eta);
    INDArray out = v.dup();
    if (lo > Double.NEGATIVE_INFINITY) {
      out = Transforms.max(out, lo, false);
    }
    if (hi < Double.POSITIVE_INFINITY) {
      out = Transforms.min(out, hi, false);
    }
    return out;
  }

  @Override
  public double lipschitzConstant(double eta) {
    return 1.0;
  }

  @Override
  public double penalty(double[] theta) {
    for (double x : theta) {
      if (x < lo || x > hi) {
        return Double.POSITIVE_INFINITY;
      }
    }
    return 0.0;
  }

  @Override
  public String description() {
    return "box projection [" + lo + ", " + hi + "]";
  }

  @Override
  public String toString() {
    return description();
  }
}
