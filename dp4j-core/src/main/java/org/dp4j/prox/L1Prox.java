package org.dp4j.prox;

import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.ops.transforms.Transforms;

/**
 * r(θ) = λ‖θ‖₁: soft thresholding sign(v)·max(0, |v| − ηλ), L_T = 1 (Chen &amp; Liu §3.1;
 * docs/errata.md#dp-mbcd-prox-formulas).
 */
final class L1Prox implements ProximalOperator {
  private final double lambda;

  L1Prox(double lambda) {
    ProxArguments.checkStrength(lambda);
    this.lambda = lambda;
  }

  @Override
  public double[] apply(double[] v, double eta) {
    ProxArguments.checkStep(eta);
    double t = eta * lambda;
    double[] out = new double[v.length];
    for (int i = 0; i < v.length; i++) {
      out[i] = Math.signum(v[i]) * Math.max(0.0, Math.abs(v[i]) - t);
    }
    return out;
  }

  @Override
  public INDArray apply(INDArray v, double eta) {
    ProxArguments.checkStep(eta);
    INDArray shrunk = Transforms.max(Transforms.abs(v, true).subi(eta * lambda), 0.0, false);
    return Transforms.sign(v, true).muli(shrunk);
  }

  @Override
  public double lipschitzConstant(double eta) {
    return 1.0;
  }

  @Override
  public double penalty(double[] theta) {
    double s = 0;
    for (double x : theta) {
      s += Math.abs(x);
    }
    return lambda * s;
  }

  @Override
  public String description() {
    return "L1, lambda=" + lambda;
  }

  @Override
  public String toString() {
    return description();
  }
}
