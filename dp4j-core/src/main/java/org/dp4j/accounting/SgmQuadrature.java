package org.dp4j.accounting;

import java.util.OptionalDouble;

/**
 * log(A_α − 1) of the sampled Gaussian mechanism by the trapezoidal rule on the real line, in log space;
 * the method and its error control are derived in {@code docs/accounting-sgm-rdp.md}.
 *
 * <p>With u ~ N(0, 1), t = u/z − 1/(2z²) and x = q(e^t − 1) (so E[x] = 0),
 * A_α − 1 = E[h(x)] with h(x) = (1 + x)^α − 1 − αx ≥ 0 (Mironov, Talwar &amp; Zhang 2019, §3, written
 * relative to the first-order term). The integrand is non-negative, so the sum has no cancellation and
 * A_α − 1 keeps full relative accuracy even when it is tiny. It is analytic in the strip |Im u| &lt; πz,
 * where the trapezoidal rule converges like e^{−2π·πz/η} in the step η (Trefethen &amp; Weideman 2014,
 * Thm 5.1): the step is halved from min(1, z) until two successive sums agree to {@value #HALVING_AGREEMENT}
 * relative, which under that law leaves an error below its square. The truncation to [−K, max(α, 2)/z + K]
 * is bounded analytically and must stay below 1e-15 relative.
 */
final class SgmQuadrature {
  /** Successive step halvings must agree to this relative difference. */
  static final double HALVING_AGREEMENT = 1e-7;
  /** At most this many integrand evaluations; beyond it the caller falls back to an upper bound. */
  static final int MAX_EVALUATIONS = 400_000;
  private static final int MAX_HALVINGS = 8;
  /** The integral runs over [−K, max(α, 2)/z + K], K = 12 first (Φ(−12) ≈ 2e-33), then 24, 48. */
  private static final double FIRST_K = 12;
  private static final double TAIL_TOLERANCE = 1e-15;
  private static final double LOG_SQRT_2PI = 0.5 * Math.log(2 * Math.PI);

  private final double q;
  private final double z;
  private final double alpha;
  private final double logQ;
  private final double log1mQ;

  private SgmQuadrature(double q, double z, double alpha) {
    this.q = q;
    this.z = z;
    this.alpha = alpha;
    this.logQ = Math.log(q);
    this.log1mQ = Math.log1p(-q);
  }

  /** log(A_α − 1) for 0 &lt; q &lt; 1, or empty if the rule did not settle within its budget. */
  static OptionalDouble logAMinusOne(double q, double z, double alpha) {
    return new SgmQuadrature(q, z, alpha).integrate();
  }

  /** Integrand evaluations of the first two sums (before any further halving). */
  static double firstPassEvaluations(double z, double alpha) {
    return 2 * (Math.max(alpha, 2) / z + 2 * FIRST_K) / initialStep(z);
  }

  private static double initialStep(double z) {
    return Math.min(1, z);
  }

  private OptionalDouble integrate() {
    for (double k = FIRST_K; k <= 4 * FIRST_K; k *= 2) {
      double lo = -k;
      double hi = Math.max(alpha, 2) / z + k;
      double eta = initialStep(z);
      if (!((hi - lo) / eta * 2 < MAX_EVALUATIONS)) {
        return OptionalDouble.empty();
      }
      OptionalDouble logI = trapezoid(lo, hi, eta);
      if (logI.isEmpty()) {
        return logI;
      }
      double logTails = LogSpace.add(leftTail(lo), rightTail(hi));
      if (logTails - logI.getAsDouble() < Math.log(TAIL_TOLERANCE)) {
        return logI;
      }
    }
    return OptionalDouble.empty();
  }

  /** log of the trapezoidal sum on [lo, hi], halving η until two sums agree; empty if they never do. */
  private OptionalDouble trapezoid(double lo, double hi, double eta) {
    // Nodes lo + kη; a halving adds the midpoints lo + (k + ½)η, so earlier sums are reused.
    double logSum = logNodeSum(lo, hi, eta, 0);
    double logPrevious = logSum + Math.log(eta);
    int evaluations = (int) ((hi - lo) / eta);
    for (int h = 0; h < MAX_HALVINGS; h++) {
      logSum = LogSpace.add(logSum, logNodeSum(lo, hi, eta, 0.5));
      eta /= 2;
      evaluations *= 2;
      double logCurrent = logSum + Math.log(eta);
      if (Double.isNaN(logCurrent) || logCurrent == Double.POSITIVE_INFINITY) {
        return OptionalDouble.empty();
      }
      if (logCurrent == Double.NEGATIVE_INFINITY
          || Math.abs(Math.expm1(logPrevious - logCurrent)) <= HALVING_AGREEMENT) {
        return OptionalDouble.of(logCurrent);
      }
      if (evaluations > MAX_EVALUATIONS) {
        return OptionalDouble.empty();
      }
      logPrevious = logCurrent;
    }
    return OptionalDouble.empty();
  }

