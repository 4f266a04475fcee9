package org.dp4j.prox;

/**
 * r(θ) = λ‖θ‖₂ (unsquared, the whole block as one group): block soft thresholding
 * v·max(0, 1 − ηλ/‖v‖₂), L_T = 1 (Moreau decomposition with the projection onto the ηλ-ball;
 * Chen &amp; Liu 2025; docs/errata.md#dp-mbcd-prox-formulas asks for the correct prox of the norm as well as of its square).
 */
final class L2NormProx extends RadialScaling {
  private final double lambda;

  L2NormProx(double lambda) {
    ProxArguments.checkStrength(lambda);
    this.lambda = lambda;
  }

  @Override
  double scale(double norm, double eta) {
    ProxArguments.checkStep(eta);
    return norm <= eta * lambda ? 0.0 : 1.0 - eta * lambda / norm;
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
}
