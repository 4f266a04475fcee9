package org.dp4j.mbcd;

/**
 * The loss R of a lifted network's output block (Chen &amp; Liu Eq. 4; issue: MSE as in the paper, softmax
 * cross-entropy as an option). It decides the x_D-update (closed form or iterative prox), the output block's
 * per-example gradient and the curvature bound that SAFE accounting uses for that block.
 */
public enum OutputLoss {
  /** R = ½‖x_D·A + c − y‖² (the paper's MSE; DL4J: identity activation, MSE or L2 loss). */
  SQUARED(1.0, "squared error (MSE)"),
  /**
   * R = −Σ_k y_k log softmax(x_D·A + c)_k (DL4J: softmax activation, MCXENT or negative log-likelihood loss).
   * Its Hessian in the logits, diag(p) − ppᵀ, is ⪯ ½·I (Böhning 1992), so the block is ½(ρ² + 1)-smooth.
   */
  SOFTMAX_CROSS_ENTROPY(0.5, "softmax cross-entropy");

  private final double curvatureBound;
  private final String description;

  OutputLoss(double curvatureBound, String description) {
    this.curvatureBound = curvatureBound;
    this.description = description;
  }

  /** An upper bound on the loss's Hessian in the logits (spectral norm): 1 for squared, ½ for softmax CE. */
  public double curvatureBound() {
    return curvatureBound;
  }

  public String description() {
    return description;
  }
}
