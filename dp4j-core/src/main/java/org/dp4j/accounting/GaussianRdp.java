package org.dp4j.accounting;

import static org.dp4j.InvalidSettingException.checkArgument;

/**
 * RDP of the Gaussian mechanism without sampling: a query of ℓ2-sensitivity Δ with noise
 * N(0, s²I) is (α, αΔ²/(2s²))-RDP (Mironov 2017, Prop. 7; docs/accountants.md#rdp-conversion; Boninsegna's survey, Prop V.3).
 */
public final class GaussianRdp {
  private GaussianRdp() {}

  /** RDP curve for sensitivity Δ and noise std s; with Δ = 1, s is the noise multiplier. */
  public static RdpCurve curve(double sensitivity, double noiseStd, Orders orders) {
    checkArgument(sensitivity >= 0 && Double.isFinite(sensitivity), "sensitivity must be finite and >= 0, was %s",
        sensitivity);
    checkArgument(noiseStd > 0 && Double.isFinite(noiseStd), "noise std must be finite and > 0, was %s", noiseStd);
    double perOrder = sensitivity * sensitivity / (2 * noiseStd * noiseStd);
    return RdpCurve.tabulate(orders, a -> perOrder == 0 ? 0 : a * perOrder);
  }
}
