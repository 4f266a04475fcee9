package org.dp4j.accounting;

import org.apache.commons.math3.special.Erf;

/**
 * Logarithms of Gaussian tail functions that stay accurate far into the tails, where erfc itself
 * underflows (erfc(27) &lt; 1e-300).
 */
final class GaussianTail {
  /** Below this argument Commons Math's erfc (continued fraction, 1e-15 relative) is used directly. */
  private static final double ASYMPTOTIC_FROM = 20.0;
  private static final double LOG_SQRT_PI = 0.5 * Math.log(Math.PI);

  private GaussianTail() {}

  /**
   * ln erfc(x) for any real x. For x ≥ 20 the asymptotic series
   * ln erfc(x) ≈ −x² − ln x − ½ ln π − 1/(2x²) + 5/(8x⁴) − 37/(24x⁶) + 353/(64x⁸)
   * (Boninsegna's survey; docs/errata.md#survey-conversion) is used; its truncation error there is below 1e-12 absolute.
   */
  public static double logErfc(double x) {
    if (x < ASYMPTOTIC_FROM) {
      return Math.log(Erf.erfc(x));
    }
    double r = 1.0 / (x * x);
    return -x * x - Math.log(x) - LOG_SQRT_PI
        + r * (-0.5 + r * (5.0 / 8 + r * (-37.0 / 24 + r * 353.0 / 64)));
  }

  /** ln Φ(x), Φ the standard normal distribution function: Φ(x) = ½ erfc(−x/√2). */
  public static double logNormalCdf(double x) {
    return Math.log(0.5) + logErfc(-x / Math.sqrt(2.0));
  }
}
