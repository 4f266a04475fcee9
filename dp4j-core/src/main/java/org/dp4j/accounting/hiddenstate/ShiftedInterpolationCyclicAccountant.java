package org.dp4j.accounting.hiddenstate;

import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.OptionalDouble;
import org.dp4j.accounting.Orders;
import org.dp4j.accounting.RdpConversion;

/**
 * Gaussian-DP of the last iterate of noisy cyclic gradient descent by shifted interpolation (Bok, Su
 * &amp; Altschuler 2024, ICML, Thm 4.4–4.6; docs/accountants.md#shifted-interpolation; docs/errata.md#shifted-interpolation-convex-cyclic). With l = n/b batches per epoch
 * and E epochs, μ is the minimum of
 * <ul>
 *   <li>Thm 4.4 (composition, no assumption on the loss): μ = (L/(bσ))·√E;</li>
 *   <li>Thm 4.5 (m-strongly convex, M-smooth, η &lt; 2/M): μ = √(1 + c^{2l−2}(1−c²)/(1−c^l)² ·
 *       (1−c^{l(E−1)})/(1+c^{l(E−1)}))·L/(bσ);</li>
 *   <li>convex, unconstrained, η ≤ 2/M: μ = (L/(bσ))·√(1 + (E−1)/l) (docs/errata.md#shifted-interpolation-convex-cyclic: Thm C.3 with
 *       shifts s/l between the record's uses; derived there, not stated in the paper; it is the c → 1
 *       limit of Thm 4.5);</li>
 *   <li>Thm 4.6 in its general form (convex, η ≤ 2/M, projection onto a set of diameter D): μ =
 *       min_{1≤K≤E−1} (1/σ)·√((L/b)² + (D/η + LK/b)²/(lK)); at K = ⌈Db/(ηL)⌉ this is the printed
 *       √(3LD/(ηbl) + (L/b)² + (L²/(b²l))⌈Db/(ηL)⌉)/σ.</li>
 * </ul>
 * Update: X_{k+1} = Π_K(X_k − η((1/b)Σ_{i∈B_r} ∇f_i(X_k) + Z_{k+1})), Z ~ N(0, σ²I) on the averaged
 * batch gradient, batches B_1..B_l a fixed data-independent partition visited in order (no
 * reshuffling). L is the gradient sensitivity (2C under clipping), so L/(bσ) = 2/z for the Opacus
 * noise multiplier z. Neighbours: replace one record. Threat model: only the last iterate is released.
 *
 * <pre>{@code
 * var acc = ShiftedInterpolationCyclicAccountant.builder()
 *     .datasetSize(60000).batchSize(1500).gradientSensitivity(10).noiseStd(0.01).stepSize(0.05)
 *     .strongConvexity(0.002).smoothness(1).epochs(50).build();
 * double mu = acc.mu();                                                    // 0.9925 (Table 3)
 * double eps = acc.guarantee(1e-5, Orders.DEFAULT, RdpConversion.IMPROVED).epsilon();   // 4.339
 * }</pre>
 */
public final class ShiftedInterpolationCyclicAccountant extends ShiftedInterpolationAccountant {
  public static final String NAME = "shifted-interpolation-cyclic";
  private static final String PAPER = "Bok, Su & Altschuler 2024";

  /** The bound that attains {@link #mu()}. */
  public enum Bound {
    COMPOSITION_THM_4_4, STRONGLY_CONVEX_THM_4_5, CONVEX_UNCONSTRAINED, CONSTRAINED_THM_4_6
  }

  private final long b;
  private final long bigE;

