package org.dp4j.prox;

/**
 * r(θ) = (λ/2)‖θ‖₂²: Prox = v/(1 + ηλ), L_T = 1/(1 + ηλ) (Chen &amp; Liu 2025; docs/errata.md#dp-mbcd-prox-formulas correction of the paper's
 * η/(1+η)). Note: a bijective linear prox gives no extra Rényi contraction (docs/errata.md#dp-mbcd-lipschitz-t); use L_T = 1
 * in the accountant's exponent unless reproducing the paper.
 */
final class SquaredL2Prox extends RadialScaling {
  private final double lambda;

  SquaredL2Prox(double lambda) {
    ProxArguments.checkStrength(lambda);
    this.lambda = lambda;
  }

  @Override
  double scale(double norm, double eta) {
    return lipschitzConstant(eta);
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
}
