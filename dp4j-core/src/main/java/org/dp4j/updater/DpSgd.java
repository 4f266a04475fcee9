package org.dp4j.updater;

import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.Map;
import java.util.Objects;
import org.dp4j.accounting.SampledGaussianMechanism;
import org.dp4j.clipping.ClippingMode;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.learning.GradientUpdater;
import org.nd4j.linalg.learning.config.IUpdater;
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.schedule.ISchedule;

/**
 * The DP-SGD mechanism as a DL4J {@link IUpdater}: clip norm C, noise multiplier z, expected batch size q·N,
 * clipping mode and the base updater that turns the private gradient into a step (plain SGD by default; momentum
 * or Adam are post-processing of the private gradient, so composition accounting still holds). Set it on a
 * network configuration like any updater; it survives {@code toJson}/{@code fromJson} and {@code ModelSerializer}.
 *
 * <p>The per-example part of the mechanism cannot run inside a plain network's {@code fit}, which only hands
 * updaters the batch mean: train a {@code org.dp4j.training.PrivateMultiLayerNetwork} with DL4J's
 * {@code fit(SampledDataSetIterator, epochs)}, or step with {@link DpSgdStep}; both clip, noise and then run this
 * updater. Each step is
 * θ ← θ − base((Σ_i clip_C(g_i) + N(0, (zC)² I)) / (q·N)) (Abadi et al. 2016, Alg. 1; docs/sampling.md#expected-batch-size, DP updater),
 * divided by the expected batch size, never the realised one. Calling {@code fit} on a plain
 * {@code MultiLayerNetwork} with this updater throws instead of silently training without privacy.
 *
 * <pre>{@code
 * // given: DataSet batch
 * DpSgd dp = DpSgd.builder().clipNorm(1.0).noiseMultiplier(1.1).expectedBatchSize(256)
 *     .baseUpdater(new Sgd(0.1)).build();
 * MultiLayerConfiguration conf = new NeuralNetConfiguration.Builder().updater(dp).list()
 *     .layer(new OutputLayer.Builder().nIn(784).nOut(10).activation(Activation.SOFTMAX).build())
 *     .build();
 * MultiLayerNetwork net = new MultiLayerNetwork(conf);
 * net.init();
 * DpSgdStep step = DpSgdStep.of(net);               // secure noise
 * step.apply(batch.getFeatures(), batch.getLabels());
 * SampledGaussianMechanism m = dp.mechanism(60_000); // what the accountant needs
 * }</pre>
 */
public final class DpSgd implements IUpdater {
  private double clipNorm;
  private double noiseMultiplier;
  private double expectedBatchSize;
  private ClippingMode clipping;
  private IUpdater baseUpdater;

  /** For Jackson only. */
  private DpSgd() {
  }

  private DpSgd(Builder b) {
    checkArgument(b.clipNorm > 0 && Double.isFinite(b.clipNorm), "clipNorm must be finite and > 0, was %s",
        b.clipNorm);
    checkArgument(b.noiseMultiplier > 0 && Double.isFinite(b.noiseMultiplier),
        "noiseMultiplier must be finite and > 0 (0 gives no privacy: use a plain updater), was %s",
        b.noiseMultiplier);
    checkArgument(b.expectedBatchSize > 0 && Double.isFinite(b.expectedBatchSize),
        "expectedBatchSize must be finite and > 0, was %s", b.expectedBatchSize);
    checkArgument(b.baseUpdater != null && !(b.baseUpdater instanceof DpSgd),
        "baseUpdater must be a non-DP updater, was %s", b.baseUpdater);
    checkArgument(b.clipping != null, "clipping mode must not be null");
    this.clipNorm = b.clipNorm;
    this.noiseMultiplier = b.noiseMultiplier;
    this.expectedBatchSize = b.expectedBatchSize;
    this.clipping = b.clipping;
    this.baseUpdater = b.baseUpdater.clone();
  }

  public static Builder builder() {
    return new Builder();
  }

  public double clipNorm() {
    return clipNorm;
  }

