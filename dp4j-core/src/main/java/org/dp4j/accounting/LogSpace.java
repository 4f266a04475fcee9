package org.dp4j.accounting;

/**
 * Arithmetic on numbers held as their natural logarithm, so that sums of terms like
 * {@code exp(700)} or {@code exp(-800)} neither overflow nor vanish. {@code -∞} stands for zero.
 */
public final class LogSpace {
  private LogSpace() {}

  /** log(e^a + e^b), exact to a few ulps for any finite or -∞ inputs. */
  public static double add(double a, double b) {
    if (a == Double.NEGATIVE_INFINITY) {
      return b;
    }
    if (b == Double.NEGATIVE_INFINITY) {
      return a;
    }
    double hi = Math.max(a, b);
    return hi + Math.log1p(Math.exp(Math.min(a, b) - hi));
  }

  /**
   * log(e^a - e^b) for a ≥ b; {@code -∞} when they are equal.
   *
   * @throws ArithmeticException if a &lt; b (the difference would be negative)
   */
  public static double subtract(double a, double b) {
    if (a < b) {
      throw new ArithmeticException("log-space subtraction would be negative: a=" + a + " < b=" + b);
    }
    if (b == Double.NEGATIVE_INFINITY) {
      return a;
    }
    if (a == b) {
      return Double.NEGATIVE_INFINITY;
    }
    return a + Math.log(-Math.expm1(b - a));
  }

  /** log Σ e^{x_i}; {@code -∞} for an empty array. */
  public static double sumExp(double[] xs) {
    double hi = Double.NEGATIVE_INFINITY;
    for (double x : xs) {
      hi = Math.max(hi, x);
    }
    if (hi == Double.NEGATIVE_INFINITY || hi == Double.POSITIVE_INFINITY) {
      return hi;
    }
    double s = 0;
    for (double x : xs) {
      s += Math.exp(x - hi);
    }
    return hi + Math.log(s);
  }

  /**
   * A running sum of signed terms given as (sign, log|term|), as needed by series with alternating
   * generalised binomial coefficients (Mironov, Talwar &amp; Zhang 2019, §3.3).
   */
  static final class SignedSum {
    private double logPositive = Double.NEGATIVE_INFINITY;
    private double logNegative = Double.NEGATIVE_INFINITY;

    void add(int sign, double logMagnitude) {
      if (sign > 0) {
        logPositive = LogSpace.add(logPositive, logMagnitude);
      } else if (sign < 0) {
        logNegative = LogSpace.add(logNegative, logMagnitude);
      }
    }

    double logPositive() {
      return logPositive;
    }

    double logNegative() {
      return logNegative;
    }

    /** log of the (positive) total; throws if the total is negative. */
    double log() {
      return LogSpace.subtract(logPositive, logNegative);
    }
  }
}
