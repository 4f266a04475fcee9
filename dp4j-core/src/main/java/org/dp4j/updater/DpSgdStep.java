package org.dp4j.updater;

import org.dp4j.noise.NoiseSource;
import org.dp4j.noise.GaussianNoise;
import org.dp4j.noise.PrefetchingNoise;

import static com.google.common.base.Preconditions.checkState;
import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.ArrayList;
import java.util.List;

import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.api.Model;
import org.deeplearning4j.nn.conf.layers.BaseLayer;
import org.deeplearning4j.nn.api.Updater;
import org.deeplearning4j.nn.gradient.DefaultGradient;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.graph.vertex.GraphVertex;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.optimize.api.TrainingListener;
import org.dp4j.clipping.ClippedGradientSum;
import org.dp4j.clipping.FrozenLayers;
import org.dp4j.clipping.PerExampleClipper;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.api.DataSet;
import org.nd4j.linalg.learning.config.IUpdater;
import org.nd4j.linalg.learning.config.Sgd;

/**
 * One DP-SGD step on a {@link MultiLayerNetwork} or a {@link ComputationGraph} configured with {@link DpSgd}:
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
 * // given: MultiLayerNetwork net; List<DataSet> poissonBatches; DataSet logicalBatch
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
 * <p>Speed: a stack of dense layers runs the clipper's fused path ({@link PerExampleClipper#isFused()}),
 * convolutions and pooling run dp4j's own im2col + GEMM code on reused arrays (see {@link PerExampleClipper}), plain
 * {@link Sgd} is applied in place, and {@link #of(MultiLayerNetwork)} draws the next step's noise on a background
 * thread ({@link PrefetchingNoise}); other networks and base updaters take the generic path, with the same result.
 *
 * <p>The clipped sum may also be computed elsewhere and handed in with {@link #accumulateClippedSum} (a distributed
 * step: executors clip their part of the Poisson batch, the driver adds noise once and updates).
 *
 * <p>Not thread-safe (one instance per network).
 */
public final class DpSgdStep {
  private final UpdateTarget target;
  private final DpSgd config;
  private final ClippableModel model;
  private final PrivateGradient gradient;

  private DpSgdStep(ClippableModel model, UpdateTarget target, NoiseSource noise) {
    this.model = model;
    this.target = target;
    this.config = model.config();
    this.gradient = PrivateGradient.of(model, noise);
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
    requireSecure(noise);
    return withInsecureNoise(net, noise);
  }

  /**
   * Refuses a noise source that is not cryptographically secure (the run would carry no guarantee), naming the secure
   * sources to use; returns it otherwise.
   */
  public static NoiseSource requireSecure(NoiseSource noise) {
    checkArgument(noise != null, "noise source must not be null");
    checkArgument(noise.isSecure(), "the noise source %s is not cryptographically secure, so the steps would carry "
        + "no privacy guarantee; use PrefetchingNoise.secure() or GaussianNoise.secure(), or, in tests only, "
        + "DpSgdStep.withInsecureNoise", noise.getClass().getSimpleName());
    return noise;
  }

  /**
   * For tests and reproductions only: accepts a noise source that is not cryptographically secure (a fixed seed, a
   * recording source). <b>Steps taken with it carry no privacy guarantee</b>: whoever knows the seed can remove the
   * noise. {@link #secureNoise()} then reports false and a ledger of such a run must be marked void.
   */
  public static DpSgdStep withInsecureNoise(MultiLayerNetwork net, NoiseSource noise) {
    checkArgument(noise != null, "noise source must not be null");
    checkArgument(net.params() != null, "network must be initialised (call net.init())");
    MultiLayerClippable model = new MultiLayerClippable(net);
    return new DpSgdStep(model, UpdateTarget.of(net, model.config()), noise);
  }

  /**
   * A step on a {@link ComputationGraph} (one or more inputs and outputs; features and labels of
   * {@link #accumulate(INDArray[], INDArray[])}), with secure noise drawn ahead ({@link PrefetchingNoise}). The
   * graph is validated as by {@link ClippableModel#of(ComputationGraph)}. The base updater is always DL4J's own.
   */
  public static DpSgdStep of(ComputationGraph graph) {
    return of(graph, PrefetchingNoise.secure());
  }

  /** {@link #of(ComputationGraph)} with the given secure noise source. */
  public static DpSgdStep of(ComputationGraph graph, NoiseSource noise) {
    requireSecure(noise);
    return withInsecureNoise(graph, noise);
  }

