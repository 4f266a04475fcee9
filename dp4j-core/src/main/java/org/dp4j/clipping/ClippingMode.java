package org.dp4j.clipping;

/**
 * How per-example gradients are clipped to the clip norm C. Both modes bound the L2 norm of every example's
 * whole clipped gradient by C, so the sensitivity of the clipped sum is C under add/remove neighbours
 * (docs/sampling.md#expected-batch-size; Boninsegna's survey, Alg. 1).
 */
public enum ClippingMode {
  /** One norm over all parameters of an example: g_i ← g_i · min(1, C/‖g_i‖) (Abadi et al. 2016, Alg. 1). */
  FLAT,
  /**
   * Each of the L layers with parameters is clipped on its own to C/√L, so the whole example still has norm
   * at most √(L·C²/L) = C (per-layer clipping as in McMahan et al. 2018, with an equal split of the budget).
   */
  PER_LAYER
}
