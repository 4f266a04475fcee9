package org.dp4j.training;

import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.Optional;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.gradient.DefaultGradient;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.dp4j.noise.NoiseSource;
import org.dp4j.sampling.SamplingPlan;
import org.dp4j.updater.ClippableModel;
import org.dp4j.updater.DpSgd;
import org.dp4j.updater.DpSgdStep;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.api.DataSet;
import org.nd4j.linalg.dataset.api.MultiDataSet;
import org.nd4j.linalg.dataset.api.iterator.DataSetIterator;
import org.nd4j.linalg.dataset.api.iterator.MultiDataSetIterator;

/**
 * A {@link ComputationGraph} whose own {@code fit} is DP-SGD, as {@link PrivateMultiLayerNetwork} is for a
 * {@code MultiLayerNetwork}: {@code fit(iterator, epochs)}, {@code fit(DataSet)} and DL4J's
 * {@code EarlyStoppingGraphTrainer} take private steps with DL4J's loop, listeners and updater. Per step: the
 * clipped per-example sum Σ_i clip_C(g_i) by the vectorised {@link org.dp4j.clipping.GraphPerExampleClipper}
 * (computed instead of DL4J's backward pass), one secure Gaussian draw N(0,(zC)² I) on the trainable parameters,
 * division by the expected batch size, then DL4J's updater (the {@link DpSgd}'s base updater) and step (Abadi et
 * al. 2016, Alg. 1). Frozen vertices ({@code FrozenVertex}, {@code FrozenLayer}, {@code setFeatureExtractor}) take
 * no part and stay bit-identical.
 *
 * <p>Batches come from a {@link SampledDataSetIterator} (one input, one output) or a
 * {@link SampledMultiDataSetIterator} (several inputs or outputs: each example's loss is the sum of its outputs'
 * losses, clipped as one); any other iterator, a {@code DataSet} or {@code MultiDataSet} these did not draw, and
 * {@code fit} on raw arrays are refused. Listeners see
 * the events and the gradient described in {@link PrivateMultiLayerNetwork}; {@link #score()} is {@code NaN}.
 *
 * <pre>{@code
 * // given: org.nd4j.linalg.dataset.DataSet trainSet
 * ComputationGraphConfiguration conf = new NeuralNetConfiguration.Builder()
 *     .updater(DpSgd.builder().clipNorm(1.0).noiseMultiplier(1.1).expectedBatchSize(256)
 *         .baseUpdater(new org.nd4j.linalg.learning.config.Sgd(0.1)).build())
 *     .graphBuilder().addInputs("in")
 *     .addLayer("hidden", new org.deeplearning4j.nn.conf.layers.DenseLayer.Builder().nIn(784).nOut(128)
 *         .activation(org.nd4j.linalg.activations.Activation.TANH).build(), "in")
 *     .addLayer("out", new org.deeplearning4j.nn.conf.layers.OutputLayer.Builder().nIn(128).nOut(10)
 *         .activation(org.nd4j.linalg.activations.Activation.SOFTMAX).build(), "hidden")
 *     .setOutputs("out").build();
 * PrivateComputationGraph graph = new PrivateComputationGraph(conf);
 * graph.init();
 * SampledDataSetIterator train = SampledDataSetIterator.poisson(IndexedData.of(trainSet), 256);
 * graph.addListeners(org.dp4j.listeners.PrivacyLedgerListener.forNetwork(graph, train, 1e-5).build());
 * graph.fit(train, 20);
 * }</pre>
 *
 * <p>A graph restored with {@code ModelSerializer} is a plain {@code ComputationGraph}: continue it with
 * {@link #resume} and the ledger restored from the same checkpoint. Not thread-safe.
 */
public class PrivateComputationGraph extends ComputationGraph implements PrivateTraining {
  private static final long serialVersionUID = 1L;

  private final transient PrivateFitState state = new PrivateFitState(() -> ClippableModel.of(this));
  private transient INDArray[] labels;   // DL4J's own are private

  public PrivateComputationGraph(ComputationGraphConfiguration conf) {
    super(conf);
  }

