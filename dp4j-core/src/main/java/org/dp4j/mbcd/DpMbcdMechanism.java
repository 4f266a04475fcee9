package org.dp4j.mbcd;

import static com.google.common.base.Preconditions.checkNotNull;
import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.Arrays;
import org.dp4j.accounting.NeighbouringRelation;
import org.dp4j.accounting.hiddenstate.NoiseTemperatureSchedule;
import org.dp4j.sampling.SamplingPlan;
import org.dp4j.sampling.SamplingScheme;

/**
 * What a DP-MBCD run does to each released block, as an immutable value for the hidden-state
 * accountant (Chen &amp; Liu Alg. 4, Eq. 14, Thm. 4.6; docs/sampling.md#shuffle-once; docs/errata.md#dp-mbcd-step-recursion, #dp-mbcd-sensitivity, #dp-mbcd-batch-mean, #dp-mbcd-noise-temperature; docs/threat-models.md#data-independent-choices). It holds
 * no data and computes no privacy: the accountant reads η, o(k, j), b, S_g = 2C, N and K from here — in the
 * <b>mean</b> parameterisation ({@link #meanLearningRate()}, {@link #meanNoiseSchedule()}), which for a
 * {@link BatchReduction#SUM} run differs from the configured {@link #learningRate()} and {@link #noiseSchedule()}
 * by the factors b and 1/b; {@link DpMbcdAccounting} does this for you.
 *
 * <p>Per released block d and step (k, j): θ_d ← Prox_{η,r}(θ_d − η·ḡ_d + N(0, 2η·o(k,j)·I)), ḡ_d the
 * batch mean of per-example gradients bounded by C (clipped for dense blocks; Huberised residuals for
 * convolution blocks and weighted examples for a softmax output, so that the step keeps its L_F), with η and o in
 * the mean parameterisation, batches a fixed shuffle-once partition visited in
 * the same order every epoch. The smoothness bounds β_d = w_d·(ρ_d² + 1) (w_d = γ for d &lt; D, 1 for
 * the output; +1 from the bias) are what the code enforces by clipping x_d to ρ_d (for a convolution
 * block in its normalised step coordinates, where the curvature bound γ(mρ_d² + L) (docs/errata.md#dp-mbcd-lipschitz-f) becomes the same bound; see
 * {@link ConvolutionBlock}; average pooling before a block only shrinks its input); whether they
 * yield a contraction L_F &lt; 1 is the accountant's business (docs/errata.md#dp-mbcd-lipschitz-f: in general L_F = 1).
 *
 * <pre>{@code
 * // given: DpMbcdTrainer trainer
 * DpMbcdMechanism m = trainer.mechanism();
 * double o = m.temperature(0, 3);           // o(k=0, j=3)
 * double sg = m.gradientSensitivity();      // 2C (replace-one)
 * }</pre>
 */
public final class DpMbcdMechanism {
  private final double learningRate;
  private final double gamma;
  private final SamplingPlan samplingPlan;
  private final int epochs;
  private final double clipNorm;
  private final double strongConvexity;
  private final BlockStepRule blockStepRule;
  private final BatchReduction batchReduction;
  private final OutputLoss outputLoss;
  private final NoiseTemperatureSchedule noiseSchedule;
  private final String scheduleDescription;
  private final long[] blockParameterCounts;
  private final double[] activationNormBounds;
  private final String proxDescription;
  private final double proxLipschitz;
  private final boolean secureNoise;

