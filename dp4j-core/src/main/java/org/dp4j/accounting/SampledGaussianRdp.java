package org.dp4j.accounting;

import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.OptionalDouble;

/**
 * Rényi DP of one step of the sampled Gaussian mechanism (SGM): each record is included independently
 * with probability q (Poisson sampling), the clipped sum has sensitivity 1 under add/remove neighbours,
 * and Gaussian noise of standard deviation z (the noise multiplier) is added.
 *
 * <p><b>Theorem</b> (Mironov, Talwar &amp; Zhang 2019, §3): the SGM is (α, ε(α))-RDP with
 * ε(α) = log(A_α)/(α − 1), A_α = E_{x~N(0,z²)}[((1 − q) + q·e^{(2x−1)/(2z²)})^α], which bounds both
 * directions of the Rényi divergence.
 *
 * <p><b>Method</b> (derivations and error bounds in {@code docs/accounting-sgm-rdp.md}):
 * <ul>
 *   <li>q = 0: 0; q = 1: α/(2z²); α = +∞: +∞.</li>
 *   <li>Integer α ≤ {@value #MAX_BINOMIAL_ORDER}: the finite binomial sum (MTZ19 §3.2), written as
 *       A_α − 1 = Σ_{k≥2} C(α,k) q^k (1−q)^{α−k} (e^{(k²−k)/(2z²)} − 1), positive terms in log space.</li>
 *   <li>Fractional α (and integers above that): the trapezoidal rule on A_α − 1 = E[(1 + x)^α − 1 − αx]
 *       (x = q(e^t − 1), a non-negative integrand) in log space, for every q; or, where α/z is large and q
 *       small, the signed series of MTZ19 §3.3 (which diverges in practice for q ≥ ½). The cheaper is tried
 *       first.</li>
 *   <li>Where neither settles (when the quadrature would need over 4·10⁵ integrand evaluations, about
 *       2α/(z·min(1, z)), and q is too large for the series; or 1/(2z²) beyond the doubles), a valid
 *       <em>upper bound</em>: log A_α is convex in α and log A_1 = 0, so
 *       log A_α ≤ (1 − θ) log A_⌊α⌋ + θ log A_⌈α⌉ (θ = α − ⌊α⌋); and Jensen's
 *       A_α ≤ (1 − q) + q e^{α(α−1)/(2z²)}. The smaller applies; {@link #evaluate} says which.</li>
 * </ul>
 *
 * <p><b>Accuracy and domain.</b> Every q in [0, 1], finite z &gt; 0 and α &gt; 1 (or +∞) gives a number
 * ≥ 0 or +∞: never NaN, never an exception. Exact values are within 1e-10 relative by construction
 * (quadrature: successive step halvings agree to 1e-7, so the error is about their square, truncation
 * bounded below 1e-15; series: a rounding and truncation bound below 1e-10) and within 3e-15 of 40-digit
 * mpmath values at 369 tested points (q from 256/60000 to 1, z from ½ to 10, α from 1.001 to 1000.5; the
 * tests require 1e-9). Upper bounds are never below the exact value. +∞ is returned only when the
 * exact value exceeds the largest double (e.g. z = 1e-308).
 *
 * <pre>{@code
 * double r = SampledGaussianRdp.rdp(0.5, 1.0, 1.5);               // 0.235158..., exact
 * SampledGaussianRdp.Evaluation e = SampledGaussianRdp.evaluate(0.5, 1.0, 1.5);
 * boolean exact = e.isExact();                                    // true (Method.QUADRATURE)
 * RdpCurve step = SampledGaussianRdp.curve(256.0 / 60000, 1.1, Orders.DEFAULT);
 * }</pre>
 */
public final class SampledGaussianRdp {
  /** Integer orders up to this use the exact binomial sum (it costs one term per unit of α). */
  public static final int MAX_BINOMIAL_ORDER = 1 << 16;

