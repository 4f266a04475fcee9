package org.dp4j.accounting.hiddenstate;

import static com.google.common.base.Preconditions.checkNotNull;
import static org.dp4j.InvalidSettingException.checkArgument;
import static org.dp4j.accounting.hiddenstate.Hypotheses.checkPositive;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalDouble;
import org.dp4j.accounting.Orders;
import org.dp4j.accounting.PrivacyGuarantee;
import org.dp4j.accounting.RdpConversion;

/**
 * Last-iterate Rényi DP of cyclically traversed DP-SGD on m-weakly convex, M-smooth composite losses
 * (Kong &amp; Ribero 2025, arXiv 2407.05237v3, Thm 2.2 eq. (16) and Thm 2.3 eqs. (17)/(19);
 * docs/accountants.md#kong-ribero; docs/errata.md#kong-ribero-theorem-2-3, #kong-ribero).
 *
 * <p>Mechanism (Algorithm 1): k records in a fixed order, ℓ = k/b disjoint batches of size b visited
 * cyclically, per-example gradients clipped to C and averaged, X_t = prox_{λh}(X_{t−1} − λ g_t + N_t)
 * with N_t ~ N(0, σ² I) <em>on the parameters</em> (with noise N(0, z²C²) on the clipped sum,
 * σ = λzC/b; docs/accountants.md#kong-ribero). Neighbours: replace one record. Threat model: only X_T is released.
 *
 * <p>All bounds are linear in α, ε(α) = ρ·α; {@link #rho()} is the minimum of the bounds in force:
 * <ul>
 *   <li>Thm 2.3, with clipping (17): ρ = 4r²[1 + E·θ_{√2L_λ}(ℓ)], λ ≤ 1/(2(m+M)); without clipping
 *       (19), under an a-priori gradient bound ‖∇f_i‖ ≤ C on dom h: ρ = 4r²[1 + E·θ_{L_λ}(ℓ)],
 *       λ ≤ 1/(m+M); r = λC/(bσ), E = ⌈T/ℓ⌉;</li>
 *   <li>Thm 2.2 when dom h has finite diameter d_h: ρ = (L·d_h + 2λC/b)²/(2σ²) with L = √2·L_λ when
 *       clipping (erratum E3; the printed L_λ only behind {@link Builder#theorem22AsPrinted});</li>
 *   <li>optionally the worst-case-position refinement ρ = 2r²[1 + (E−1)θ(ℓ)] (Kong &amp; Ribero 2025; docs/errata.md#kong-ribero-theorem-2-3,
 *       [DERIVED], not in the paper; {@link Builder#refinedWorstCase}).</li>
 * </ul>
 * L_λ is the conservative constant √(1 + 2λm[1 + m/(M+m)]) by default (erratum E1); the printed (13)
 * is available as {@link LipschitzVariant#PRINTED_EQ13}.
 *
 * <pre>{@code
 * KongRiberoAccountant acc = KongRiberoAccountant.builder()
 *     .datasetSize(10).batchSize(2).iterations(23).stepSize(0.1).clipNorm(1).noiseStd(0.5).weakConvexity(1)
 *     .smoothness(1).build();
 * double eps2 = acc.rdp(Orders.of(2)).value(0);          // 0.3282 (eq. 17, conservative L_λ)
 * PrivacyGuarantee g = acc.guarantee(1e-5, Orders.DEFAULT, RdpConversion.IMPROVED);
 * }</pre>
 */
public final class KongRiberoAccountant extends LinearRdpAccountant {
  public static final String NAME = "kong-ribero";
  private static final String PAPER = "Kong & Ribero 2025 (arXiv 2407.05237v3)";

  /** Which Lipschitz factor L_λ of the prox-linear operator to use (Kong &amp; Ribero 2025; docs/accountants.md#kong-ribero; docs/errata.md#kong-ribero-lipschitz). */
  public enum LipschitzVariant {
    /** L_λ = √(1 + 2λm[1 + m/(M+m)]): what the proof of Lemma A.7 supports. The default. */
    CONSERVATIVE(1),
    /** L_λ = √(1 + 2λm[1 + m/(2(M+m))]), eq. (13) as printed: reproduces the paper. */
    PRINTED_EQ13(2);

    private final double denominatorFactor;

    LipschitzVariant(double denominatorFactor) {
      this.denominatorFactor = denominatorFactor;
    }
  }

  /** How per-example gradients enter the step. */
  public enum Gradients {
    /** Clip_C per example (Prop 2.1(b), eq. (17)); needs λ ≤ 1/(2(m+M)). The default. */
    CLIPPED,
    /**
     * No clipping, justified by an a-priori bound ‖∇f_i(x)‖ ≤ C for every record and every x ∈ dom h
     * (condition (18), Prop 2.1(c), eq. (19)); needs λ ≤ 1/(m+M). Cannot be certified at run time
     * (docs/accountants.md#kong-ribero): the user asserts it.
     */
    UNCLIPPED_BOUNDED
  }

