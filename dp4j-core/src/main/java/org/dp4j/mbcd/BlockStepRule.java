package org.dp4j.mbcd;

/** How each released block W_d takes its noisy step (Chen &amp; Liu Eq. 14 vs the B.2.2 variant; docs/errata.md#dp-mbcd-lifted-updates). */
public enum BlockStepRule {
  /**
   * Eq. 14: θ ← Prox(θ − η·ḡ + N(0, 2η·o·I)), ḡ the batch mean of per-example gradients clipped to C. The
   * map θ ↦ θ − η·ḡ is what SAFE accounting certifies (S_g = 2C). The default.
   */
  GRADIENT,
  /**
   * The paper's MNIST "variant" (Eq. 17, corrected by docs/errata.md#dp-mbcd-lifted-updates to the proximal-point step):
   * Θ ← Prox((I + ηw·X̃ᵀX̃/b)⁻¹(Θ + ηw·X̃ᵀT/b + N(0, 2η·o·I))), the exact minimiser of the block's mean
   * squared loss plus (1/2η)‖Θ' − Θ‖², stable for any η. The matrix depends on the data and the update is
   * not clipped, so no sensitivity is certified (docs/errata.md#dp-mbcd-sensitivity; docs/threat-models.md#dp-mbcd-auxiliaries): only PAPER accounting (the paper's
   * claim) is offered for it.
   */
  PROXIMAL_POINT
}
