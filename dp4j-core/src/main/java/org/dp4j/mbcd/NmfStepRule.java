package org.dp4j.mbcd;

/**
 * How DP-NMF scales its gradient steps (Chen &amp; Liu Alg. 3; docs/errata.md#dp-mbcd-nmf, #dp-mbcd-hessian-clipping).
 */
public enum NmfStepRule {
  /** Step η, fixed before training: the map each step applies does not depend on the data. */
  FIXED,
  /**
   * PAPER (Alg. 3): step η·min(1, κ/‖H‖₂) with H the block Hessian at the current iterates (YYᵀ for
   * the X rows, X_BᵀX_B/b for Y). The scale depends on the batch, which the hidden-state analysis
   * does not cover (docs/errata.md#dp-mbcd-hessian-clipping); use it to reproduce the paper, not for a certified release.
   */
  CURVATURE_SCALED
}
