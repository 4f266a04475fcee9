package org.dp4j.updater;

import org.dp4j.noise.NoiseSource;
import org.dp4j.noise.GaussianNoise;

import static com.google.common.base.Preconditions.checkArgument;

import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.api.Updater;
import org.deeplearning4j.nn.conf.layers.BaseLayer;
import org.deeplearning4j.nn.gradient.DefaultGradient;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.deeplearning4j.optimize.api.TrainingListener;
import org.dp4j.clipping.ClippedGradientSum;
import org.dp4j.clipping.PerExampleClipper;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.api.DataSet;
import org.nd4j.linalg.learning.config.IUpdater;

/**
 * One DP-SGD step on a {@link MultiLayerNetwork} configured with {@link DpSgd}:
 * <ol>
 *   <li>S = Σ_i clip_C(g_i) by {@link PerExampleClipper} (vectorised), written into the network's gradient view;</li>
 *   <li>S += N(0, (zC)² I) from the {@link NoiseSource} (secure by default);</li>
 *   <li>S /= q·N, the expected batch size — never the realised one, which is data-dependent;</li>
 *   <li>DL4J's updater applies the base updater (and any L1/L2 regularisation, which is data-independent), then
 *       θ ← θ − update, constraints are applied, the iteration count advances and the network's
 *       {@code TrainingListener}s get {@code iterationDone}.</li>
 * </ol>
 * With plain SGD at learning rate η this is exactly θ ← θ − η·(Σ_i clip_C(g_i) + N(0,(zC)²I))/(q·N)
 * (Abadi et al. 2016, Alg. 1; digest 001 §6, DP updater). An empty batch (possible under Poisson sampling) still
 * takes the noise-only step the accountant counts. {@code net.score()} is not updated: the loss on private data
 * is not a private release.
 *
 * <pre>{@code
 * DpSgdStep step = DpSgdStep.of(net);
 * for (DataSet batch : poissonBatches) {            // sampled with rate q = expectedBatchSize / N
 *   ClippedGradientSum s = step.apply(batch);
 * }
 * }</pre>
 *
 * <p>Not thread-safe (one instance per network).
 */
public final class DpSgdStep {
  private final MultiLayerNetwork net;
  private final DpSgd config;
  private final PerExampleClipper clipper;
  private final NoiseSource noise;

  private DpSgdStep(MultiLayerNetwork net, DpSgd config, NoiseSource noise) {
    this.net = net;
    this.config = config;
    this.clipper = PerExampleClipper.of(net, config.clipping());
    this.noise = noise;
  }

  /** With secure noise ({@link GaussianNoise#secure()}). */
  public static DpSgdStep of(MultiLayerNetwork net) {
    return of(net, GaussianNoise.secure());
  }

  /**
   * Validates the network (every layer supported by the clipper, every parameter updated by the same {@link DpSgd})
   * before any training happens.
   */
  public static DpSgdStep of(MultiLayerNetwork net, NoiseSource noise) {
    checkArgument(noise != null, "noise source must not be null");
    checkArgument(net.params() != null, "network must be initialised (call net.init())");
    // clone() goes through the builder, so a configuration edited in JSON is validated again here.
    return new DpSgdStep(net, configOf(net).clone(), noise);
  }

  public DpSgd config() {
    return config;
  }

  /** {@link #apply(INDArray, INDArray)} on a batch's features and labels (masks are not supported). */
  public ClippedGradientSum apply(DataSet batch) {
    checkArgument(batch.getFeaturesMaskArray() == null && batch.getLabelsMaskArray() == null,
        "masks are not supported by DP-SGD steps");
    return apply(batch.getFeatures(), batch.getLabels());
  }

  /**
   * Takes one private step on the batch (0 rows allowed) and returns its clipping statistics. The returned sum is
   * the network's gradient view, overwritten by the update; read the norms and counts from it, not the sum.
   */
  public ClippedGradientSum apply(INDArray features, INDArray labels) {
    if (net.getFlattenedGradients() == null) {
      net.initGradientsView();
    }
    INDArray gradient = net.getFlattenedGradients();
    ClippedGradientSum sum = clipper.clippedSum(features, labels, config.clipNorm(), gradient);
    noise.addGaussian(gradient, config.noiseStd());
    gradient.divi(config.expectedBatchSize());
    int iteration = net.getIterationCount();
    int epoch = net.getEpochCount();
    // DL4J's order: listeners see the gradient before the updater; a privacy ledger listener throws here, before
    // the parameters change, when this update would exceed the budget.
    for (TrainingListener listener : net.getListeners()) {
      listener.onGradientCalculation(net);
    }
    Updater updater = net.getUpdater(true);
    // Mini-batch size 1: the gradient is already divided by the expected batch size.
    DpSgdUpdater.applyPrivatised(() -> updater.update(net, new DefaultGradient(gradient), iteration, epoch, 1,
        LayerWorkspaceMgr.noWorkspaces()));
    INDArray params = net.params();
    params.subi(gradient.reshape(params.shape()));
    net.applyConstraints(iteration, epoch);
    net.getLayerWiseConfigurations().setIterationCount(iteration + 1);
    for (TrainingListener listener : net.getListeners()) {
      listener.iterationDone(net, iteration, epoch);
    }
    return sum;
  }

  /**
   * The one {@link DpSgd} shared by every layer with parameters; refuses a network where a layer uses another
   * updater or a different mechanism.
   */
  public static DpSgd configOf(MultiLayerNetwork net) {
    DpSgd shared = null;
    for (int i = 0; i < net.getnLayers(); i++) {
      Layer layer = net.getLayer(i);
      if (layer.numParams() == 0) {
        continue;
      }
      org.deeplearning4j.nn.conf.layers.Layer conf = layer.conf().getLayer();
      checkArgument(conf instanceof BaseLayer, "layer %s (%s) has parameters but no updater configuration", i,
          conf.getClass().getSimpleName());
      BaseLayer base = (BaseLayer) conf;
      // A null bias updater means the bias uses the layer's updater.
      IUpdater bias = base.getBiasUpdater() == null ? base.getIUpdater() : base.getBiasUpdater();
      for (IUpdater updater : new IUpdater[] {base.getIUpdater(), bias}) {
        checkArgument(updater instanceof DpSgd, "layer %s (%s) uses updater %s; every layer with parameters "
            + "must use the same DpSgd updater", i, conf.getClass().getSimpleName(), updater);
        checkArgument(shared == null || shared.equals(updater), "layer %s uses %s but an earlier layer uses %s; "
            + "all layers must share one DpSgd mechanism", i, updater, shared);
        shared = (DpSgd) updater;
      }
    }
    checkArgument(shared != null, "network has no parameters to train");
    return shared;
  }
}
