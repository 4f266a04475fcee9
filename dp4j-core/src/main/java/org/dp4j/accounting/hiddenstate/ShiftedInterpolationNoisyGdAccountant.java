package org.dp4j.accounting.hiddenstate;

import static com.google.common.base.Preconditions.checkArgument;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalDouble;
import org.dp4j.accounting.GaussianDp;
import org.dp4j.accounting.NeighbouringRelation;
import org.dp4j.accounting.Orders;
import org.dp4j.accounting.PrivacyGuarantee;
import org.dp4j.accounting.RdpConversion;
import org.dp4j.accounting.RdpCurve;

/**
 * Gaussian-DP of the last iterate of full-batch noisy gradient descent by shifted interpolation (Bok,
 * Su &amp; Altschuler 2024, ICML, Thm 4.1–4.3 and Thm C.7; docs/accountants.md#shifted-interpolation). μ is the minimum of
 * <ul>
 *   <li>Thm 4.1 (composition, no assumption on the loss): μ = (L/(nσ))·√t;</li>
 *   <li>Thm 4.2 (m-strongly convex, M-smooth, η &lt; 2/M, so c &lt; 1): μ =
 *       √((1−c^t)/(1+c^t)·(1+c)/(1−c))·L/(nσ), exact for η ≤ 2/(M+m);</li>
 *   <li>Thm 4.3 in its general form (Thm C.7; convex, M-smooth, η ≤ 2/M, projection onto a convex set
 *       of diameter D): μ = min_{1≤k≤t} (1/(ησ))·((ηL/n)√k + D/√k), whose value at k = ⌈Dn/(ηL)⌉ is
 *       the printed closed form √(3LD/(ηn) + (L/n)²⌈Dn/(ηL)⌉)/σ.</li>
 * </ul>
 * Update: X_{k+1} = Π_K(X_k − η((1/n)Σ_i ∇f_i(X_k) + Z_{k+1})), Z ~ N(0, σ²I) on the <em>averaged</em>
 * gradient; L is the gradient sensitivity (2C under clipping to C; docs/errata.md#shifted-interpolation-text), so with
 * the Opacus convention (noise zC on the sum) L/(nσ) = 2/z. Neighbours: replace one record. Threat
 * model: only X_t is released. Reported as μ, as (ε, δ) by the exact GDP conversion and as RDP αμ²/2.
 *
 * <pre>{@code
 * var acc = ShiftedInterpolationNoisyGdAccountant.builder()
 *     .n(10).L(1).sigma(1).eta(0.05).m(1).M(10).t(160).build();
 * double mu = acc.mu();                                                    // 0.6243
 * double eps = acc.guarantee(1e-5, Orders.DEFAULT, RdpConversion.IMPROVED).epsilon();   // 2.557
 * }</pre>
 */
public final class ShiftedInterpolationNoisyGdAccountant implements HiddenStateAccountant {
  public static final String NAME = "shifted-interpolation-gd";
  private static final String PAPER = "Bok, Su & Altschuler 2024";

  /** The theorem that attains {@link #mu()}. */
  public enum Bound {
    COMPOSITION_THM_4_1, STRONGLY_CONVEX_THM_4_2, CONSTRAINED_THM_4_3
  }

  private final long n;
  private final double bigL;
  private final double sigma;
  private final double eta;
  private final double m;
  private final double bigM;
  private final double bigD;
  private final long t;
  private final ShiftedInterpolationContraction contraction;

