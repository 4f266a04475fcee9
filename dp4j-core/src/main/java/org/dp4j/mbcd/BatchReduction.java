package org.dp4j.mbcd;

/**
 * Whether a released block's step uses the batch mean or the batch sum of its per-example terms (Chen &amp; Liu
 * Eq. 15–17 print sums in row-vector form, uᵀx; the accountant's S_g/b presumes means: docs/errata.md#dp-mbcd-batch-mean).
 *
 * <p>A SUM run with step η and temperature o is run as the MEAN run with step η·b and temperature o/b (the noise
 * N(0, 2η·o·I) is unchanged, and the optional strong-convexity term μ and the regulariser's prox act on the mean
 * objective at step η·b); SAFE accounting sees those mean parameters, so its ε is correct for either. PAPER accounting keeps the paper's η and o and therefore treats
 * the sum as a mean, as the paper's numbers do; its assumptions then say that this understates the RDP.
 */
public enum BatchReduction {
  /** ḡ and the proximal-point statistics are batch means (the resolution of docs/errata.md#dp-mbcd-batch-mean). The default. */
  MEAN,
  /** The paper's Eq. 15–17 as printed: batch sums, with the paper's η = 0.1 and o = 1e-3 for MNIST. */
  SUM
}
