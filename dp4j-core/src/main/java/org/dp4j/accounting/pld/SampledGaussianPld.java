package org.dp4j.accounting.pld;

import static com.google.common.base.Preconditions.checkNotNull;
import static org.dp4j.InvalidSettingException.checkArgument;

import org.apache.commons.math3.special.Erf;

/**
 * Discretised privacy-loss distribution of one step of the Poisson-subsampled Gaussian mechanism
 * (sensitivity 1, noise multiplier σ, sampling rate q; q = 1 is the plain Gaussian), under add/remove
 * neighbours, in either {@link LossDirection}.
 *
 * <p>Loss (remove direction): L(x) = log(1 − q + q·e^{(2x−1)/(2σ²)}), X ~ (1 − q)N(0, σ²) + qN(1, σ²);
 * add direction: −L(x), X ~ N(0, σ²) (Koskela, Jälkö &amp; Honkela 2020, §6; Zhu, Dong &amp; Wang 2022,
 * §5). The loss is monotone in x, so each grid bin [kΔ, (k+1)Δ] is an x-interval.
 *
 * <p>Discretisation, bin by bin (the contract of {@link PrivacyLossPmf}):
 * <ul>
 *   <li>x is truncated to [x_lo, x_hi] = [min mean − σz, max mean + σz] with z = √(2 ln(1/(2τ))), so
 *       each tail holds at most τ (Φ(−z) ≤ ½e^{−z²/2}); the mass above x_hi goes to +∞, the mass
 *       below x_lo is moved to the upper grid point of the lowest bin (pessimistic, counted in
 *       {@code pessimisticMass});
 *   <li>every bin's mass M is split between its two grid points as M(1 − θ) at kΔ and Mθ at
 *       (k+1)Δ with θ = E[Y − kΔ | bin]/Δ, which keeps the conditional mean (Gopi, Lee &amp; Wutschitz
 *       2021, §5). M and θ come from composite 4-point Gauss–Legendre quadrature in x on pieces at most
 *       σ/4 wide, where the integrands are smooth in x (the loss is analytic in x; tests check the
 *       mean against the KL divergence from 30-digit quadrature to 1e-9 relative).
 *   <li>a quadrature shortfall of total mass (1 − Σ) is added to the +∞ atom, so mass is never lost.
 * </ul>
 *
 * <pre>{@code
 * PrivacyLossPmf p = SampledGaussianPld.pmf(0.01, 1.0, LossDirection.REMOVE, 1e-4, 1e-20);
 * }</pre>
 */
final class SampledGaussianPld {
  /** Refuse single-step grids larger than this (the interval is then far too fine). */
  public static final int MAX_BINS = 1 << 25;
  private static final double[] GL_NODES = {-0.8611363115940526, -0.3399810435848563, 0.3399810435848563,
      0.8611363115940526};
  private static final double[] GL_WEIGHTS = {0.3478548451374538, 0.6521451548625461, 0.6521451548625461,
      0.3478548451374538};
  private static final double MAX_PIECE_IN_SIGMAS = 0.25;

  private final double q;
  private final double sigma;
  private final LossDirection direction;
  private final double[] weights;
  private final double[] means;

  private SampledGaussianPld(double q, double sigma, LossDirection direction) {
    this.q = q;
    this.sigma = sigma;
    this.direction = direction;
    // In the variable v (v = x for REMOVE, v = −x for ADD) the loss is increasing.
    if (direction == LossDirection.REMOVE) {
      weights = q == 1 ? new double[] {1} : new double[] {1 - q, q};
      means = q == 1 ? new double[] {1} : new double[] {0, 1};
    } else {
      weights = new double[] {1};
      means = new double[] {0};
    }
  }

  /**
   * The discretised PLD of one step.
   *
   * @param q sampling rate in (0, 1]
   * @param sigma noise multiplier &gt; 0
   * @param direction remove or add
   * @param interval grid spacing Δ &gt; 0
   * @param tailMass τ in (0, 1e-3]: mass allowed in each truncated tail of x
   */
  public static PrivacyLossPmf pmf(double q, double sigma, LossDirection direction, double interval,
      double tailMass) {
    checkArgument(q > 0 && q <= 1, "sampling rate q must be in (0, 1], was %s", q);
    checkArgument(sigma > 0 && Double.isFinite(sigma), "noise multiplier must be finite and > 0, was %s", sigma);
    checkNotNull(direction, "direction");
    checkArgument(interval > 0 && Double.isFinite(interval), "interval must be finite and > 0, was %s", interval);
    checkArgument(tailMass > 0 && tailMass <= 1e-3, "tail mass must be in (0, 1e-3], was %s", tailMass);
    return new SampledGaussianPld(q, sigma, direction).discretise(interval, tailMass);
  }