  /** {@link #withInsecureNoise(MultiLayerNetwork, NoiseSource)} for a graph: tests and reproductions only. */
  public static DpSgdStep withInsecureNoise(ComputationGraph graph, NoiseSource noise) {
    checkArgument(noise != null, "noise source must not be null");
    checkArgument(graph.params() != null, "graph must be initialised (call graph.init())");
    return new DpSgdStep(ClippableModel.of(graph), UpdateTarget.of(graph), noise);
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
    return model instanceof MultiLayerClippable m && m.clipper().isFused();
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
    return accumulate(new INDArray[] {features}, new INDArray[] {labels});
  }

  /**
   * {@link #accumulate(INDArray, INDArray)} with augmentation multiplicity (De et al. 2022): each example has
   * {@code views} consecutive rows (an image and its augmented copies, computed from that example alone), and the
   * mean of their gradients is clipped once, so the mechanism, its sensitivity C and the accounting are those of one
   * row per example. Needs the fused dense path ({@link #requireViews}).
   *
   * @param features K·m rows: rows e·K … e·K + K − 1 are example e's views
   * @param labels one row per feature row
   */
  public ClippedGradientSum accumulate(INDArray features, INDArray labels, int views) {
    return gradient.accumulateViews(features, labels, views);
  }

  /** Refuses K views per example where {@link #accumulate(INDArray, INDArray, int)} cannot take them. */
  public void requireViews(int views) {
    model.requireViews(views);
  }

  /** {@link #accumulate(INDArray, INDArray)} with one array per input and per output (a graph's). */
  public ClippedGradientSum accumulate(INDArray[] features, INDArray[] labels) {
    return gradient.accumulate(features, labels, null, null);
  }

  /**
   * Adds a clipped per-example sum Σ_i clip_C(g_i) computed <em>outside</em> this step — by other processes on
   * other parts of the same logical Poisson batch, e.g. Spark executors ({@code dp4j-spark}) — to the logical batch,
   * as {@link #accumulate} adds a local micro-batch's; {@link #step} then adds the noise once and updates once. The
   * sum must have {@link ClippableModel#gradientView()}'s length and layout and must have been computed at the
   * current parameters by {@link ClippableModel#clippedSum} of the same architecture with this step's clip norm
   * (each example clipped on its own, each record of the data set at most once): its sensitivity is then C, as for
   * a local batch. Given the same examples and noise draw, accumulate-then-step and this path give the same update
   * (up to floating-point summation order).
   *
   * <pre>{@code
   * // given: ClippableModel executorModel; INDArray x; INDArray y; double clipNorm; DpSgdStep step; INDArray sumOfPartials
   * INDArray partial = executorModel.gradientView().ulike();
   * executorModel.clippedSum(new INDArray[] {x}, new INDArray[] {y}, null, null, clipNorm, partial);
   * step.accumulateClippedSum(sumOfPartials);   // on the driver
   * step.step();                                // noise once, divide by qN, base updater
   * }</pre>
   */
  public void accumulateClippedSum(INDArray clippedSum) {
    gradient.addClippedSum(clippedSum);
  }

  /**
   * Ends the logical batch: adds N(0, (zC)² I) once to the accumulated clipped sum, divides by the expected batch
   * size, notifies the listeners and updates the parameters (one mechanism step). Without any accumulated
   * micro-batch this is the noise-only step of an empty Poisson batch.
   */
  public void step() {
    INDArray gradient = this.gradient.finish();
    Model net = target.model();
    int iteration = target.iteration();
    int epoch = target.epoch();
    // DL4J's order: listeners see the gradient before the updater; a privacy ledger listener throws here, before
    // the parameters change, when this update would exceed the budget.
    for (TrainingListener listener : target.listeners()) {
      listener.onGradientCalculation(net);
    }
    target.toUpdate(gradient, iteration, epoch);
    INDArray params = net.params();
    params.subi(gradient.reshape(params.shape()));
    net.applyConstraints(iteration, epoch);
    target.setIterationCount(iteration + 1);
    for (TrainingListener listener : target.listeners()) {
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
      // Every parameter's own updater, as DL4J's updater blocks read them: wrappers (Bidirectional, LastTimeStep)
      // and SameDiff layers (SelfAttentionLayer) keep theirs outside BaseLayer.
      org.deeplearning4j.nn.conf.layers.Layer conf = layer.conf().getLayer();
      for (String param : layer.paramTable().keySet()) {
        IUpdater updater = layer.getConfig().getUpdaterByParam(param);
        checkArgument(updater instanceof DpSgd, "layer %s (%s) uses updater %s for parameter %s; every layer with "
            + "parameters must use the same DpSgd updater", name, conf.getClass().getSimpleName(), updater, param);
        checkArgument(shared == null || shared.equals(updater), "layer %s uses %s but an earlier layer uses %s; "
            + "all layers must share one DpSgd mechanism", name, updater, shared);
        shared = (DpSgd) updater;
      }
    }
    checkArgument(shared != null, "network has no parameters to train");
    return shared;
  }
}
