package org.dp4j.accounting.hiddenstate;

import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.OptionalDouble;
import org.dp4j.accounting.Orders;
import org.dp4j.accounting.RdpConversion;

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
 *     .datasetSize(10).gradientSensitivity(1).noiseStd(1).stepSize(0.05).strongConvexity(1).smoothness(10)
 *     .iterations(160).build();
 * double mu = acc.mu();                                                    // 0.6243
 * double eps = acc.guarantee(1e-5, Orders.DEFAULT, RdpConversion.IMPROVED).epsilon();   // 2.557
 * }</pre>
 */
public final class ShiftedInterpolationNoisyGdAccountant extends ShiftedInterpolationAccountant {
  public static final String NAME = "shifted-interpolation-gd";
  private static final String PAPER = "Bok, Su & Altschuler 2024";

  /** The theorem that attains {@link #mu()}. */
  public enum Bound {
    COMPOSITION_THM_4_1, STRONGLY_CONVEX_THM_4_2, CONSTRAINED_THM_4_3
  }

  private final long t;

  private ShiftedInterpolationNoisyGdAccountant(Builder in) {
    super(NAME, in);
    t = in.t;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Thm 4.1: μ = (L/(nσ))·√t, valid for any losses and when every iterate is released. */
  public double muComposition() {
    return sensitivity / (n * noiseStd) * Math.sqrt(t);
  }

  /** Thm 4.2, when m &gt; 0 and η &lt; 2/M; empty otherwise. */
  public OptionalDouble muStronglyConvex() {
    if (!contraction.isStrict()) {
      return OptionalDouble.empty();
    }
    double c = contraction.c();
    double ratio = contraction.oneMinusPower(t) / (1 + contraction.power(t)) * (1 + c) / contraction.oneMinusC();
    return OptionalDouble.of(Math.sqrt(ratio) * sensitivity / (n * noiseStd));
  }

  /** Thm 4.3 general form (Thm C.7), minimised over k = t − τ ∈ [1, t]; empty without a constraint set. */
  public OptionalDouble muConstrained() {
    if (!Double.isFinite(diameter)) {
      return OptionalDouble.empty();
    }
    double s = stepSize * sensitivity / n;
    // s√k + D/√k is convex in k with its minimum at k = D/s
    double kStar = Math.min(Math.max(diameter / s, 1), t);
    double best = Math.min(shiftedCost(s, Math.floor(kStar)), shiftedCost(s, Math.ceil(kStar)));
    return OptionalDouble.of(best / (stepSize * noiseStd));
  }

  private double shiftedCost(double s, double k) {
    return s * Math.sqrt(k) + diameter / Math.sqrt(k);
  }

  /** The smallest applicable μ. */
  @Override
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

  @Override
  public String theorem() {
    return switch (tightestBound()) {
      case COMPOSITION_THM_4_1 -> PAPER + " Thm 4.1 (composition)";
      case STRONGLY_CONVEX_THM_4_2 -> PAPER + " Thm 4.2 (strongly convex noisy GD)";
      case CONSTRAINED_THM_4_3 -> PAPER + " Thm 4.3 / C.7 (constrained convex noisy GD, best τ)";
    };
  }

  @Override
  String scheduleAssumption() {
    return "full-batch gradient (1/n)Σ_i ∇f_i at every step";
  }

  /**
   * Configuration (Bok, Su &amp; Altschuler 2024, Thm 4.1–4.3; docs/errata.md#shifted-interpolation-text). Required:
   * dataset size, iterations, gradient sensitivity, noise std, step size, smoothness.
   */
  public static final class Builder extends ShiftedInterpolationAccountant.Builder<Builder> {
    private long t;

    private Builder() {}

    @Override
    Builder self() {
      return this;
    }

    /** t: number of iterations. */
    public Builder iterations(long t) {
      this.t = t;
      return this;
    }

    public ShiftedInterpolationNoisyGdAccountant build() {
      checkDatasetSize();
      checkArgument(t >= 1, "iterations t must be >= 1, was %s", t);
      validate();
      return new ShiftedInterpolationNoisyGdAccountant(this);
    }
  }
}