  private ShiftedInterpolationNoisyGdAccountant(Builder in, ShiftedInterpolationContraction contraction) {
    n = in.n;
    bigL = in.bigL;
    sigma = in.sigma;
    eta = in.eta;
    m = in.m;
    bigM = in.bigM;
    bigD = in.bigD;
    t = in.t;
    this.contraction = contraction;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The contraction factor c = max(|1−ηm|, |1−ηM|) (Lemma 2.8). */
  public double contractionFactor() {
    return contraction.c();
  }

  /** Thm 4.1: μ = (L/(nσ))·√t, valid for any losses and when every iterate is released. */
  public double muComposition() {
    return bigL / (n * sigma) * Math.sqrt(t);
  }

  /** Thm 4.2, when m &gt; 0 and η &lt; 2/M; empty otherwise. */
  public OptionalDouble muStronglyConvex() {
    if (!contraction.isStrict()) {
      return OptionalDouble.empty();
    }
    double c = contraction.c();
    double ratio = contraction.oneMinusPower(t) / (1 + contraction.power(t)) * (1 + c) / contraction.oneMinusC();
    return OptionalDouble.of(Math.sqrt(ratio) * bigL / (n * sigma));
  }

  /** Thm 4.3 general form (Thm C.7), minimised over k = t − τ ∈ [1, t]; empty without a constraint set. */
  public OptionalDouble muConstrained() {
    if (!Double.isFinite(bigD)) {
      return OptionalDouble.empty();
    }
    double s = eta * bigL / n;
    // s√k + D/√k is convex in k with its minimum at k = D/s
    double kStar = Math.min(Math.max(bigD / s, 1), t);
    double best = Math.min(shiftedCost(s, Math.floor(kStar)), shiftedCost(s, Math.ceil(kStar)));
    return OptionalDouble.of(best / (eta * sigma));
  }

  private double shiftedCost(double s, double k) {
    return s * Math.sqrt(k) + bigD / Math.sqrt(k);
  }

  /** The smallest applicable μ. */
  public double mu() {
    return Math.min(muComposition(), Math.min(muStronglyConvex().orElse(Double.POSITIVE_INFINITY),
        muConstrained().orElse(Double.POSITIVE_INFINITY)));
  }

  /** Which theorem attains {@link #mu()}. */
  public Bound tightestBound() {
    double mu = mu();
    if (muStronglyConvex().isPresent() && muStronglyConvex().getAsDouble() == mu) {
      return Bound.STRONGLY_CONVEX_THM_4_2;
    }
    if (muConstrained().isPresent() && muConstrained().getAsDouble() == mu) {
      return Bound.CONSTRAINED_THM_4_3;
    }
    return Bound.COMPOSITION_THM_4_1;
  }

  public String theorem() {
    return switch (tightestBound()) {
      case COMPOSITION_THM_4_1 -> PAPER + " Thm 4.1 (composition)";
      case STRONGLY_CONVEX_THM_4_2 -> PAPER + " Thm 4.2 (strongly convex noisy GD)";
      case CONSTRAINED_THM_4_3 -> PAPER + " Thm 4.3 / C.7 (constrained convex noisy GD, best τ)";
    };
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public NeighbouringRelation relation() {
    return NeighbouringRelation.REPLACE_ONE;
  }

  @Override
  public List<String> assumptions() {
    List<String> a = new ArrayList<>(ShiftedInterpolationAssumptions.common(bigL, sigma, eta, m, bigM, bigD));
    a.add("full-batch gradient (1/n)Σ_i ∇f_i at every step");
    return a;
  }

  @Override
  public RdpCurve rdp(Orders orders) {
    return GaussianDp.rdp(mu(), orders);
  }

  @Override
  public PrivacyGuarantee guarantee(double delta, Orders orders, RdpConversion conversion) {
    return GaussianDpGuarantee.of(this, theorem(), mu(), delta, orders, conversion);
  }

  /** Configuration; names are the paper's symbols (Bok, Su &amp; Altschuler 2024; docs/errata.md#shifted-interpolation-text). Required: n, L, sigma, eta, M, t. */
  public static final class Builder {
    private long n;
    private double bigL = Double.NaN;
    private double sigma = Double.NaN;
    private double eta = Double.NaN;
    private double m;
    private double bigM = Double.NaN;
    private double bigD = Double.POSITIVE_INFINITY;
    private long t;

    private Builder() {}

    /** n: dataset size. */
    public Builder n(long n) {
      this.n = n;
      return this;
    }

    /** L: gradient sensitivity sup ‖∇f(x) − ∇f'(x)‖ (2C with clipping to C; 2× a Lipschitz constant). */
    public Builder L(double bigL) {
      this.bigL = bigL;
      return this;
    }

    /** σ: std of the Gaussian added to the averaged gradient (the parameter noise is ησ). */
    public Builder sigma(double sigma) {
      this.sigma = sigma;
      return this;
    }

    /** η: constant step size. */
    public Builder eta(double eta) {
      this.eta = eta;
      return this;
    }

    /** m ≥ 0: strong-convexity constant of every f_i (default 0: convex). */
    public Builder m(double m) {
      this.m = m;
      return this;
    }

    /** M: smoothness constant of every f_i. */
    public Builder M(double bigM) {
      this.bigM = bigM;
      return this;
    }

    /** D: diameter of the constraint set (default +∞: unconstrained). */
    public Builder D(double bigD) {
      this.bigD = bigD;
      return this;
    }

    /** t: number of iterations. */
    public Builder t(long t) {
      this.t = t;
      return this;
    }

    public ShiftedInterpolationNoisyGdAccountant build() {
      checkArgument(n >= 1, "n (dataset size) must be >= 1, was %s", n);
      checkArgument(t >= 1, "t (iterations) must be >= 1, was %s", t);
      ShiftedInterpolationAssumptions.check(bigL, sigma, bigD);
      return new ShiftedInterpolationNoisyGdAccountant(this, ShiftedInterpolationContraction.of(eta, m, bigM));
    }
  }
}