  /** log Σ_k f(lo + (k + offset)η) over the nodes in [lo, hi], by a streaming log-sum-exp. */
  private double logNodeSum(double lo, double hi, double eta, double offset) {
    double max = Double.NEGATIVE_INFINITY;
    double sum = 0;
    long n = (long) Math.floor((hi - lo) / eta - offset);
    for (long k = 0; k <= n; k++) {
      double g = logIntegrand(lo + (k + offset) * eta);
      if (Double.isNaN(g)) {
        return Double.NaN;
      }
      if (g > max) {
        sum = sum * Math.exp(max - g) + 1;
        max = g;
      } else if (g > Double.NEGATIVE_INFINITY) {
        sum += Math.exp(g - max);
      }
    }
    return max == Double.NEGATIVE_INFINITY ? max : max + Math.log(sum);
  }

  /** log[φ(u) h(x(u))]. */
  double logIntegrand(double u) {
    double t = u / z - 1 / (2 * z * z);
    return -0.5 * u * u - LOG_SQRT_2PI + logH(t);
  }

  /**
   * log h(x) with x = q(e^t − 1) = e^ℓ − 1, accurate for tiny |x|, for α near 1 and beyond the range of
   * doubles. With β = α − 1, h = (1 + x)[e^{βℓ} − 1 − βℓ] + β[(1 + x)ℓ − x]: two non-negative terms, so
   * nothing cancels (the second is the Kullback–Leibler integrand).
   */
  private double logH(double t) {
    double x;
    double ell;
    if (t < 700) {
      x = q * Math.expm1(t);
      ell = Math.log1p(x);
    } else {
      // ℓ = log(1 − q + q e^t) = log q + t + log1p((1 − q) e^{−t}/q), without overflowing e^t.
      ell = logQ + t + Math.log1p(Math.exp(log1mQ - logQ - t));
      x = Math.expm1(ell);
    }
    if (x == 0) {
      return Double.NEGATIVE_INFINITY;
    }
    if (Math.abs(x) * alpha <= 0.5) {
      return 2 * Math.log(Math.abs(x)) + Math.log(binomialTail(x));
    }
    double beta = alpha - 1;
    return LogSpace.add(ell + logExpm1MinusLinear(beta * ell), Math.log(beta) + logKl(x, ell));
  }

  /** Σ_{k≥2} C(α, k) x^{k−2} for |αx| ≤ ½, where the terms shrink at least by ½ each. */
  private double binomialTail(double x) {
    double term = alpha * (alpha - 1) / 2;
    double sum = term;
    for (int k = 2; k < 200; k++) {
      term *= (alpha - k) / (k + 1) * x;
      sum += term;
      if (Math.abs(term) <= 1e-17 * Math.abs(sum)) {
        break;
      }
    }
    return sum;
  }

  /** log(e^v − 1 − v), with its Taylor series near 0 and without overflow for large v. */
  private static double logExpm1MinusLinear(double v) {
    if (v > 700) {
      return v + Math.log1p(-(1 + v) * Math.exp(-v));
    }
    if (Math.abs(v) >= 0.1) {
      return Math.log(Math.expm1(v) - v);
    }
    double term = v * v / 2;
    double sum = term;
    for (int n = 3; n < 30 && Math.abs(term) > 1e-18 * sum; n++) {
      term *= v / n;
      sum += term;
    }
    return Math.log(sum);
  }

  /** log[(1 + x) log(1 + x) − x] with ℓ = log(1 + x): Taylor series near 0, log form for large x. */
  private static double logKl(double x, double ell) {
    if (x >= 1) {
      // (1 + x)(ℓ − x/(1 + x)) = e^ℓ (ℓ − 1 + e^{−ℓ}); x may be +∞ here.
      return ell + Math.log(ell - 1 + Math.exp(-ell));
    }
    if (Math.abs(x) >= 0.1) {
      return Math.log((1 + x) * ell - x);
    }
    // Σ_{n≥2} (−1)^n x^n / (n(n − 1))
    double power = x * x;
    double sum = power / 2;
    for (int n = 3; n < 40; n++) {
      power *= -x;
      double term = power / (n * (n - 1.0));
      sum += term;
      if (Math.abs(term) <= 1e-18 * sum) {
        break;
      }
    }
    return Math.log(sum);
  }

  /**
   * log of a bound on ∫_{−∞}^{lo} φ h: x(u) ≤ x(lo) &lt; 0 there and h decreases on [−1, 0], so
   * h ≤ h(−q) = (1 − q)^α − 1 + αq ≤ αq.
   */
  private double leftTail(double lo) {
    return Math.log(alpha * q) + GaussianTail.logNormalCdf(lo);
  }

  /**
   * log of a bound on ∫_{hi}^∞ φ h: there x &gt; 0, h ≤ (1 + x)^α = (q e^t)^α (1 + r)^α with
   * r = (1 − q)e^{−t}/q ≤ r(hi), and ∫_{hi}^∞ φ(u) e^{αu/z} du = e^{α²/(2z²)} Φ(α/z − hi).
   */
  private double rightTail(double hi) {
    double tHi = hi / z - 1 / (2 * z * z);
    double logR = log1mQ - logQ - tHi;
    return alpha * logQ + alpha * Math.log1p(Math.exp(logR)) + alpha * (alpha - 1) / (2 * z * z)
        + GaussianTail.logNormalCdf(alpha / z - hi);
  }
}
