package org.dp4j.accounting.hiddenstate;

import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.ArrayList;
import java.util.List;
import org.dp4j.accounting.GaussianDp;
import org.dp4j.accounting.NeighbouringRelation;
import org.dp4j.accounting.Orders;
import org.dp4j.accounting.PrivacyGuarantee;
import org.dp4j.accounting.RdpConversion;
import org.dp4j.accounting.RdpCurve;

/**
 * What the two shifted-interpolation accountants share (Bok, Su &amp; Altschuler 2024;
 * docs/accountants.md#shifted-interpolation; docs/errata.md#shifted-interpolation-text): the loss constants, the
 * noise, the step size and the optional constraint set, validated once; the assumption texts; the μ-GDP guarantee
 * converted exactly. Subclasses give μ, the theorem that attains it and the batch schedule.
 */
abstract class ShiftedInterpolationAccountant implements HiddenStateAccountant {
  private final String name;
  /** n: dataset size. */
  final long n;
  /** L: gradient sensitivity. */
  final double sensitivity;
  /** σ: std of the noise on the averaged gradient. */
  final double noiseStd;
  /** η. */
  final double stepSize;
  /** m. */
  final double strongConvexity;
  /** M. */
  final double smoothness;
  /** D (+∞ when unconstrained). */
  final double diameter;
  final ShiftedInterpolationContraction contraction;

  ShiftedInterpolationAccountant(String name, Builder<?> in) {
    this.name = name;
    n = in.n;
    sensitivity = in.sensitivity;
    noiseStd = in.noiseStd;
    stepSize = in.stepSize;
    strongConvexity = in.strongConvexity;
    smoothness = in.smoothness;
    diameter = in.diameter;
    contraction = in.contraction;
  }

  /** The smallest applicable μ (μ-GDP of the last iterate). */
  public abstract double mu();

  /** The theorem that attains {@link #mu()}. */
  public abstract String theorem();

  /** How batches are formed: the assumption that distinguishes the two accountants. */
  abstract String scheduleAssumption();

  /** The contraction factor c = max(|1−ηm|, |1−ηM|) (Lemma 2.8). */
  public final double contractionFactor() {
    return contraction.c();
  }

  @Override
  public final String name() {
    return name;
  }

  @Override
  public final NeighbouringRelation relation() {
    return NeighbouringRelation.REPLACE_ONE;
  }

  @Override
  public final List<String> assumptions() {
    List<String> a = new ArrayList<>();
    a.add(strongConvexity > 0
        ? String.format("every f_i (after any clipping) is m-strongly convex and M-smooth, m = %s, M = %s"
            + " (user-asserted)", strongConvexity, smoothness)
        : String.format("every f_i (after any clipping) is convex and M-smooth, M = %s (user-asserted)", smoothness));
    a.add(String.format("gradient sensitivity sup_x ‖∇f_i(x) − ∇f'_i(x)‖ ≤ L = %s (2C under clipping to C)",
        sensitivity));
    a.add(String.format("noise N(0, σ²I), σ = %s, added to the averaged gradient at every step;"
        + " constant step η = %s; X_0 data-independent", noiseStd, stepSize));
    if (Double.isFinite(diameter)) {
      a.add(String.format("every iterate is projected onto a closed convex set of diameter D = %s", diameter));
    }
    a.add(scheduleAssumption());
    a.add("only the final iterate leaves the trainer");
    return a;
  }

  @Override
  public final RdpCurve rdp(Orders orders) {
    return GaussianDp.rdp(mu(), orders);
  }

  @Override
  public final PrivacyGuarantee guarantee(double delta, Orders orders, RdpConversion conversion) {
    return GaussianDpGuarantee.of(this, theorem(), mu(), delta, orders, conversion);
  }

  /**
   * The settings both accountants take; the paper's symbol is given with each. Required: the gradient sensitivity,
   * the noise std, the step size and the smoothness; the strong convexity defaults to 0 (convex), the diameter to
   * +∞ (unconstrained).
   *
   * @param <B> the concrete builder
   */
  abstract static class Builder<B extends Builder<B>> {
    /** n, read by the subclasses' checks. */
    long n;
    private double sensitivity = Double.NaN;
    private double noiseStd = Double.NaN;
    private double stepSize = Double.NaN;
    private double strongConvexity;
    private double smoothness = Double.NaN;
    private double diameter = Double.POSITIVE_INFINITY;
    private ShiftedInterpolationContraction contraction;

    abstract B self();

    /** n: dataset size. */
    public B datasetSize(long n) {
      this.n = n;
      return self();
    }

    /** L: gradient sensitivity sup ‖∇f(x) − ∇f'(x)‖ (2C with clipping to C; 2× a Lipschitz constant). */
    public B gradientSensitivity(double sensitivity) {
      this.sensitivity = sensitivity;
      return self();
    }

    /** σ: std of the Gaussian added to the averaged (batch) gradient; the parameter noise is ησ. */
    public B noiseStd(double noiseStd) {
      this.noiseStd = noiseStd;
      return self();
    }

    /** η: constant step size. */
    public B stepSize(double stepSize) {
      this.stepSize = stepSize;
      return self();
    }

    /** m ≥ 0: strong-convexity constant of every f_i (default 0: convex). */
    public B strongConvexity(double strongConvexity) {
      this.strongConvexity = strongConvexity;
      return self();
    }

    /** M: smoothness constant of every f_i. */
    public B smoothness(double smoothness) {
      this.smoothness = smoothness;
      return self();
    }

    /** D: diameter of the constraint set (default +∞: unconstrained). */
    public B diameter(double diameter) {
      this.diameter = diameter;
      return self();
    }

    /** Checks the dataset size; subclasses call it first from {@code build()}. */
    final void checkDatasetSize() {
      checkArgument(n >= 1, "dataset size n must be >= 1, was %s", n);
    }

    /** Validates the shared settings; subclasses call it from {@code build()} after their own checks. */
    final void validate() {
      checkArgument(sensitivity > 0 && Double.isFinite(sensitivity),
          "gradient sensitivity L must be set, finite and > 0, was %s", sensitivity);
      checkArgument(noiseStd > 0 && Double.isFinite(noiseStd),
          "noise std σ (on the averaged gradient) must be set, finite and > 0, was %s", noiseStd);
      checkArgument(diameter > 0, "diameter D of the constraint set must be > 0 or +Infinity, was %s", diameter);
      contraction = ShiftedInterpolationContraction.of(stepSize, strongConvexity, smoothness);
    }
  }
}