  /** How a value was obtained. */
  public enum Method {
    /** q = 0, q = 1 or α = +∞. */
    CLOSED_FORM(true),
    /** Integer α: the finite binomial sum. */
    BINOMIAL_SUM(true),
    /** Fractional (or very large) α: the MTZ19 §3.3 series. */
    SERIES(true),
    /** Fractional (or very large) α: the trapezoidal rule on the defining expectation. */
    QUADRATURE(true),
    /** Upper bound: log-convex interpolation between the integer orders ⌊α⌋ and ⌈α⌉. */
    INTEGER_ORDER_INTERPOLATION(false),
    /** Upper bound: Jensen's inequality, A_α ≤ (1 − q) + q e^{α(α−1)/(2z²)}. */
    JENSEN_BOUND(false);

    private final boolean exact;

    Method(boolean exact) {
      this.exact = exact;
    }
  }

  /**
   * A value of the RDP and how it was obtained: exact (to the accuracy stated in the class comment) or a
   * valid upper bound.
   */
  public record Evaluation(double value, Method method) {
    /** False when {@link #value()} is only an upper bound on the exact RDP. */
    public boolean isExact() {
      return method.exact;
    }
  }

  private SampledGaussianRdp() {}

  /**
   * RDP of one SGM step at order α: exact, or an upper bound where it cannot be computed (see the class
   * comment); ≥ 0 or +∞, never NaN.
   *
   * @param q sampling probability in [0, 1]
   * @param z noise multiplier (noise std / sensitivity), finite and &gt; 0
   * @param alpha Rényi order &gt; 1, or +∞
   * @throws IllegalArgumentException if an argument is outside that domain (the message names it)
   */
  public static double rdp(double q, double z, double alpha) {
    return evaluate(q, z, alpha).value();
  }

  /** Like {@link #rdp} but also says whether the value is exact or an upper bound, and by which method. */
  public static Evaluation evaluate(double q, double z, double alpha) {
    checkArgument(q >= 0 && q <= 1, "sampling rate q must be in [0, 1], was %s", q);
    checkArgument(z > 0 && Double.isFinite(z), "noise multiplier must be finite and > 0, was %s", z);
    checkArgument(alpha > 1, "Rényi order must be > 1 (or +Infinity), was %s", alpha);
    if (q == 0) {
      return new Evaluation(0, Method.CLOSED_FORM);
    }
    if (alpha == Double.POSITIVE_INFINITY) {
      return new Evaluation(Double.POSITIVE_INFINITY, Method.CLOSED_FORM);
    }
    if (q == 1) {
      return new Evaluation(alpha / (2 * z * z), Method.CLOSED_FORM);
    }
    if (1 / (2 * z * z) == Double.POSITIVE_INFINITY) {
      // Then A_α ≥ q^α e^{α(α−1)/(2z²)} and the RDP ≥ α/(2z²) + α log q/(α − 1) is beyond the doubles.
      return new Evaluation(Double.POSITIVE_INFINITY, Method.JENSEN_BOUND);
    }
    if (alpha == Math.rint(alpha) && alpha <= MAX_BINOMIAL_ORDER) {
      return exact(fromLogAMinusOne(logAMinusOneInteger(q, z, (int) alpha)), alpha, Method.BINOMIAL_SUM);
    }
    // Fractional α, or an integer beyond the binomial sums. Both methods are exact; the cheaper goes first:
    // the quadrature costs ~ 2(α/z)/min(1, z) integrand evaluations, the series at most a few hundred terms.
    boolean quadratureFirst = SgmQuadrature.firstPassEvaluations(z, alpha) <= SgmSeries.MAX_TERMS;
    OptionalDouble first = quadratureFirst ? quadratureLogA(q, z, alpha) : SgmSeries.logA(q, z, alpha);
    if (first.isPresent()) {
      return exact(first.getAsDouble(), alpha, quadratureFirst ? Method.QUADRATURE : Method.SERIES);
    }
    OptionalDouble second = quadratureFirst ? SgmSeries.logA(q, z, alpha) : quadratureLogA(q, z, alpha);
    if (second.isPresent()) {
      return exact(second.getAsDouble(), alpha, quadratureFirst ? Method.SERIES : Method.QUADRATURE);
    }
    return upperBound(q, z, alpha);
  }

  /** RDP of one SGM step at every order (each value exact or an upper bound, see {@link #rdp}). */
  public static RdpCurve curve(double q, double z, Orders orders) {
    return RdpCurve.tabulate(orders, a -> rdp(q, z, a));
  }