  public double noiseMultiplier() {
    return noiseMultiplier;
  }

  /** Standard deviation of the noise on each coordinate of the clipped sum: z·C. */
  public double noiseStd() {
    return noiseMultiplier * clipNorm;
  }

  /** q·N, the constant the noisy sum is divided by. */
  public double expectedBatchSize() {
    return expectedBatchSize;
  }

  public ClippingMode clipping() {
    return clipping;
  }

  /** A copy of the base updater. */
  public IUpdater baseUpdater() {
    return baseUpdater.clone();
  }

  /**
   * The mechanism the composition accountant sees, with q = expectedBatchSize / datasetSize. Valid under Poisson
   * sampling with that rate (the sampler's job), add/remove neighbours.
   */
  public SampledGaussianMechanism mechanism(long datasetSize) {
    checkArgument(datasetSize >= expectedBatchSize, "datasetSize must be >= expectedBatchSize = %s, was %s",
        (Object) expectedBatchSize, (Object) datasetSize);
    return new SampledGaussianMechanism(expectedBatchSize / datasetSize, noiseMultiplier);
  }

  @Override
  public long stateSize(long numParams) {
    return baseUpdater.stateSize(numParams);
  }

  @Override
  public GradientUpdater instantiate(INDArray viewArray, boolean initializeViewArray) {
    return new DpSgdUpdater(this, baseUpdater.instantiate(viewArray, initializeViewArray));
  }

  @Override
  public GradientUpdater instantiate(Map<String, INDArray> updaterState, boolean initializeStateArrays) {
    return new DpSgdUpdater(this, baseUpdater.instantiate(updaterState, initializeStateArrays));
  }

  @Override
  public DpSgd clone() {
    return builder().clipNorm(clipNorm).noiseMultiplier(noiseMultiplier).expectedBatchSize(expectedBatchSize)
        .clipping(clipping).baseUpdater(baseUpdater).build();
  }

  @Override
  public double getLearningRate(int iteration, int epoch) {
    return baseUpdater.getLearningRate(iteration, epoch);
  }

  @Override
  public boolean hasLearningRate() {
    return baseUpdater.hasLearningRate();
  }

  @Override
  public void setLrAndSchedule(double lr, ISchedule lrSchedule) {
    baseUpdater.setLrAndSchedule(lr, lrSchedule);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof DpSgd d && d.clipNorm == clipNorm && d.noiseMultiplier == noiseMultiplier
        && d.expectedBatchSize == expectedBatchSize && d.clipping == clipping && d.baseUpdater.equals(baseUpdater);
  }

  @Override
  public int hashCode() {
    return Objects.hash(clipNorm, noiseMultiplier, expectedBatchSize, clipping, baseUpdater);
  }

  @Override
  public String toString() {
    return "DpSgd{C=" + clipNorm + ", z=" + noiseMultiplier + ", expectedBatch=" + expectedBatchSize
        + ", clipping=" + clipping + ", base=" + baseUpdater + "}";
  }

  /** Builder; defaults: flat clipping, plain SGD with learning rate 0.1 as the base updater. */
  public static final class Builder {
    private double clipNorm = Double.NaN;
    private double noiseMultiplier = Double.NaN;
    private double expectedBatchSize = Double.NaN;
    private ClippingMode clipping = ClippingMode.FLAT;
    private IUpdater baseUpdater = new Sgd(0.1);

    private Builder() {
    }

    public Builder clipNorm(double c) {
      this.clipNorm = c;
      return this;
    }

    public Builder noiseMultiplier(double z) {
      this.noiseMultiplier = z;
      return this;
    }

    public Builder expectedBatchSize(double qN) {
      this.expectedBatchSize = qN;
      return this;
    }

    public Builder clipping(ClippingMode mode) {
      this.clipping = mode;
      return this;
    }

    public Builder baseUpdater(IUpdater base) {
      this.baseUpdater = base;
      return this;
    }

    public DpSgd build() {
      return new DpSgd(this);
    }
  }
}
