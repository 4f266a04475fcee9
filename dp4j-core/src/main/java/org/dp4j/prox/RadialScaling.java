package org.dp4j.prox;

import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * A prox that scales the whole block by one factor s(‖v‖₂, η) (Chen &amp; Liu 2025; docs/errata.md#dp-mbcd-prox-formulas): the squared-ℓ2 prox, the ℓ2-norm
 * prox (block soft thresholding) and the projection onto a ball. Subclasses give the factor.
 */
abstract class RadialScaling implements ProximalOperator {
  /** The factor applied to v, from its norm and the step η (which it checks). */
  abstract double scale(double norm, double eta);

  @Override
  public final double[] apply(double[] v, double eta) {
    double s = scale(ProxArguments.norm2(v), eta);
    double[] out = new double[v.length];
    for (int i = 0; i < v.length; i++) {
      out[i] = v[i] * s;
    }
    return out;
  }

  @Override
  public final INDArray apply(INDArray v, double eta) {
    return v.mul(scale(v.norm2Number().doubleValue(), eta));
  }

  @Override
  public String toString() {
    return description();
  }
}