  private ShiftedInterpolationCyclicAccountant(Builder in) {
    super(NAME, in);
    b = in.b;
    bigE = in.bigE;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** l = n/b, batches per epoch. */
  public long batchesPerEpoch() {
    return n / b;
  }

  private double unit() {
    return sensitivity / (b * noiseStd);
  }

  /** Thm 4.4: μ = (L/(bσ))·√E. */
  public double muComposition() {
    return unit() * Math.sqrt(bigE);
  }

  /** Thm 4.5, when m &gt; 0 and η &lt; 2/M; empty otherwise. */
  public OptionalDouble muStronglyConvex() {
    if (!contraction.isStrict()) {
      return OptionalDouble.empty();
    }
    long l = batchesPerEpoch();
    double oneMinusCl = contraction.oneMinusPower(l);
    double perEpoch = contraction.power(2 * l - 2) * contraction.oneMinusSquare() / (oneMinusCl * oneMinusCl);
    long later = l * (bigE - 1);
    double growth = contraction.oneMinusPower(later) / (1 + contraction.power(later));
    return OptionalDouble.of(Math.sqrt(1 + perEpoch * growth) * unit());
  }

  /** Convex unconstrained bound μ = (L/(bσ))·√(1 + (E−1)/l) (docs/errata.md#shifted-interpolation-convex-cyclic). */
  public double muConvexUnconstrained() {
    return unit() * Math.sqrt(1 + (double) (bigE - 1) / batchesPerEpoch());
  }

  /**
   * Thm 4.6 general form minimised over K = E − τ ∈ [1, E−1] (τ ≥ 1 keeps the interpolation start at a
   * step ≥ 0; docs/errata.md#shifted-interpolation-plateau), so the plateau needs E ≥ ⌈Db/(ηL)⌉ + 1; empty without a constraint
   * set or if E = 1.
   */
  public OptionalDouble muConstrained() {
    if (!Double.isFinite(diameter) || bigE < 2) {
      return OptionalDouble.empty();
    }
    // (D/η + LK/b)²/(lK) is convex in K with its minimum at K = Db/(ηL)
    double kStar = Math.min(Math.max(diameter * b / (stepSize * sensitivity), 1), bigE - 1);
    double best = Math.min(constrainedSquare(Math.floor(kStar)), constrainedSquare(Math.ceil(kStar)));
    return OptionalDouble.of(Math.sqrt(best) / noiseStd);
  }

  private double constrainedSquare(double bigK) {
    double perRecord = sensitivity / b;
    double shift = diameter / stepSize + perRecord * bigK;
    return perRecord * perRecord + shift * shift / (batchesPerEpoch() * bigK);
  }

  /** The smallest applicable μ. */
  @Override
  public double mu() {
    double mu = Math.min(muComposition(), muConvexUnconstrained());
    mu = Math.min(mu, muStronglyConvex().orElse(Double.POSITIVE_INFINITY));
    return Math.min(mu, muConstrained().orElse(Double.POSITIVE_INFINITY));
  }

  /** Which bound attains {@link #mu()}. */
  public Bound tightestBound() {
    double mu = mu();
    if (muStronglyConvex().isPresent() && muStronglyConvex().getAsDouble() == mu) {
      return Bound.STRONGLY_CONVEX_THM_4_5;
    }
    if (muConstrained().isPresent() && muConstrained().getAsDouble() == mu) {
      return Bound.CONSTRAINED_THM_4_6;
    }
    return muConvexUnconstrained() == mu ? Bound.CONVEX_UNCONSTRAINED : Bound.COMPOSITION_THM_4_4;
  }

  @Override
  public String theorem() {
    return switch (tightestBound()) {
      case COMPOSITION_THM_4_4 -> PAPER + " Thm 4.4 (composition)";
      case STRONGLY_CONVEX_THM_4_5 -> PAPER + " Thm 4.5 (strongly convex noisy cyclic GD)";
      case CONVEX_UNCONSTRAINED -> PAPER + " Thm C.3 with shifts s/l, convex unconstrained cyclic GD"
          + " (docs/errata.md#shifted-interpolation-convex-cyclic, derived; not stated in the paper)";
      case CONSTRAINED_THM_4_6 -> PAPER + " Thm 4.6 general form (constrained convex noisy cyclic GD, best τ)";
    };
  }

  @Override
  String scheduleAssumption() {
    return String.format("fixed data-independent partition into l = %d batches of size b = %d, visited in the"
        + " same order every epoch (no reshuffling); E = %d whole epochs", batchesPerEpoch(), b, bigE);
  }

  /**
   * Configuration (Bok, Su &amp; Altschuler 2024, Thm 4.4–4.6; docs/errata.md#shifted-interpolation-text). Required:
   * dataset size, batch size, epochs, gradient sensitivity, noise std, step size, smoothness.
   */
  public static final class Builder extends ShiftedInterpolationAccountant.Builder<Builder> {
    private long b;
    private long bigE;

    private Builder() {}

    @Override
    Builder self() {
      return this;
    }

    /** b: batch size; must divide n. */
    public Builder batchSize(long b) {
      this.b = b;
      return this;
    }

    /** E: number of whole epochs (t = lE iterations). */
    public Builder epochs(long bigE) {
      this.bigE = bigE;
      return this;
    }

    public ShiftedInterpolationCyclicAccountant build() {
      checkDatasetSize();
      checkArgument(b >= 1 && b <= n, "batch size b must be in [1, n = %s], was %s", n, b);
      checkArgument(n % b == 0, "batch size b = %s must divide the dataset size n = %s (l = n/b batches per"
          + " epoch): n mod b = %s", b, n, n % b);
      checkArgument(bigE >= 1, "epochs E must be >= 1, was %s", bigE);
      validate();
      return new ShiftedInterpolationCyclicAccountant(this);
    }
  }
}
