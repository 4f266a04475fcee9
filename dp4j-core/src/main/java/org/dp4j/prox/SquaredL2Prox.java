package org.dp4j.prox;

import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * r(θ) = (λ/2)‖θ‖₂²: Prox = v/(1 + ηλ), L_T = 1/(1 + ηλ) (digest 003 §2.1 correction of the paper's
 * η/(1+η)). Note: a bijective linear prox gives no extra Rényi contraction (digest P5); use L_T = 1
 * in the accountant's exponent unless reproducing the paper.
 */
final class SquaredL2Prox implements ProximalOperator {
  private final double lambda;

  SquaredL2Prox(double lambda) {
    ProxArguments.checkStrength(lambda);
    this.lambda = lambda;
  }

  @Override
  public double[] apply(double[] v, double eta) {
    double scale = lipschitzConstant(eta);
    double[] out = new double[v.length];
    for (int i = 0; i < v.length; i++) {
      out[i] = v[i] * scale;
    }
    return out;
  }

  @Override
  public INDArray apply(INDArray v, double eta) {
    return v.mul(lipschitzConstant(eta));
  }

  @Override
  public double lipschitzConstant(double eta) {
    ProxArguments.checkStep(eta);
    return 1.0 / (1.0 + eta * lambda);
  }

  @Override
  public double penalty(double[] theta) {
    double n = ProxArguments.norm2(theta);
    return 0.5 * lambda * n * n;
  }

  @Override
  public String description() {
    return "squared L2, lambda=" + lambda;
  }

  @Override
  public String toString() {
    return description();
  }
}