  private DpMbcdMechanism(Builder b) {
    this.learningRate = b.learningRate;
    this.gamma = b.gamma;
    this.samplingPlan = b.samplingPlan;
    this.epochs = b.epochs;
    this.clipNorm = b.clipNorm;
    this.strongConvexity = b.strongConvexity;
    this.blockStepRule = b.blockStepRule;
    this.batchReduction = b.batchReduction;
    this.outputLoss = b.outputLoss;
    this.noiseSchedule = b.noiseSchedule;
    this.scheduleDescription = NoiseTemperatureSchedule.describe(b.noiseSchedule, b.epochs,
        b.samplingPlan.stepsPerEpoch());
    this.blockParameterCounts = b.blockParameterCounts.clone();
    this.activationNormBounds = b.activationNormBounds.clone();
    this.proxDescription = b.proxDescription;
    this.proxLipschitz = b.proxLipschitz;
    this.secureNoise = b.secureNoise;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** η, the step size of every released block. */
  public double learningRate() {
    return learningRate;
  }

  /** γ, the penalty weight of the lifted objective (Eq. 4). */
  public double gamma() {
    return gamma;
  }

  /** b, examples per batch. */
  public int batchSize() {
    return samplingPlan.fixedBatchSize();
  }

  /** N = ⌊n/b⌋, batches per epoch (one step per block per batch). */
  public int numBatchesPerEpoch() {
    return samplingPlan.stepsPerEpoch();
  }

  /** N·b, the examples actually used; the accountant's n. */
  public int examplesUsed() {
    return samplingPlan.usableRecords();
  }

  /** n mod b examples never visited (reported, not silently lost). */
  public int examplesDropped() {
    return samplingPlan.droppedRecords();
  }

  /** The batch schedule the trainer runs (a shuffle-once fixed partition), for sampler checks. */
  public SamplingPlan samplingPlan() {
    return samplingPlan;
  }

  /** K, the planned number of epochs. */
  public int epochs() {
    return epochs;
  }

  /** C, the per-example clip norm of every block gradient. */
  public double clipNorm() {
    return clipNorm;
  }

  /**
   * μ ≥ 0 of the explicit term (μ/2)‖θ‖² in every block objective f (its gradient μθ is added after
   * clipping; it is data-independent), making each block μ-strongly convex; 0 if absent.
   */
  public double strongConvexity() {
    return strongConvexity;
  }

  /** Gradient step (Eq. 14, the default) or the paper's proximal-point variant (Eq. 17). */
  public BlockStepRule blockStepRule() {
    return blockStepRule;
  }

  /** The output block's loss R (squared, or softmax cross-entropy with half the curvature bound). */
  public OutputLoss outputLoss() {
    return outputLoss;
  }

  /** Whether block steps use batch means (default) or the paper's printed batch sums (docs/errata.md#dp-mbcd-batch-mean). */
  public BatchReduction batchReduction() {
    return batchReduction;
  }

  /**
   * The step size applied to the batch-mean gradient: η for {@link BatchReduction#MEAN}, η·b for
   * {@link BatchReduction#SUM} (the same map). SAFE accounting and the trainer use this.
   */
  public double meanLearningRate() {
    return batchReduction == BatchReduction.SUM ? learningRate * batchSize() : learningRate;
  }

  /** o(k, j) in the mean parameterisation: o for MEAN, o/b for SUM, so 2·η_mean·o_mean = 2η·o. */
  public double meanTemperature(int epoch, int batch) {
    return meanNoiseSchedule().temperature(epoch, batch);
  }

  /** The schedule in the mean parameterisation (see {@link #meanTemperature}). */
  public NoiseTemperatureSchedule meanNoiseSchedule() {
    if (batchReduction == BatchReduction.MEAN) {
      return noiseSchedule;
    }
    double b = batchSize();
    return (epoch, batch) -> noiseSchedule.temperature(epoch, batch) / b;
  }

  /** S_g = 2C: the replace-one sensitivity of one example's clipped gradient (docs/errata.md#dp-mbcd-sensitivity). */
  public double gradientSensitivity() {
    return 2 * clipNorm;
  }

  public NeighbouringRelation neighbouringRelation() {
    return NeighbouringRelation.REPLACE_ONE;
  }

  /** o(k, j), the noise temperature at batch j of epoch k. */
  public double temperature(int epoch, int batch) {
    checkArgument(epoch >= 0 && epoch < epochs, "epoch must be in [0, %s), was %s", epochs, epoch);
    checkArgument(batch >= 0 && batch < numBatchesPerEpoch(),
        "batch must be in [0, %s), was %s", numBatchesPerEpoch(), batch);
    return noiseSchedule.temperature(epoch, batch);
  }

  /** sqrt(2η·o(k, j)): the per-coordinate noise std added to the parameters. */
  public double noiseStd(int epoch, int batch) {
    return Math.sqrt(2 * learningRate * temperature(epoch, batch));
  }

  public NoiseTemperatureSchedule noiseSchedule() {
    return noiseSchedule;
  }

  /** What identifies o(k, j) over the planned K epochs, e.g. "constant o=0.001". */
  public String scheduleDescription() {
    return scheduleDescription;
  }

  /** D + 1, the number of released blocks (each needs its own accountant; docs/errata.md#dp-mbcd-block-composition). */
  public int numReleasedBlocks() {
    return blockParameterCounts.length;
  }

  public long blockParameterCount(int block) {
    return blockParameterCounts[block];
  }

  /** ρ_d: the enforced bound on ‖x_d‖ (d = 0 is the input; +∞ if not enforced). */
  public double activationNormBound(int block) {
    return activationNormBounds[block];
  }

  /**
   * β_d = w_d(ρ_d² + 1), the enforced bound on the block Hessian norm (+∞ if ρ_d is not enforced); w_d = γ for
   * hidden blocks, the output loss's curvature bound (1 squared, ½ softmax cross-entropy) for the output.
   */
  public double smoothnessBound(int block) {
    double w = block == blockParameterCounts.length - 1 ? outputLoss.curvatureBound() : gamma;
    double rho = activationNormBounds[block];
    return w * (rho * rho + 1);
  }

  /** L_T of the proximal map at η (≤ 1; docs/errata.md#dp-mbcd-lipschitz-t). */
  public double proxLipschitz() {
    return proxLipschitz;
  }

  /** Whether the noise came from a secure generator (false only in tests and benchmarks). */
  public boolean secureNoise() {
    return secureNoise;
  }

  @Override
  public String toString() {
    return "DP-MBCD: eta=" + learningRate + ", gamma=" + gamma + ", b=" + batchSize() + ", N="
        + numBatchesPerEpoch() + " (dropped " + examplesDropped() + "), K=" + epochs + ", C="
        + clipNorm + ", S_g=2C" + (strongConvexity > 0 ? ", mu=" + strongConvexity : "")
        + ", noise " + scheduleDescription + ", step " + blockStepRule
        + (batchReduction == BatchReduction.SUM ? " on batch sums" : "") + ", output "
        + outputLoss.description() + ", blocks="
        + Arrays.toString(blockParameterCounts) + ", rho=" + Arrays.toString(activationNormBounds)
        + ", prox " + proxDescription + " (L_T=" + proxLipschitz + ")"
        + (secureNoise ? "" : ", INSECURE SEEDED NOISE");
  }

  /** Builder; every field is required except the prox (default "none", L_T = 1). */
  public static final class Builder {
    private double learningRate = Double.NaN;
    private double gamma = 1.0;
    private SamplingPlan samplingPlan;
    private int epochs;
    private double clipNorm = Double.NaN;
    private double strongConvexity;
    private BlockStepRule blockStepRule = BlockStepRule.GRADIENT;
    private BatchReduction batchReduction = BatchReduction.MEAN;
    private OutputLoss outputLoss = OutputLoss.SQUARED;
    private NoiseTemperatureSchedule noiseSchedule;
    private long[] blockParameterCounts;
    private double[] activationNormBounds;
    private String proxDescription = "none";
    private double proxLipschitz = 1.0;
    private boolean secureNoise = true;

    private Builder() {}

    public Builder learningRate(double eta) {
      this.learningRate = eta;
      return this;
    }

    /** The output block's loss (default the paper's squared loss); sets that block's curvature bound. */
    public Builder outputLoss(OutputLoss loss) {
      this.outputLoss = checkNotNull(loss, "loss");
      return this;
    }

    /** MEAN (default) or the paper's printed SUM (docs/errata.md#dp-mbcd-batch-mean). */
    public Builder batchReduction(BatchReduction reduction) {
      this.batchReduction = reduction;
      return this;
    }

    public Builder gamma(double gamma) {
      this.gamma = gamma;
      return this;
    }

    /** The partition's plan: must be a shuffle-once fixed partition (Thm 4.6; Chen &amp; Liu 2025; docs/sampling.md#shuffle-once). */
    public Builder batches(SamplingPlan plan) {
      this.samplingPlan = plan;
      return this;
    }

    public Builder epochs(int epochs) {
      this.epochs = epochs;
      return this;
    }

    public Builder clipNorm(double clipNorm) {
      this.clipNorm = clipNorm;
      return this;
    }

    public Builder noiseSchedule(NoiseTemperatureSchedule schedule) {
      this.noiseSchedule = schedule;
      return this;
    }

    public Builder blockStepRule(BlockStepRule rule) {
      this.blockStepRule = rule;
      return this;
    }

    /** μ ≥ 0 of an explicit (μ/2)‖θ‖² term in each block objective (default 0). */
    public Builder strongConvexity(double mu) {
      this.strongConvexity = mu;
      return this;
    }

    /** One entry per released block: its parameter count and ρ_d (+∞ if not enforced). */
    public Builder blocks(long[] parameterCounts, double[] activationNormBounds) {
      this.blockParameterCounts = parameterCounts.clone();
      this.activationNormBounds = activationNormBounds.clone();
      return this;
    }

    public Builder prox(String description, double lipschitz) {
      this.proxDescription = description;
      this.proxLipschitz = lipschitz;
      return this;
    }

    public Builder secureNoise(boolean secure) {
      this.secureNoise = secure;
      return this;
    }

    public DpMbcdMechanism build() {
      checkArgument(learningRate > 0 && Double.isFinite(learningRate),
          "learning rate eta must be finite and > 0, was %s", learningRate);
      checkArgument(gamma > 0 && Double.isFinite(gamma),
          "gamma must be finite and > 0, was %s", gamma);
      checkNotNull(samplingPlan, "the batch partition is required");
      checkArgument(samplingPlan.scheme() == SamplingScheme.SHUFFLE_ONCE_FIXED_PARTITION,
          "DP-MBCD needs a shuffle-once fixed partition (Thm 4.6), was %s", samplingPlan.describe());
      checkArgument(strongConvexity >= 0 && Double.isFinite(strongConvexity),
          "strong convexity mu must be finite and >= 0, was %s", strongConvexity);
      checkArgument(epochs >= 1, "epochs must be >= 1, was %s", epochs);
      checkArgument(clipNorm > 0 && Double.isFinite(clipNorm),
          "clip norm C must be finite and > 0, was %s", clipNorm);
      checkNotNull(noiseSchedule, "noise schedule is required");
      checkNotNull(blockStepRule, "block step rule is required");
      checkNotNull(batchReduction, "batch reduction is required");
      checkNotNull(blockParameterCounts, "blocks are required");
      checkArgument(blockParameterCounts.length >= 1
              && blockParameterCounts.length == activationNormBounds.length,
          "need one rho per block: %s blocks, %s bounds", blockParameterCounts.length,
          activationNormBounds.length);
      for (double rho : activationNormBounds) {
        checkArgument(rho > 0, "activation norm bounds must be > 0 (or +Infinity), was %s", rho);
      }
      for (int k = 0; k < epochs; k++) {
        for (int j = 0; j < samplingPlan.stepsPerEpoch(); j++) {
          // throws if the schedule does not cover (k, j)
          double o = noiseSchedule.temperature(k, j);
          checkArgument(o > 0 && Double.isFinite(o),
              "o(%s, %s) must be finite and > 0, was %s", k, j, o);
        }
      }
      checkArgument(proxLipschitz > 0 && proxLipschitz <= 1,
          "prox Lipschitz constant must be in (0, 1], was %s", proxLipschitz);
      return new DpMbcdMechanism(this);
    }
  }
}
