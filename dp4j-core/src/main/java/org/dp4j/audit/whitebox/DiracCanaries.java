package org.dp4j.audit.whitebox;

import static com.google.common.base.Preconditions.checkNotNull;
import static com.google.common.base.Preconditions.checkState;
import static org.dp4j.InvalidSettingException.checkArgument;

import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.dp4j.audit.CanaryCoins;
import org.dp4j.noise.AesCtrRandom;
import org.dp4j.noise.NoiseSource;
import org.dp4j.sampling.PoissonSampler;
import org.dp4j.updater.ClippableModel;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * Gradient-space ("Dirac") canaries for a white-box audit (Steinke, Nasr &amp; Jagielski 2023): canary i is a
 * record whose gradient is C·e_{j_i}, a fixed coordinate direction of norm exactly C (so clipping leaves it as it
 * is). An included canary joins each step's batch independently with the run's sampling rate q, as every record
 * does under Poisson sampling, and its gradient is added to the step's clipped sum just before the Gaussian noise;
 * an excluded canary never takes part. The injection rides on the run's own {@link NoiseSource} ({@link #inject}),
 * so the audited steps are the production ones: the same clipped sum, the same noise, the same division by the
 * expected batch size, the same updater.
 *
 * <pre>{@code
 * // given: MultiLayerNetwork net; int[] coordinates; CanaryCoins coins; double samplingRate; DpSgdTrainer.Builder trainer
 * DiracCanaries canaries = new DiracCanaries(net, coordinates, coins, samplingRate, AesCtrRandom.secure());
 * trainer.noise(canaries.inject(PrefetchingNoise.secure()));
 * }</pre>
 *
 * <p>Not thread-safe.
 */
public final class DiracCanaries {
  private final MultiLayerNetwork net;
  private final int[] coordinates;
  private final int[] includedCanaries;
  private final double clipNorm;
  private final PoissonSampler perStep;
  private final int firstTrainable;
  private int[] inThisStep = new int[0];
  private boolean drawnAhead;
  private long canarySteps;

  /**
   * @param coordinates flat trainable parameter index of each canary, distinct
   * @param coins which canaries are included
   * @param samplingRate q, the Poisson rate of the run's sampler (each included canary joins a step with it)
   * @param random the per-step sampling of the included canaries (secure, except in tests)
   */
  public DiracCanaries(MultiLayerNetwork net, int[] coordinates, CanaryCoins coins, double samplingRate,
      AesCtrRandom random) {
    this.net = checkNotNull(net, "net");
    checkNotNull(coins, "coins");
    checkArgument(coordinates.length == coins.canaries(), "%s coordinates for %s canaries", coordinates.length,
        coins.canaries());
    checkArgument(java.util.Arrays.stream(coordinates).distinct().count() == coordinates.length,
        "canary coordinates must be distinct");
    this.coordinates = coordinates.clone();
    this.includedCanaries = java.util.stream.IntStream.range(0, coins.canaries()).filter(coins::included).toArray();
    ClippableModel model = ClippableModel.of(net);
    this.clipNorm = model.config().clipNorm();
    this.firstTrainable = QuietCoordinates.start(model.trainableViews().get(0), model.gradientView());
    this.perStep = includedCanaries.length == 0 ? null
        : PoissonSampler.withRate(includedCanaries.length, samplingRate, checkNotNull(random, "random"));
  }

  /**
   * The run's noise with the canaries injected: each step, before {@code delegate} adds its noise to the first
   * trainable block, the included canaries sampled for this step (unless {@link #drawStep} already drew them) add
   * C to their coordinates. Secure exactly when {@code delegate} is.
   */
  public NoiseSource inject(NoiseSource delegate) {
    checkNotNull(delegate, "delegate");
    return new NoiseSource() {
      @Override
      public void addGaussian(INDArray target, double std) {
        addCanaries(target);
        delegate.addGaussian(target, std);
      }

      @Override
      public boolean isSecure() {
        return delegate.isSecure();
      }
    };
  }

  /**
   * Samples the included canaries of the next step now (the injection then uses them) and returns how many there
   * are: for a training loop that needs the realised batch size before the noise (test doubles).
   */
  public int drawStep() {
    inThisStep = perStep == null ? new int[0] : perStep.nextBatch();
    drawnAhead = true;
    return inThisStep.length;
  }

  /** Canary participations so far (Σ over steps of the canaries in the batch). */
  public long canarySteps() {
    return canarySteps;
  }

  public int[] coordinates() {
    return coordinates.clone();
  }

  private void addCanaries(INDArray target) {
    INDArray whole = net.getFlattenedGradients();
    checkState(whole != null, "the network has no gradient view yet");
    int start = QuietCoordinates.start(target, whole);
    if (start == firstTrainable) {   // the first block of a step: a new step begins
      if (!drawnAhead) {
        drawStep();
      }
      drawnAhead = false;
      canarySteps += inThisStep.length;
    }
    long end = start + target.length();
    for (int k : inThisStep) {
      int j = coordinates[includedCanaries[k]];
      if (j >= start && j < end) {
        long local = j - start;
        target.putScalar(local, target.getDouble(local) + clipNorm);
      }
    }
  }
}