  /** The bound that attains {@link #rho()}. */
  public enum Bound {
    CYCLIC_THM_2_3, BOUNDED_DOMAIN_THM_2_2, REFINED_WORST_CASE
  }

  private final long k;
  private final long b;
  private final long bigT;
  private final double lambda;
  private final double bigC;
  private final double sigma;
  private final double m;
  private final double bigM;
  private final double dh;
  private final Gradients gradients;
  private final LipschitzVariant variant;
  private final boolean theorem22AsPrinted;
  private final boolean refinedWorstCase;

  private KongRiberoAccountant(Builder in) {
    super(NAME);
    k = in.k;
    b = in.b;
    bigT = in.bigT;
    lambda = in.lambda;
    bigC = in.bigC;
    sigma = in.sigma;
    m = in.m;
    bigM = in.bigM;
    dh = in.dh;
    gradients = in.gradients;
    variant = in.variant;
    theorem22AsPrinted = in.theorem22AsPrinted;
    refinedWorstCase = in.refinedWorstCase;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** ℓ = k/b, batches per pass. */
  public long batchesPerEpoch() {
    return k / b;
  }

  /** E = ⌈T/ℓ⌉: a partial pass counts as a full one (Thm 2.3; docs/threat-models.md#budget-halting). */
  public long epochs() {
    long ell = batchesPerEpoch();
    return (bigT + ell - 1) / ell;
  }

  /** L_λ, eq. (13) or its conservative form (erratum E1); 1 when m = 0. */
  public double lipschitzFactor() {
    return Math.sqrt(1 + lambdaSquaredMinusOne());
  }

  private double lambdaSquaredMinusOne() {
    // Guard the 0/0 at m = M = 0 (docs/accountants.md#kong-ribero): m = 0 means L_λ = 1.
    return m == 0 ? 0 : 2 * lambda * m * (1 + m / (variant.denominatorFactor * (bigM + m)));
  }

  /** L² − 1 for the operator's Lipschitz constant L: √2·L_λ when clipping (Prop 2.1(b)), else L_λ. */
  private double operatorSquaredMinusOne() {
    double q = lambdaSquaredMinusOne();
    return gradients == Gradients.CLIPPED ? 1 + 2 * q : q;
  }

  /** r = λC/(bσ), the per-use sensitivity 2λC/b over 2σ. */
  private double r() {
    return lambda * bigC / (b * sigma);
  }

  /** Thm 2.3: ρ = 4r²[1 + E·θ_L(ℓ)], eq. (17) (clipped, L = √2L_λ) or (19) (unclipped, L = L_λ). */
  public double rhoCyclic() {
    double r = r();
    return 4 * r * r * (1 + epochs() * theta(operatorSquaredMinusOne(), batchesPerEpoch()));
  }

  /**
   * Thm 2.2 eq. (16): ρ = (L·d_h + 2λC/b)²/(2σ²), independent of T; empty when dom h is unbounded.
   * L = √2·L_λ with clipping (erratum E3) unless the printed L_λ was requested; L_λ without clipping.
   */
  public OptionalDouble rhoBoundedDomain() {
    if (!Double.isFinite(dh)) {
      return OptionalDouble.empty();
    }
    double factor = gradients == Gradients.CLIPPED && !theorem22AsPrinted
        ? Math.sqrt(2 * (1 + lambdaSquaredMinusOne()))
        : lipschitzFactor();
    double shift = factor * dh + 2 * lambda * bigC / b;
    return OptionalDouble.of(shift * shift / (2 * sigma * sigma));
  }

  /**
   * [DERIVED] worst case over the position of the differing record: ρ = 2r²[1 + (E−1)θ_L(ℓ)]
   * (Kong &amp; Ribero 2025; docs/errata.md#kong-ribero-theorem-2-3, from Prop A.5(a) without the factor-2 slack of E2); never above {@link #rhoComposition}.
   */
  public double rhoRefinedWorstCase() {
    double r = r();
    return 2 * r * r * (1 + (epochs() - 1) * theta(operatorSquaredMinusOne(), batchesPerEpoch()));
  }

  /**
   * Swap-model composition baseline ρ = 2E·r²: each of the ≤ E steps that use the differing record
   * is a Gaussian mechanism with sensitivity 2λC/b (Kong &amp; Ribero 2025; docs/errata.md#kong-ribero-theorem-2-3; docs/accountants.md#kong-ribero). Valid when every iterate is
   * released and needs no smoothness.
   */
  @Override
  public double rhoComposition() {
    double r = r();
    return 2 * epochs() * r * r;
  }

  /** The minimum of the bounds in force (see class Javadoc); ε(α) = ρα. */
  @Override
  public double rho() {
    double best = rhoCyclic();
    if (rhoBoundedDomain().isPresent()) {
      best = Math.min(best, rhoBoundedDomain().getAsDouble());
    }
    return refinedWorstCase ? Math.min(best, rhoRefinedWorstCase()) : best;
  }

  /** Which bound attains {@link #rho()}. */
  public Bound tightestBound() {
    double best = rho();
    if (refinedWorstCase && rhoRefinedWorstCase() == best) {
      return Bound.REFINED_WORST_CASE;
    }
    if (rhoBoundedDomain().isPresent() && rhoBoundedDomain().getAsDouble() == best) {
      return Bound.BOUNDED_DOMAIN_THM_2_2;
    }
    return Bound.CYCLIC_THM_2_3;
  }

  /**
   * θ_L(s) = L^{2(s−1)}/Σ_{j<s} L^{2j} = (1 − L^{−2})/(1 − L^{−2s}) (eq. (15)), from q = L² − 1 ≥ 0
   * in expm1/log1p form so that large s cannot overflow (docs/errata.md#kong-ribero-other).
   */
  static double theta(double lSquaredMinusOne, long s) {
    if (s == 0) {
      return 0;
    }
    if (lSquaredMinusOne == 0) {
      return 1.0 / s;
    }
    double u = Math.log1p(lSquaredMinusOne);
    return Math.expm1(-u) / Math.expm1(-u * s);
  }

  /** The result {@link #rho()} rests on. */
  @Override
  public String theorem() {
    return switch (tightestBound()) {
      case CYCLIC_THM_2_3 -> PAPER + " Thm 2.3 eq. " + (gradients == Gradients.CLIPPED ? "(17)" : "(19)")
          + ", L_λ " + variantLabel();
      case BOUNDED_DOMAIN_THM_2_2 -> PAPER + " Thm 2.2 eq. (16), "
          + (theorem22AsPrinted ? "as printed" : "√2·L_λ when clipped (erratum E3)") + ", L_λ " + variantLabel();
      case REFINED_WORST_CASE -> PAPER + " Prop A.5(a), worst position of the differing record"
          + " (Kong & Ribero 2025; docs/errata.md#kong-ribero-theorem-2-3 [DERIVED]), L_λ " + variantLabel();
    };
  }

  private String variantLabel() {
    return variant == LipschitzVariant.CONSERVATIVE ? "conservative (erratum E1)" : "as printed eq. (13)";
  }

  @Override
  public List<String> assumptions() {
    List<String> a = new ArrayList<>(List.of(
        String.format("every f_i (and every possible replacement record) is m-weakly convex and M-smooth"
            + " on dom h with m = %s, M = %s (A2, A3; user-asserted, a ReLU network is not smooth)", m, bigM),
        "h is convex, proper and lower-semicontinuous and enters only as prox_{λh} after the noise (A1)",
        String.format("fixed data-independent cyclic order of ℓ = %d disjoint batches of size b = %d;"
            + " no reshuffling, no short batch", batchesPerEpoch(), b),
        "constant stepsize λ and plain (prox-)SGD steps: no momentum, Adam or learning-rate schedule",
        "fresh noise N(0, σ²I) added to every parameter coordinate at every step; X_0 data-independent",
        "T fixed in advance or chosen by a data-independent rule; only X_T leaves the trainer"));
    if (gradients == Gradients.UNCLIPPED_BOUNDED) {
      a.add(String.format("‖∇f_i(x)‖ ≤ C = %s for every record and every x in dom h"
          + " (condition (18), asserted a priori; not certified by the run)", bigC));
    }
    if (Double.isFinite(dh)) {
      a.add(String.format("dom h has diameter d_h = %s and X_0 ∈ dom h", dh));
    }
    return a;
  }

  @Override
  String compositionMechanism() {
    return "Gaussian mechanism (sensitivity 2λC/b) composed over the E steps that use the record (Mironov 2017)";
  }

  @Override
  List<String> compositionAssumptions() {
    return List.of("fixed cyclic order: each record is used once per pass",
        gradients == Gradients.CLIPPED ? "per-example gradients clipped to C and averaged over b"
            : String.format("‖∇f_i(x)‖ ≤ C = %s for every record and x (asserted)", bigC),
        "noise N(0, σ²I) added to the parameters at every step");
  }

  /**
   * Configuration; parameter names are the paper's symbols (Kong &amp; Ribero 2025; docs/accountants.md#kong-ribero). Required: k, b, T, lambda,
   * C, sigma, m, M.
   */
  public static final class Builder {
    private long k;
    private long b;
    private long bigT;
    private double lambda = Double.NaN;
    private double bigC = Double.NaN;
    private double sigma = Double.NaN;
    private double m = Double.NaN;
    private double bigM = Double.NaN;
    private double dh = Double.POSITIVE_INFINITY;
    private Gradients gradients = Gradients.CLIPPED;
    private LipschitzVariant variant = LipschitzVariant.CONSERVATIVE;
    private boolean theorem22AsPrinted;
    private boolean refinedWorstCase;

    private Builder() {}

    /** k: dataset size (number of per-example losses). */
    public Builder datasetSize(long k) {
      this.k = k;
      return this;
    }

    /** b: batch size; must divide k. */
    public Builder batchSize(long b) {
      this.b = b;
      return this;
    }

    /** T: total number of iterations, fixed before training. */
    public Builder iterations(long bigT) {
      this.bigT = bigT;
      return this;
    }

    /** λ: constant stepsize. */
    public Builder stepSize(double lambda) {
      this.lambda = lambda;
      return this;
    }

    /** C: per-example ℓ2 clip norm (or the asserted gradient bound when unclipped). */
    public Builder clipNorm(double bigC) {
      this.bigC = bigC;
      return this;
    }

    /** σ: std of the Gaussian added to each parameter coordinate per step (not to the gradient). */
    public Builder noiseStd(double sigma) {
      this.sigma = sigma;
      return this;
    }

    /** m ≥ 0: weak-convexity constant of every f_i (0 = convex). */
    public Builder weakConvexity(double m) {
      this.m = m;
      return this;
    }

    /** M ≥ 0: smoothness (upper curvature) constant of every f_i. */
    public Builder smoothness(double bigM) {
      this.bigM = bigM;
      return this;
    }

    /** d_h: diameter of dom h; +∞ (the default) when h is not a bounded constraint. */
    public Builder domainDiameter(double dh) {
      this.dh = dh;
      return this;
    }

    public Builder gradients(Gradients gradients) {
      this.gradients = checkNotNull(gradients, "gradients");
      return this;
    }

    public Builder lipschitzVariant(LipschitzVariant variant) {
      this.variant = checkNotNull(variant, "variant");
      return this;
    }

    /** Thm 2.2 with L_λ as printed even when clipping (erratum E3): only to reproduce the paper. */
    public Builder theorem22AsPrinted(boolean asPrinted) {
      this.theorem22AsPrinted = asPrinted;
      return this;
    }

    /** Also use the [DERIVED] worst-case-position refinement (Kong &amp; Ribero 2025; docs/errata.md#kong-ribero-theorem-2-3), not in the paper. */
    public Builder refinedWorstCase(boolean refined) {
      this.refinedWorstCase = refined;
      return this;
    }

    /** Validates against the hypotheses of Thm 2.2/2.3 and builds the accountant. */
    public KongRiberoAccountant build() {
      checkArgument(k >= 1, "k (dataset size) must be >= 1, was %s", k);
      checkArgument(b >= 1 && b <= k, "b (batch size) must be in [1, k = %s], was %s", k, b);
      checkArgument(k % b == 0, "b = %s must divide k = %s (Algorithm 1, footnote 3): k mod b = %s",
          b, k, k % b);
      checkArgument(bigT >= 1, "T (iterations) must be >= 1, was %s", bigT);
      checkPositive("λ (stepsize)", lambda);
      checkPositive("C (clip norm)", bigC);
      checkPositive("σ (parameter noise std)", sigma);
      checkArgument(m >= 0 && Double.isFinite(m), "m (weak convexity) must be set, finite and >= 0, was %s", m);
      checkArgument(bigM >= 0 && Double.isFinite(bigM), "M (smoothness) must be set, finite and >= 0, was %s",
          bigM);
      checkArgument(dh > 0, "d_h (diameter of dom h) must be > 0 or +Infinity, was %s", dh);
      checkStepsize();
      return new KongRiberoAccountant(this);
    }

    private void checkStepsize() {
      if (m + bigM == 0) {
        return;
      }
      if (gradients == Gradients.CLIPPED) {
        double max = 1 / (2 * (m + bigM));
        checkArgument(lambda <= max, "λ = %s violates λ ≤ 1/(2(m+M)) = %s (Kong & Ribero Prop 2.1(b),"
            + " clipped; m = %s, M = %s)", lambda, max, m, bigM);
      } else {
        double max = 1 / (m + bigM);
        checkArgument(lambda <= max, "λ = %s violates λ ≤ 1/(m+M) = %s (Kong & Ribero Prop 2.1(c),"
            + " unclipped; m = %s, M = %s)", lambda, max, m, bigM);
      }
    }
  }
}
