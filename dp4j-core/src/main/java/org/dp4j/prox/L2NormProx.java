package org.dp4j.prox;

import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * r(θ) = λ‖θ‖₂ (unsquared, the whole block as one group): block soft thresholding
 * v·max(0, 1 − ηλ/‖v‖₂), L_T = 1 (Moreau decomposition with the projection onto the ηλ-ball;
 * digest 003 §2.1 asks for the correct prox of the norm as well as of its square).
 */
final class L2NormProx implements ProximalOperator {
  private final double lambda;

  L2NormProx(double lambda) {
    ProxArguments.checkStrength(lambda);
    this.lambda = lambda;
  }

  private double scale(double norm, double eta) {
    ProxArguments.checkStep(eta);
    return norm <= eta * lambda ? 0.0 : 1.0 - eta * lambda / norm;
  }

  @Override
  public double[] apply(double[] v, double eta) {
    double s = scale(ProxArguments.norm2(v), eta);
    double[] out = new double[v.length];
    for (int i = 0; i < v.length; i++) {
      out[i] = v[i] * s;
    }
    return out;
  }

  @Override
  public INDArray apply(INDArray v, double eta) {
    return v.mul(scale(v.norm2Number().doubleValue(), eta));
  }

  @Override
  public double lipschitzConstant(double eta) {
    return 1.0;
  }

  @Override
  public double penalty(double[] theta) {
    return lambda * ProxArguments.norm2(theta);
  }

  @Override
  public String description() {
    return "L2 norm, lambda=" + lambda;
  }

  @Override
  public String toString() {
    return description();
  }
}