  /**
   * Continues a private graph restored with {@code ModelSerializer} (parameters, updater state and iteration count
   * kept). Its ledger must be restored from the same checkpoint.
   */
  public static PrivateComputationGraph resume(ComputationGraph restored) {
    checkArgument(restored.params() != null, "graph must be initialised");
    DpSgdStep.configOf(restored);   // refuses a graph that is not private
    ComputationGraphConfiguration conf = restored.getConfiguration().clone();
    conf.setIterationCount(restored.getIterationCount());
    conf.setEpochCount(restored.getEpochCount());
    PrivateComputationGraph graph = new PrivateComputationGraph(conf);
    graph.init(restored.params().dup(), false);
    PrivateFitState.copyUpdaterState(restored.getUpdater(false), () -> graph.getUpdater(true));
    return graph;
  }

  /**
   * For tests and reproductions only: noise from a source that is not cryptographically secure. A run with it
   * carries <b>no privacy guarantee</b>; a privacy listener marks every guarantee void. Call before training.
   */
  public PrivateComputationGraph insecureNoise(NoiseSource noise) {
    state.insecureNoise(noise);
    return this;
  }

  @Override
  public DpSgd dpSgd() {
    return DpSgdStep.configOf(this);
  }

  @Override
  public Optional<SamplingPlan> samplingPlan() {
    return state.samplingPlan();
  }

  @Override
  public boolean secureNoise() {
    return state.secureNoise();
  }

  @Override
  public int iterationCount() {
    return getIterationCount();
  }

  @Override
  public void claimAccounting(Object claimant) {
    state.claimAccounting(claimant);
  }

  /** One epoch of private steps over a {@link SampledDataSetIterator}; any other iterator is refused. */
  @Override
  public void fit(DataSetIterator iterator) {
    state.fitIterator(iterator, () -> super.fit(iterator));
  }

  /**
   * One epoch of private steps over a {@link SampledMultiDataSetIterator} (several inputs or outputs); any other
   * {@code MultiDataSetIterator} is refused, naming the sampler to use.
   */
  @Override
  public synchronized void fit(MultiDataSetIterator iterator) {
    if (state.stepping() && !(iterator instanceof SampledMultiDataSetIterator)) {
      super.fit(iterator);    // DL4J's adapter of the SampledDataSetIterator passed to fit(DataSetIterator)
      return;
    }
    state.fitIterator(iterator, () -> super.fit(iterator));
  }

  /** One private step on a batch drawn by a {@link SampledDataSetIterator} (as DL4J's early stopping calls it). */
  @Override
  public void fit(DataSet data) {
    state.fitBatch(data, () -> super.fit(data));
  }

  /** One private step on a batch drawn by a {@link SampledMultiDataSetIterator} (as early stopping calls it). */
  @Override
  public void fit(MultiDataSet data) {
    if (state.stepping()) {
      super.fit(data);
      return;
    }
    state.fitBatch(data, () -> super.fit(data));
  }

  /** Refused unless called by this class's own {@code fit}: raw arrays carry no sampling the accountant knows. */
  @Override
  public void fit(INDArray[] inputs, INDArray[] labels, INDArray[] featureMasks, INDArray[] labelMasks) {
    state.checkRawArraysInsideStep("fit(inputs, labels)");
    super.fit(inputs, labels, featureMasks, labelMasks);
  }

  /**
   * Replaces DL4J's backward pass: the gradient view receives the private gradient (clipped per-example sum, noise,
   * and the division by the expected batch size, by DL4J's updater) and the score is {@code NaN}.
   */
  @Override
  public void computeGradientAndScore(LayerWorkspaceMgr workspaces) {
    computeGradientAndScore();
  }

  @Override
  public void computeGradientAndScore() {
    state.privateGradient(getInputs(), labels, getInputMaskArrays(), getLabelMaskArrays());
    gradient = new DefaultGradient(getFlattenedGradients());
    score = Double.NaN;
  }

  @Override
  public void setLabels(INDArray... labels) {
    this.labels = labels;
    super.setLabels(labels);
  }

  /**
   * A copy with the same configuration, parameters, updater state and counts (as DL4J's early-stopping model
   * savers take it); the copy has the default secure noise and no accountant.
   */
  @Override
  public PrivateComputationGraph clone() {
    return resume(this);
  }

  /** Inside a private step, the expected batch size (see {@link PrivateMultiLayerNetwork#batchSize()}). */
  @Override
  public int batchSize() {
    return state == null ? super.batchSize() : state.batchSize(super.batchSize());
  }
}
