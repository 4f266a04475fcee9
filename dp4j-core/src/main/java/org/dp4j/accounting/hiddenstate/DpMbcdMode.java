package org.dp4j.accounting.hiddenstate;

/**
 * Which contraction exponent the DP-MBCD accountant uses on steps that do not touch the differing
 * example: λ_t = (1 + 2η·o_t·c_t / L_F²)^(−e) (Chen &amp; Liu, Cor. 4.5 case 1; docs/errata.md#dp-mbcd-lipschitz-t).
 */
public enum DpMbcdMode {
  /**
   * e = 1. The paper's e = 1/L_T² rests on a "P is linear" step that does not hold in general (a
   * bijective prox leaves Rényi divergence unchanged); L_T ≤ 1 is still used in the LSI recursion
   * (Vempala–Wibisono Lemma 16). The default.
   */
  SAFE,
  /** e = 1/L_T², as printed in Cor. 4.5 / Thm C.2; only for reproducing the paper. */
  PAPER;

  double contractionExponent(double lipschitzT) {
    return this == SAFE ? 1.0 : 1.0 / (lipschitzT * lipschitzT);
  }
}
