package org.dp4j.updater;

import static com.google.common.base.Preconditions.checkNotNull;
import static org.dp4j.InvalidSettingException.checkArgument;

import org.dp4j.clipping.ClippedGradientSum;
import org.dp4j.noise.NoiseSource;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * The DP-SGD gradient of one step, written into a model's gradient view: the clipped per-example sum
 * S = Σ_i clip_C(g_i) over one logical batch (accumulated over any number of micro-batches), plus one draw of
 * N(0, (zC)² I) on the trainable parameters, divided by the expected batch size q·N, never the realised one
 * (Abadi et al. 2016, Alg. 1; docs/sampling.md#expected-batch-size, DP updater). Frozen parameters get an exact zero. What happens next is
 * the caller's: {@link DpSgdStep} applies the base updater itself, a private network lets DL4J's {@code fit}
 * apply it ({@link #runPrivatised}).
 *
 * <pre>{@code
 * // given: MultiLayerNetwork net; INDArray x; INDArray y
 * PrivateGradient g = PrivateGradient.of(ClippableModel.of(net), PrefetchingNoise.secure());
 * g.accumulate(new INDArray[] {x}, new INDArray[] {y}, null, null);
 * g.finish();     // net.getFlattenedGradients() = (S + N(0, (zC)^2 I)) / (qN)
 * }</pre>
 *
 * <p>Not thread-safe (one instance per model).
 */
public final class PrivateGradient {
  private final ClippableModel model;
  private final DpSgd config;
  private final NoiseSource noise;
  private int accumulated;

  private PrivateGradient(ClippableModel model, NoiseSource noise) {
    this.model = model;
    this.config = model.config();
    this.noise = noise;
  }

  public static PrivateGradient of(ClippableModel model, NoiseSource noise) {
    return new PrivateGradient(checkNotNull(model, "model"), checkNotNull(noise, "noise"));
  }

  public ClippableModel model() {
    return model;
  }

  public DpSgd config() {
    return config;
  }

  /** Whether the noise comes from a cryptographically secure generator ({@link NoiseSource#isSecure()}). */
  public boolean secureNoise() {
    return noise.isSecure();
  }

  /** Micro-batches accumulated since the last {@link #finish()}. */
  public int accumulated() {
    return accumulated;
  }

  /**
   * Adds the clipped per-example sum of one micro-batch (0 rows allowed) to the logical batch; the first call after
   * {@link #finish()} starts from zero. The statistics returned are not private (see {@link ClippedGradientSum}).
   */
  public ClippedGradientSum accumulate(INDArray[] features, INDArray[] labels, INDArray[] featureMasks,
      INDArray[] labelMasks) {
    INDArray gradient = model.gradientView();
    ClippedGradientSum sum = accumulated == 0
        ? model.clippedSum(features, labels, featureMasks, labelMasks, config.clipNorm(), gradient)
        : model.addClippedSum(features, labels, featureMasks, labelMasks, config.clipNorm(), gradient);
    accumulated++;
    return sum;
  }

  /**
   * {@link #accumulate} for examples of {@code views} consecutive rows each, whose mean gradient is clipped once
   * (augmentation multiplicity; {@link ClippableModel#clippedSumOfViews}). Only for a {@code MultiLayerNetwork} on
   * the fused dense path.
   */
  public ClippedGradientSum accumulateViews(INDArray features, INDArray labels, int views) {
    ClippedGradientSum sum = model.clippedSumOfViews(features, labels, views, config.clipNorm(),
        model.gradientView(), accumulated > 0);
    accumulated++;
    return sum;
  }

  /**
   * Adds a clipped per-example sum computed elsewhere (other processes' parts of the same logical batch, laid out
   * like {@link ClippableModel#gradientView()}) to the logical batch; see {@link DpSgdStep#accumulateClippedSum}
   * for what the caller must guarantee. The first call after {@link #finish()} starts from zero.
   */
  public void addClippedSum(INDArray clippedSum) {
    checkNotNull(clippedSum, "clippedSum");
    INDArray gradient = model.gradientView();
    checkArgument(clippedSum.length() == gradient.length(), "the clipped sum has %s entries but the model has %s "
        + "parameters", clippedSum.length(), gradient.length());
    INDArray sum = clippedSum.reshape(gradient.shape()).castTo(gradient.dataType());
    if (accumulated == 0) {
      gradient.assign(sum);
    } else {
      gradient.addi(sum);
    }
    accumulated++;
  }

  /**
   * Ends the logical batch: noise once on the trainable parameters, frozen parameters set to exactly zero, division
   * by the expected batch size. Without any accumulated micro-batch this is the noise-only step of an empty
   * Poisson batch. Returns the gradient view.
   */
  public INDArray finish() {
    return finishUndivided().divi(config.expectedBatchSize());
  }

  /**
   * {@link #finish()} without the division by the expected batch size, for a caller whose updater divides by it
   * (DL4J divides by the mini-batch size it is given; handing it q·N, when that is an integer, saves a pass).
   */
  public INDArray finishUndivided() {
    INDArray gradient = model.gradientView();
    if (accumulated == 0) {
      gradient.assign(0.0);
    }
    accumulated = 0;
    for (INDArray view : model.trainableViews()) {
      noise.addGaussian(view, config.noiseStd());
    }
    for (INDArray view : model.frozenViews()) {
      view.assign(0.0);
    }
    return gradient;
  }

  /**
   * Runs DL4J code that applies a gradient made by {@link #finish()} through the network's updater: inside it,
   * {@link DpSgd}'s updater accepts the gradient instead of refusing it as non-private. For training loops that
   * privatise every gradient before DL4J's updater sees it; anything else would train without privacy.
   */
  public static void runPrivatised(Runnable update) {
    checkArgument(update != null, "update must not be null");
    DpSgdUpdater.applyPrivatised(update);
  }
}
