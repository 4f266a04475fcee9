package org.dp4j.accounting.hiddenstate;

import static com.google.common.base.Preconditions.checkNotNull;
import static com.google.common.base.Preconditions.checkState;
import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.ArrayList;
import java.util.List;

/**
 * Noisy mini-batch gradient descent as the Ye &amp; Shokri accountants see it (Ye &amp; Shokri 2022, Alg. 1–3;
 * docs/accountants.md#ye-shokri): n examples, m = ⌊n/b⌋ steps per epoch of batch size b (remainder dropped),
 * θ ← θ − η·(batch-mean gradient) + √(2ησ²)·N(0, I), K epochs, a loss that is λ-strongly convex and
 * β-smooth with per-example gradient sensitivity S_g (replace-one). Immutable.
 *
 * <p>The noise is given either as the theory's σ ({@link Builder#sigma}) or as Algorithm 3's noise multiplier
 * σ_mul on the clipped mean gradient, noise η·σ_mul·C/b (C = S_g/2), i.e. σ² = η·σ_mul²·C²/(2b²)
 * (docs/errata.md#ye-shokri-noise-scale); then G(α) = 2α/σ_mul².
 *
 * <pre>{@code
 * YeShokriConfig mnist = YeShokriConfig.builder()
 *     .datasetSize(60000).batchSize(2048).epochs(1200)       // n, b, K
 *     .stepSize(0.75).strongConvexity(0.08).smoothness(2.58) // η, λ, β = (L²+1)/2 + λ
 *     .clipNorm(3.16).noiseMultiplier(3.08)                  // C (S_g = 2C), σ_mul
 *     .normalisationNoiseMultiplier(8)                       // BatchNorm statistics: + α/σ_bn²
 *     .build();
 * }</pre>
 */
public final class YeShokriConfig {
  /** Which first term T1 of Thm 4.4 / 5.2 to use (docs/accountants.md#ye-shokri; docs/errata.md#ye-shokri-first-term). */
  public enum FirstTerm {
    /** As stated in Eqs. (11), (15), (28) and the authors' code; valid, looser. The default. */
    STATED,
    /** With the factor r^{m−h} that the proof's Eq. (118) carries and Eq. (119) drops; also valid. */
    TIGHT
  }

  private final long datasetSize;
  private final int batchSize;
  private final int epochs;
  private final double stepSize;
  private final double strongConvexity;
  private final double smoothness;
  private final double gradientSensitivity;
  private final double sigmaSquared;
  private final double normalisationNoiseMultiplier;
  private final FirstTerm firstTerm;
  private final String lossConstantsSource;
  private final List<String> noiseDescription;

