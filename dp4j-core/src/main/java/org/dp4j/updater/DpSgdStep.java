package org.dp4j.updater;

import org.dp4j.noise.NoiseSource;
import org.dp4j.noise.GaussianNoise;
import org.dp4j.noise.PrefetchingNoise;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkState;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalDouble;

import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.api.Updater;
import org.deeplearning4j.nn.conf.layers.BaseLayer;
import org.deeplearning4j.nn.gradient.DefaultGradient;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.graph.vertex.GraphVertex;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.deeplearning4j.optimize.api.TrainingListener;
import org.dp4j.clipping.ClippedGradientSum;
import org.dp4j.clipping.FrozenLayers;
import org.dp4j.clipping.PerExampleClipper;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.api.DataSet;
import org.nd4j.linalg.learning.config.IUpdater;
import org.nd4j.linalg.learning.config.Sgd;

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
 * (Abadi et al. 2016, Alg. 1; docs/sampling.md#expected-batch-size, DP updater). An empty batch (possible under Poisson sampling) still
 * takes the noise-only step the accountant counts. {@code net.score()} is not updated: the loss on private data
 * is not a private release.
 *
 * <pre>{@code
 * DpSgdStep step = DpSgdStep.of(net);
 * for (DataSet batch : poissonBatches) {            // sampled with rate q = expectedBatchSize / N
 *   ClippedGradientSum s = step.apply(batch);
 * }
 * // A logical batch too large for memory: accumulate micro-batches, then one noisy step.
 * for (DataSet micro : logicalBatch.batchBy(512)) {
 *   step.accumulate(micro.getFeatures(), micro.getLabels());
 * }
 * step.step();
 * }</pre>
 *
 * <p>Speed: a stack of dense layers runs the clipper's fused path ({@link PerExampleClipper#isFused()}), plain
 * {@link Sgd} is applied in place, and {@link #of(MultiLayerNetwork)} draws the next step's noise on a background
 * thread ({@link PrefetchingNoise}); other networks and base updaters take the generic path, with the same result.
 *
 * <p>Not thread-safe (one instance per network).
 */
public final class DpSgdStep {
  private final MultiLayerNetwork net;
  private final DpSgd config;
  private final MultiLayerClippable model;
  private final PrivateGradient gradient;
  private final InPlaceSgd inPlace;

  private DpSgdStep(MultiLayerNetwork net, NoiseSource noise) {
    this.net = net;
    this.model = new MultiLayerClippable(net);
    this.config = model.config();
    this.gradient = PrivateGradient.of(model, noise);
    this.inPlace = new InPlaceSgd(net, config);
  }

  /**
   * With secure noise ({@link GaussianNoise#secure()}), drawn ahead on a background thread
   * ({@link PrefetchingNoise}).
   */
  public static DpSgdStep of(MultiLayerNetwork net) {
    return of(net, PrefetchingNoise.secure());
  }

  /**
   * Validates the network (every layer supported by the clipper, every parameter updated by the same {@link DpSgd})
   * before any training happens.
   */
  public static DpSgdStep of(MultiLayerNetwork net, NoiseSource noise) {
    checkArgument(noise != null, "noise source must not be null");
    checkArgument(noise.isSecure(), "the noise source %s is not cryptographically secure, so the steps would carry "
        + "no privacy guarantee; use PrefetchingNoise.secure() or GaussianNoise.secure(), or, in tests only, "
        + "DpSgdStep.withInsecureNoise", noise.getClass().getSimpleName());
    return withInsecureNoise(net, noise);
  }

  /**
   * For tests and reproductions only: accepts a noise source that is not cryptographically secure (a fixed seed, a
   * recording source). <b>Steps taken with it carry no privacy guarantee</b>: whoever knows the seed can remove the
   * noise. {@link #secureNoise()} then reports false and a ledger of such a run must be marked void.
   */
  public static DpSgdStep withInsecureNoise(MultiLayerNetwork net, NoiseSource noise) {
    checkArgument(noise != null, "noise source must not be null");
    checkArgument(net.params() != null, "network must be initialised (call net.init())");
    return new DpSgdStep(net, noise);
  }

  /** Whether the noise source is cryptographically secure (false only after {@link #withInsecureNoise}). */
  public boolean secureNoise() {
    return gradient.secureNoise();
  }

  public DpSgd config() {
    return config;
  }

  /** Whether the clipped sums come from the fused dense path ({@link PerExampleClipper#isFused()}). */
  public boolean isFused() {
    return model.clipper().isFused();
  }

  /** {@link #apply(INDArray, INDArray)} on a batch's features and labels (masks are not supported). */
  public ClippedGradientSum apply(DataSet batch) {
    checkArgument(batch.getFeaturesMaskArray() == null && batch.getLabelsMaskArray() == null,
        "masks are not supported by DP-SGD steps");
    return apply(batch.getFeatures(), batch.getLabels());
  }

  /**
   * Takes one private step on the batch (0 rows allowed) and returns its clipping statistics. The returned sum is
   * the network's gradient view, overwritten by the update; read the norms and counts from it, not the sum. These
   * statistics are not private (see {@link ClippedGradientSum}): for diagnostics only, never log or publish them.
   * Equivalent to {@link #accumulate} then {@link #step}.
   */
  public ClippedGradientSum apply(INDArray features, INDArray labels) {
    checkState(gradient.accumulated() == 0, "%s micro-batches were accumulated but not stepped; call step() first",
        gradient.accumulated());
    ClippedGradientSum sum = accumulate(features, labels);
    step();
    return sum;
  }

  /**
   * Adds the clipped per-example sum of one physical micro-batch (0 rows allowed) to the logical batch being
   * accumulated, without noise and without touching the parameters: a logical batch of thousands of examples (a
   * Poisson sample) is processed in micro-batches of bounded memory, then {@link #step} adds the noise once and
   * updates once. Each example is clipped on its own, so the logical batch's sum has sensitivity C whatever the
   * split, and the accountant counts one step per logical batch, as for {@link #apply}. The returned statistics
   * are the micro-batch's; its {@code sum()} is the running total.
   */
  public ClippedGradientSum accumulate(INDArray features, INDArray labels) {
    return gradient.accumulate(new INDArray[] {features}, new INDArray[] {labels}, null, null);
  }

  /**
   * Ends the logical batch: adds N(0, (zC)² I) once to the accumulated clipped sum, divides by the expected batch
   * size, notifies the listeners and updates the parameters (one mechanism step). Without any accumulated
   * micro-batch this is the noise-only step of an empty Poisson batch.
   */
  public void step() {
    INDArray gradient = this.gradient.finish();
    int iteration = net.getIterationCount();
    int epoch = net.getEpochCount();
    // DL4J's order: listeners see the gradient before the updater; a privacy ledger listener throws here, before
    // the parameters change, when this update would exceed the budget.
    for (TrainingListener listener : net.getListeners()) {
      listener.onGradientCalculation(net);
    }
    OptionalDouble rate = inPlace.rate(iteration, epoch);
    if (rate.isPresent()) {
      // What DL4J's Sgd updater does (update = η·gradient), without its per-block bookkeeping.
      gradient.muli(rate.getAsDouble());
    } else {
      Updater updater = net.getUpdater(true);
      // Mini-batch size 1: the gradient is already divided by the expected batch size.
      DpSgdUpdater.applyPrivatised(() -> updater.update(net, new DefaultGradient(gradient), iteration, epoch, 1,
          LayerWorkspaceMgr.noWorkspaces()));
    }
    INDArray params = net.params();
    params.subi(gradient.reshape(params.shape()));
    net.applyConstraints(iteration, epoch);
    net.getLayerWiseConfigurations().setIterationCount(iteration + 1);
    for (TrainingListener listener : net.getListeners()) {
      listener.iterationDone(net, iteration, epoch);
    }
  }

  /**
   * The one {@link DpSgd} shared by every layer with trainable (not frozen) parameters; refuses a network where a layer uses another
   * updater or a different mechanism.
   */
  public static DpSgd configOf(MultiLayerNetwork net) {
    List<Layer> layers = new ArrayList<>();
    List<String> names = new ArrayList<>();
    for (int i = 0; i < net.getnLayers(); i++) {
      layers.add(net.getLayer(i));
      names.add(String.valueOf(i));
    }
    return sharedConfig(layers, names);
  }

  /**
   * The one {@link DpSgd} shared by every layer vertex of the graph with trainable (not frozen) parameters; refuses
   * a graph where a layer uses another updater or a different mechanism.
   */
  public static DpSgd configOf(ComputationGraph graph) {
    List<Layer> layers = new ArrayList<>();
    List<String> names = new ArrayList<>();
    for (GraphVertex v : graph.getVertices()) {
      if (v.hasLayer() && !FrozenLayers.isFrozen(v)) {
        layers.add(v.getLayer());
        names.add("'" + v.getVertexName() + "'");
      }
    }
    return sharedConfig(layers, names);
  }

  private static DpSgd sharedConfig(List<Layer> layers, List<String> names) {
    DpSgd shared = null;
    for (int i = 0; i < layers.size(); i++) {
      Layer layer = layers.get(i);
      String name = names.get(i);
      if (layer.numParams() == 0 || FrozenLayers.isFrozen(layer)) {
        continue;   // not trained: no updater of its own matters
      }
      org.deeplearning4j.nn.conf.layers.Layer conf = layer.conf().getLayer();
      List<BaseLayer> withUpdaters = UpdaterLayers.of(conf);
      checkArgument(!withUpdaters.isEmpty(), "layer %s (%s) has parameters but no updater configuration", name,
          conf.getClass().getSimpleName());
      for (BaseLayer base : withUpdaters) {
        // A null bias updater means the bias uses the layer's updater.
        IUpdater bias = base.getBiasUpdater() == null ? base.getIUpdater() : base.getBiasUpdater();
        for (IUpdater updater : new IUpdater[] {base.getIUpdater(), bias}) {
          checkArgument(updater instanceof DpSgd, "layer %s (%s) uses updater %s; every layer with parameters "
              + "must use the same DpSgd updater", name, conf.getClass().getSimpleName(), updater);
          checkArgument(shared == null || shared.equals(updater), "layer %s uses %s but an earlier layer uses %s; "
              + "all layers must share one DpSgd mechanism", name, updater, shared);
          shared = (DpSgd) updater;
        }
      }
    }
    checkArgument(shared != null, "network has no parameters to train");
    return shared;
  }
}
