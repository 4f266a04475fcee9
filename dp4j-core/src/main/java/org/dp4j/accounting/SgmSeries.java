package org.dp4j.accounting;

import java.util.OptionalDouble;

/**
 * log A_α of the sampled Gaussian mechanism for fractional α by the signed series of Mironov, Talwar &amp;
 * Zhang 2019, §3.3, used where it converges fast; see {@code docs/accounting-sgm-rdp.md}.
 *
 * <p>With z₀ = z² ln(1/q − 1) + ½, A_α = A₀ + A₁ where
 * A₀ = Σ C(α,i) q^i (1−q)^{α−i} e^{(i²−i)/(2z²)} ½ erfc((i − z₀)/(√2 z)) and
 * A₁ = Σ C(α,i) q^{α−i} (1−q)^i e^{((α−i)²−(α−i))/(2z²)} ½ erfc((z₀ − (α−i))/(√2 z)).
 * Once i &gt; α the binomials alternate in sign and, past z₀, the terms only decay like a power of i:
 * fast when z₀ is large (small q), hopeless when q ≥ ½ (z₀ ≤ ½). The series is abandoned (empty result)
 * when it would need more than {@value #MAX_TERMS} terms, and its value is rejected when the bound on its
 * rounding and truncation error exceeds {@value #MAX_RELATIVE_ERROR} of the RDP.
 */
final class SgmSeries {
  /** The series stops once both terms fall below e^{-40} (absolute, A_α ≥ 1). */
  private static final double CUTOFF = -40;
  static final int MAX_TERMS = 400;
  /** Accepted bound on the relative error of log A_α (hence of the RDP). */
  static final double MAX_RELATIVE_ERROR = 1e-10;
  private static final double UNIT_ROUNDOFF = 0x1p-53;

  private SgmSeries() {}

  /** log A_α for 0 &lt; q &lt; 1 and fractional α, or empty if the series is slow or inaccurate here. */
  static OptionalDouble logA(double q, double z, double alpha) {
    LogSpace.SignedSum a0 = new LogSpace.SignedSum();
    LogSpace.SignedSum a1 = new LogSpace.SignedSum();
    double z0 = z * z * Math.log(1 / q - 1) + 0.5;
    double logQ = Math.log(q);
    double log1mQ = Math.log1p(-q);
    double sqrt2z = Math.sqrt(2) * z;
    double twoZ2 = 2 * z * z;
    double logHalf = Math.log(0.5);
    double logAbsBinom = 0; // log |C(α, 0)|
    int sign = 1;
    double previous = Double.POSITIVE_INFINITY;
    for (int i = 0; i < MAX_TERMS; i++) {
      double j = alpha - i;
      double logS0 = logAbsBinom + i * logQ + j * log1mQ + (i * (double) i - i) / twoZ2
          + logHalf + GaussianTail.logErfc((i - z0) / sqrt2z);
      double logS1 = logAbsBinom + j * logQ + i * log1mQ + (j * j - j) / twoZ2
          + logHalf + GaussianTail.logErfc((z0 - j) / sqrt2z);
      double largest = Math.max(logS0, logS1);
      if (Double.isNaN(largest) || largest == Double.POSITIVE_INFINITY) {
        return OptionalDouble.empty();
      }
      a0.add(sign, logS0);
      a1.add(sign, logS1);
      if (largest < CUTOFF) {
        return accurateOrEmpty(a0, a1, i + 1);
      }
      // Past α and z₀ the terms decrease monotonically; give up early if even the current rate of
      // decrease cannot reach the cutoff within the budget (the rate only slows down from here).
      if (i > alpha + Math.max(z0, 0) + 2 && previous - largest < (largest - CUTOFF) / (MAX_TERMS - i)) {
        return OptionalDouble.empty();
      }
      previous = largest;
      // C(α, i+1) = C(α, i) · (α − i)/(i + 1)
      logAbsBinom += Math.log(Math.abs(alpha - i)) - Math.log(i + 1.0);
      if (alpha - i < 0) {
        sign = -sign;
      }
    }
    return OptionalDouble.empty();
  }

  /**
   * The total if its error bound is small enough: each log-space addition and the final subtraction
   * carry a few units of round-off on the positive and negative parts, and the dropped terms (beyond
   * the cutoff, decreasing) are bounded by the last pair times the number of terms used.
   */
  private static OptionalDouble accurateOrEmpty(LogSpace.SignedSum a0, LogSpace.SignedSum a1, int terms) {
    double logPositive = LogSpace.add(a0.logPositive(), a1.logPositive());
    double logNegative = LogSpace.add(a0.logNegative(), a1.logNegative());
    if (!(logNegative < logPositive)) {
      return OptionalDouble.empty();
    }
    double logA = LogSpace.subtract(logPositive, logNegative);
    double absoluteError = 4 * terms * UNIT_ROUNDOFF * (Math.exp(logPositive) + Math.exp(logNegative))
        + 2 * terms * Math.exp(CUTOFF);
    // d(log A) = dA / A; relative error of log A is that over |log A|.
    double relative = absoluteError / Math.exp(logA) / Math.abs(logA);
    return relative <= MAX_RELATIVE_ERROR ? OptionalDouble.of(logA) : OptionalDouble.empty();
  }
}
