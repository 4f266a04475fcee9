package org.dp4j.accounting;

import static org.dp4j.InvalidSettingException.checkArgument;

/**
 * μ-Gaussian differential privacy (Dong, Roth &amp; Su 2019): the privacy of distinguishing N(0,1)
 * from N(μ,1). Conversions are exact, not through RDP.
 *
 * <pre>{@code
 * double d = GaussianDp.delta(1.0, 1.0);     // 0.1269367375
 * double e = GaussianDp.epsilon(1e-5, 1.0);  // 4.3771780957
 * }</pre>
 */
public final class GaussianDp {
  private static final int BISECTION_STEPS = 200;

  private GaussianDp() {}

  /**
   * δ(ε; μ) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) (Balle &amp; Wang 2018, Thm 8; Dong, Roth &amp; Su 2019,
   * Cor. 2.13), computed in log space so that it stays accurate when both terms are tiny.
   */
  public static double delta(double epsilon, double mu) {
    checkArgument(mu >= 0 && Double.isFinite(mu), "mu must be finite and >= 0, was %s", mu);
    checkArgument(epsilon >= 0 && Double.isFinite(epsilon), "epsilon must be finite and >= 0, was %s", epsilon);
    if (mu == 0) {
      return 0;
    }
    double logFirst = GaussianTail.logNormalCdf(-epsilon / mu + mu / 2);
    double logSecond = epsilon + GaussianTail.logNormalCdf(-epsilon / mu - mu / 2);
    if (logSecond >= logFirst) {
      return 0;
    }
    return Math.exp(LogSpace.subtract(logFirst, logSecond));
  }

  /**
   * The smallest ε with δ(ε; μ) ≤ δ, by bisection to full double precision; the returned ε always
   * satisfies δ(ε; μ) ≤ δ (it errs on the private side).
   */
  public static double epsilon(double delta, double mu) {
    checkArgument(delta > 0 && delta < 1, "delta must be in (0, 1), was %s", delta);
    checkArgument(mu >= 0 && Double.isFinite(mu), "mu must be finite and >= 0, was %s", mu);
    if (delta(0, mu) <= delta) {
      return 0;
    }
    double lo = 0;
    double hi = Math.max(1, mu);
    while (delta(hi, mu) > delta) {
      lo = hi;
      hi *= 2;
    }
    for (int i = 0; i < BISECTION_STEPS && hi - lo > Math.ulp(hi); i++) {
      double mid = 0.5 * (lo + hi);
      if (delta(mid, mu) > delta) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    return hi;
  }

  /** The RDP curve implied by μ-GDP: ε(α) = α μ²/2 (Dong, Roth &amp; Su 2019, Cor. B.6). */
  public static RdpCurve rdp(double mu, Orders orders) {
    checkArgument(mu >= 0 && Double.isFinite(mu), "mu must be finite and >= 0, was %s", mu);
    return RdpCurve.tabulate(orders, a -> mu == 0 ? 0 : a * mu * mu / 2);
  }
}