  private PrivacyLossPmf discretise(double interval, double tailMass) {
    double z = Math.sqrt(2 * Math.log(1 / (2 * tailMass)));
    double vLo = min(means) - sigma * z;
    double vHi = max(means) + sigma * z;
    double yLo = loss(vLo);
    double yHi = loss(vHi);
    long kLo = (long) Math.floor(yLo / interval);
    long kHi = (long) Math.ceil(yHi / interval);
    if (kHi == kLo) {
      kHi++;
    }
    if (kHi - kLo >= MAX_BINS) {
      throw new GridTooFineException(String.format("interval %s is too fine: one step would need %d grid points "
          + "(max %d)", interval, kHi - kLo + 1, MAX_BINS));
    }
    int n = (int) (kHi - kLo) + 1;
    double[] p = new double[n];
    double lowerTail = lowerTail(vLo);
    double upperTail = upperTail(vHi);
    double total = lowerTail;
    double totalCompensation = 0; // Kahan summation: the mass deficit must not be rounding noise
    // The lower tail (x below x_lo) is moved up to the top of the lowest bin: pessimistic.
    double pessimistic = lowerTail;
    p[1] += lowerTail;
    double vA = vLo;
    for (int i = 0; i < n - 1; i++) {
      long k = kLo + i;
      double vB = k + 1 == kHi ? vHi : Math.min(vHi, Math.max(vA, inverseLoss((k + 1) * interval)));
      double[] massShare = massAndShare(vA, vB, k * interval, interval);
      double mass = massShare[0];
      double yk = mass - totalCompensation;
      double sum = total + yk;
      totalCompensation = (sum - total) - yk;
      total = sum;
      p[i] += mass * (1 - massShare[1]);
      p[i + 1] += mass * massShare[1];
      vA = vB;
    }
    double infinity = Math.min(1, Math.max(upperTail, 1 - total));
    return new PrivacyLossPmf(interval, kLo, p, infinity, Math.min(1, pessimistic));
  }

  /** {mass, θ} of the x-interval [vA, vB] whose losses lie in [y0, y0 + Δ]. */
  private double[] massAndShare(double vA, double vB, double y0, double interval) {
    if (!(vB > vA)) {
      return new double[] {0, 0};
    }
    int pieces = (int) Math.ceil((vB - vA) / (MAX_PIECE_IN_SIGMAS * sigma));
    double width = (vB - vA) / pieces;
    double mass = 0;
    double moment = 0;
    for (int j = 0; j < pieces; j++) {
      double mid = vA + (j + 0.5) * width;
      for (int g = 0; g < GL_NODES.length; g++) {
        double v = mid + 0.5 * width * GL_NODES[g];
        double w = GL_WEIGHTS[g] * 0.5 * width * density(v);
        mass += w;
        moment += w * Math.min(interval, Math.max(0, loss(v) - y0));
      }
    }
    double share = mass > 0 ? Math.min(1, Math.max(0, moment / (mass * interval))) : 0;
    return new double[] {mass, share};
  }

  /** The loss at v (increasing). */
  private double loss(double v) {
    return direction == LossDirection.REMOVE ? removeLoss(v) : -removeLoss(-v);
  }

  private double inverseLoss(double y) {
    return direction == LossDirection.REMOVE ? inverseRemoveLoss(y) : -inverseRemoveLoss(-y);
  }

  /** L(x) = log(1 − q + q·e^a), a = (2x − 1)/(2σ²), without overflow. */
  private double removeLoss(double x) {
    double a = (2 * x - 1) / (2 * sigma * sigma);
    if (q == 1) {
      return a;
    }
    return a > 0 ? a + Math.log(q + (1 - q) * Math.exp(-a)) : Math.log1p(q * Math.expm1(a));
  }

  /** x with L(x) = y, for y &gt; log(1 − q). */
  private double inverseRemoveLoss(double y) {
    double a;
    if (q == 1) {
      a = y;
    } else if (y > 0) {
      a = y + Math.log1p(-(1 - q) * Math.exp(-y)) - Math.log(q);
    } else {
      double e = Math.expm1(y) + q;
      a = e > 0 ? Math.log(e) - Math.log(q) : Double.NEGATIVE_INFINITY;
    }
    return sigma * sigma * a + 0.5;
  }

  private double density(double v) {
    double s = 0;
    for (int c = 0; c < weights.length; c++) {
      double t = (v - means[c]) / sigma;
      s += weights[c] * Math.exp(-0.5 * t * t);
    }
    return s / (sigma * Math.sqrt(2 * Math.PI));
  }

  private double lowerTail(double v) {
    double s = 0;
    for (int c = 0; c < weights.length; c++) {
      s += weights[c] * 0.5 * Erf.erfc(-(v - means[c]) / (sigma * Math.sqrt(2)));
    }
    return s;
  }

  private double upperTail(double v) {
    double s = 0;
    for (int c = 0; c < weights.length; c++) {
      s += weights[c] * 0.5 * Erf.erfc((v - means[c]) / (sigma * Math.sqrt(2)));
    }
    return s;
  }

  private static double min(double[] xs) {
    double m = Double.POSITIVE_INFINITY;
    for (double x : xs) {
      m = Math.min(m, x);
    }
    return m;
  }

  private static double max(double[] xs) {
    double m = Double.NEGATIVE_INFINITY;
    for (double x : xs) {
      m = Math.max(m, x);
    }
    return m;
  }
}