  private YeShokriConfig(Builder b, double gradientSensitivity, double sigmaSquared, List<String> noiseDescription) {
    this.datasetSize = b.datasetSize;
    this.batchSize = b.batchSize;
    this.epochs = b.epochs;
    this.stepSize = b.stepSize;
    this.strongConvexity = b.strongConvexity;
    this.smoothness = b.smoothness;
    this.gradientSensitivity = gradientSensitivity;
    this.sigmaSquared = sigmaSquared;
    this.normalisationNoiseMultiplier = b.normalisationNoiseMultiplier;
    this.firstTerm = b.firstTerm;
    this.lossConstantsSource = b.lossConstantsSource;
    this.noiseDescription = List.copyOf(noiseDescription);
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The same configuration run for {@code k} epochs. */
  public YeShokriConfig withEpochs(int k) {
    checkArgument(k >= 1, "epochs K must be >= 1, was %s", k);
    Builder b = new Builder();
    b.datasetSize = datasetSize;
    b.batchSize = batchSize;
    b.epochs = k;
    b.stepSize = stepSize;
    b.strongConvexity = strongConvexity;
    b.smoothness = smoothness;
    b.normalisationNoiseMultiplier = normalisationNoiseMultiplier;
    b.firstTerm = firstTerm;
    b.lossConstantsSource = lossConstantsSource;
    return new YeShokriConfig(b, gradientSensitivity, sigmaSquared, noiseDescription);
  }

  /** n. */
  public long datasetSize() {
    return datasetSize;
  }

  /** b. */
  public int batchSize() {
    return batchSize;
  }

  /** m = ⌊n/b⌋ steps per epoch. */
  public int stepsPerEpoch() {
    return (int) (datasetSize / batchSize);
  }

  /** K, completed epochs; the bound is for the model after them. */
  public int epochs() {
    return epochs;
  }

  /** η. */
  public double stepSize() {
    return stepSize;
  }

  /** λ (0 for a merely convex loss). */
  public double strongConvexity() {
    return strongConvexity;
  }

  /** β. */
  public double smoothness() {
    return smoothness;
  }

  /** S_g. */
  public double gradientSensitivity() {
    return gradientSensitivity;
  }

  /** σ²: the per-step noise on θ has variance 2ησ² per coordinate. */
  public double sigmaSquared() {
    return sigmaSquared;
  }

  /** σ_bn, or +∞ when no private normalisation statistics are released. */
  public double normalisationNoiseMultiplier() {
    return normalisationNoiseMultiplier;
  }

  /** Where λ and β come from: "user-asserted" unless a certifier derived them from the configuration. */
  public String lossConstantsSource() {
    return lossConstantsSource;
  }

  public FirstTerm firstTerm() {
    return firstTerm;
  }

  /** G(α) = α·η·S_g²/(4σ²b²): RDP of the one step that uses the differing example (Ye &amp; Shokri 2022; docs/accountants.md#ye-shokri). */
  double stepRdp(double alpha) {
    return alpha * stepSize * gradientSensitivity * gradientSensitivity
        / (4 * sigmaSquared * batchSize * (double) batchSize);
  }

  /** RDP of the private normalisation statistics, α/σ_bn² (mean and second moment; docs/errata.md#ye-shokri-conversion). */
  double normalisationRdp(double alpha) {
    return Double.isInfinite(normalisationNoiseMultiplier) ? 0
        : alpha / (normalisationNoiseMultiplier * normalisationNoiseMultiplier);
  }

  /** Assumptions common to every Ye–Shokri theorem. */
  List<String> commonAssumptions() {
    List<String> list = new ArrayList<>();
    list.add(String.format("plain noisy gradient descent θ ← θ − η·(mean gradient of b = %d) + N(0, 2ησ²I) with"
        + " η = %s, σ² = %s fixed; no momentum or adaptive steps; only the last iterate released", batchSize,
        stepSize, sigmaSquared));
    list.addAll(noiseDescription);
    list.add(String.format("per-example gradients differ by at most S_g = %s in ℓ2 (replace-one)",
        gradientSensitivity));
    list.add("initial parameters independent of the private data");
    if (!Double.isInfinite(normalisationNoiseMultiplier)) {
      list.add(String.format("normalisation statistics (mean and second moment) released with Gaussian noise"
          + " multiplier σ_bn = %s each: RDP α/σ_bn² added", normalisationNoiseMultiplier));
    }
    if (datasetSize % batchSize != 0) {
      list.add(String.format("the last %d examples of each permutation are dropped (m = ⌊n/b⌋ = %d)",
          datasetSize % batchSize, stepsPerEpoch()));
    }
    return list;
  }

  /** Builder; names follow the paper's symbols. */
  public static final class Builder extends ShuffleOnceDescentBuilder<Builder> {
    private int epochs = -1;
    private double strongConvexity = Double.NaN;
    private double smoothness = Double.NaN;
    private double gradientSensitivity = Double.NaN;
    private double clipNorm = Double.NaN;
    private double sigma = Double.NaN;
    private double noiseMultiplier = Double.NaN;
    private double normalisationNoiseMultiplier = Double.POSITIVE_INFINITY;
    private FirstTerm firstTerm = FirstTerm.STATED;
    private String lossConstantsSource = "user-asserted";

    private Builder() {}

    @Override
    Builder self() {
      return this;
    }

    /** K ≥ 1 completed epochs. */
    public Builder epochs(int k) {
      checkArgument(k >= 1, "epochs K must be >= 1, was %s", k);
      this.epochs = k;
      return this;
    }

    /** λ ≥ 0: the loss is λ-strongly convex (0: merely convex, only Thm 4.3 applies). */
    public Builder strongConvexity(double lambda) {
      checkArgument(lambda >= 0 && Double.isFinite(lambda), "strong convexity λ must be finite and >= 0, was %s",
          lambda);
      this.strongConvexity = lambda;
      return this;
    }

    /** β &gt; 0: the loss is β-smooth (Alg. 3 with features clipped to L: β = (L²+1)/2 + λ, Prop. 6.1). */
    public Builder smoothness(double beta) {
      checkArgument(beta > 0 && Double.isFinite(beta), "smoothness β must be finite and > 0, was %s", beta);
      this.smoothness = beta;
      return this;
    }

    /** S_g, the per-example gradient sensitivity (replace-one); or use {@link #clipNorm}. */
    public Builder gradientSensitivity(double sg) {
      checkArgument(sg > 0 && Double.isFinite(sg), "gradient sensitivity S_g must be finite and > 0, was %s", sg);
      this.gradientSensitivity = sg;
      return this;
    }

    /** Per-example clip norm C of the unregularised gradient: S_g = 2C (docs/errata.md#ye-shokri-sensitivity). */
    public Builder clipNorm(double c) {
      checkArgument(c > 0 && Double.isFinite(c), "clip norm C must be finite and > 0, was %s", c);
      this.clipNorm = c;
      return this;
    }

    /** σ, the theory's noise parameter: noise √(2ησ²)·N(0, I) per step; or use {@link #noiseMultiplier}. */
    public Builder sigma(double sigma) {
      checkArgument(sigma > 0 && Double.isFinite(sigma), "noise σ must be finite and > 0, was %s", sigma);
      this.sigma = sigma;
      return this;
    }

    /** σ_mul of Algorithm 3: noise η·σ_mul·C/b per step, so σ² = η·σ_mul²·C²/(2b²) with C = S_g/2. */
    public Builder noiseMultiplier(double sigmaMul) {
      checkArgument(sigmaMul > 0 && Double.isFinite(sigmaMul), "noise multiplier σ_mul must be finite and > 0, was %s",
          sigmaMul);
      this.noiseMultiplier = sigmaMul;
      return this;
    }

    /** σ_bn: private normalisation statistics cost an extra RDP of α/σ_bn² (the paper's BatchNorm term). */
    public Builder normalisationNoiseMultiplier(double sigmaBn) {
      checkArgument(sigmaBn > 0 && Double.isFinite(sigmaBn),
          "normalisation noise multiplier σ_bn must be finite and > 0, was %s", sigmaBn);
      this.normalisationNoiseMultiplier = sigmaBn;
      return this;
    }

    /** STATED (default) or TIGHT first term of Thm 4.4 / 5.2. */
    public Builder firstTerm(FirstTerm firstTerm) {
      this.firstTerm = checkNotNull(firstTerm, "firstTerm");
      return this;
    }

    /**
     * How λ and β were obtained, printed with the loss assumption; "user-asserted" by default. Only code
     * that derives them from the model and data (e.g. {@code SoftmaxRegressionCertificate}) sets it.
     */
    public Builder lossConstantsSource(String source) {
      this.lossConstantsSource = checkNotNull(source, "source");
      return this;
    }

    public YeShokriConfig build() {
      checkState(datasetSize >= 1, "dataset size n is required");
      checkState(batchSize >= 1, "batch size b is required");
      checkState(epochs >= 1, "epochs K is required");
      checkState(stepSize > 0, "step size η is required");
      checkState(!Double.isNaN(strongConvexity), "strong convexity λ is required (0 for a merely convex loss)");
      checkState(smoothness > 0, "smoothness β is required");
      checkArgument(batchSize <= datasetSize, "batch size b = %s must be <= dataset size n = %s", batchSize,
          datasetSize);
      checkArgument(strongConvexity <= smoothness, "strong convexity λ = %s must be <= smoothness β = %s",
          strongConvexity, smoothness);
      checkArgument(Double.isNaN(gradientSensitivity) != Double.isNaN(clipNorm),
          "give exactly one of gradient sensitivity S_g and clip norm C");
      double sg = Double.isNaN(gradientSensitivity) ? 2 * clipNorm : gradientSensitivity;
      checkArgument(Double.isNaN(sigma) != Double.isNaN(noiseMultiplier),
          "give exactly one of the theory's noise σ and Algorithm 3's noise multiplier σ_mul");
      double sigmaSquared;
      List<String> noise;
      if (!Double.isNaN(sigma)) {
        sigmaSquared = sigma * sigma;
        noise = List.of();
      } else {
        double c = sg / 2;
        sigmaSquared = stepSize * noiseMultiplier * noiseMultiplier * c * c / (2.0 * batchSize * batchSize);
        noise = List.of(String.format("Algorithm 3 noise η·σ_mul·C/b·N(0, I) with σ_mul = %s, C = S_g/2 = %s",
            noiseMultiplier, c));
      }
      return new YeShokriConfig(this, sg, sigmaSquared, noise);
    }
  }
}