  private static Evaluation exact(double logA, double alpha, Method method) {
    return new Evaluation(Math.max(0, logA / (alpha - 1)), method);
  }

  private static OptionalDouble quadratureLogA(double q, double z, double alpha) {
    OptionalDouble logAMinusOne = SgmQuadrature.logAMinusOne(q, z, alpha);
    return logAMinusOne.isPresent() ? OptionalDouble.of(fromLogAMinusOne(logAMinusOne.getAsDouble())) : logAMinusOne;
  }

  /** log A from log(A − 1): log(1 + e^{log(A−1)}). */
  private static double fromLogAMinusOne(double logAMinusOne) {
    return LogSpace.add(0, logAMinusOne);
  }

  /**
   * log(A_α − 1) = logsumexp_{k≥2} [log C(α,k) + k log q + (α−k) log(1−q) + log(e^{(k²−k)/(2z²)} − 1)]
   * (MTZ19 §3.2 minus the binomial identity Σ_k C(α,k) q^k (1−q)^{α−k} = 1).
   */
  static double logAMinusOneInteger(double q, double z, int alpha) {
    double[] terms = new double[alpha - 1];
    double logQ = Math.log(q);
    double log1mQ = Math.log1p(-q);
    // log C(α, k) by the recurrence C(α, k) = C(α, k−1)(α − k + 1)/k: one log per term instead of three
    // log-gammas; the accumulated error stays below 1e-12 absolute for α ≤ MAX_BINOMIAL_ORDER.
    double logBinom = Math.log(alpha);
    for (int k = 2; k <= alpha; k++) {
      logBinom += Math.log((alpha - k + 1) / (double) k);
      terms[k - 2] = logBinom + k * logQ + (alpha - k) * log1mQ + logExpm1((k * (double) k - k) / (2 * z * z));
    }
    return LogSpace.sumExp(terms);
  }

  /** log(e^x − 1) for x ≥ 0, without overflow for large x. */
  private static double logExpm1(double x) {
    return x > 30 ? x + Math.log1p(-Math.exp(-x)) : Math.log(Math.expm1(x));
  }

  /**
   * A valid upper bound where no exact method settles: the smaller of the integer-order interpolation
   * (where the integer orders are within the binomial sums' range) and Jensen's bound.
   */
  private static Evaluation upperBound(double q, double z, double alpha) {
    double jensen = jensenBound(q, z, alpha);
    if (Math.floor(alpha) + 1 <= MAX_BINOMIAL_ORDER) {
      double interpolated = integerOrderInterpolation(q, z, alpha);
      if (interpolated < jensen) {
        return new Evaluation(interpolated, Method.INTEGER_ORDER_INTERPOLATION);
      }
    }
    return new Evaluation(jensen, Method.JENSEN_BOUND);
  }

  /**
   * α ↦ log A_α is convex (Hölder's inequality), so log A_α ≤ (1 − θ) log A_⌊α⌋ + θ log A_⌊α⌋+1 with
   * θ = α − ⌊α⌋ and log A_1 = 0; for ⌊α⌋ + 1 ≤ {@value #MAX_BINOMIAL_ORDER}.
   */
  static double integerOrderInterpolation(double q, double z, double alpha) {
    double floor = Math.floor(alpha);
    double theta = alpha - floor;
    double logFloor = floor < 2 ? 0 : fromLogAMinusOne(logAMinusOneInteger(q, z, (int) floor));
    double logCeil = fromLogAMinusOne(logAMinusOneInteger(q, z, (int) floor + 1));
    return Math.max(0, ((1 - theta) * logFloor + theta * logCeil) / (alpha - 1));
  }

  /**
   * Jensen's inequality for the convex y ↦ y^α: A_α ≤ (1 − q) + q e^{c}, c = α(α−1)/(2z²), so
   * RDP ≤ α/(2z²) + log(q + (1 − q)e^{−c})/(α − 1), never above the unsampled α/(2z²).
   */
  static double jensenBound(double q, double z, double alpha) {
    double c = alpha * ((alpha - 1) / (2 * z * z));
    double value = alpha / (2 * z * z) + Math.log(q + (1 - q) * Math.exp(-c)) / (alpha - 1);
    return Math.max(0, value);
  }
}
