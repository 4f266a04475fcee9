package org.dp4j.training;

import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.Optional;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.gradient.DefaultGradient;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.dp4j.noise.NoiseSource;
import org.dp4j.sampling.SamplingPlan;
import org.dp4j.updater.ClippableModel;
import org.dp4j.updater.DpSgd;
import org.dp4j.updater.DpSgdStep;
import org.dp4j.updater.PrivateFitUpdater;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.api.DataSet;
import org.nd4j.linalg.dataset.api.MultiDataSet;
import org.nd4j.linalg.dataset.api.iterator.DataSetIterator;
import org.nd4j.linalg.dataset.api.iterator.MultiDataSetIterator;

/**
 * A {@link MultiLayerNetwork} whose own {@code fit} is DP-SGD: {@code fit(iterator, epochs)}, {@code fit(DataSet)}
 * and DL4J's {@code EarlyStoppingTrainer} take private steps, with DL4J's loop, listeners and updater. Per step:
 * the clipped per-example sum Σ_i clip_C(g_i) by the vectorised {@link org.dp4j.clipping.PerExampleClipper}
 * (computed instead of DL4J's backward pass, not after it), one secure Gaussian draw N(0,(zC)² I) on the trainable
 * parameters, division by the expected batch size, then DL4J's updater (the {@link DpSgd}'s base updater) and step
 * (Abadi et al. 2016, Alg. 1). Frozen layers ({@code FrozenLayer}, {@code FrozenLayerWithBackprop},
 * {@code setFeatureExtractor}) take no part and stay bit-identical.
 *
 * <p>Listeners see DL4J's usual events: {@code onEpochStart/End}, {@code iterationDone}, and
 * {@code onGradientCalculation} with the private gradient — as in DL4J, before the division by the batch size:
 * the noisy clipped sum S + N(0, (zC)² I), which the updater then divides by the expected batch size q·N (never by
 * the realised one).
 *
 * <p>Batches must come from a {@link SampledDataSetIterator} (Poisson or shuffle-once, secure randomness), whose
 * sampling the accountant assumes; any other iterator, and {@code fit(features, labels)} on raw arrays, is refused.
 * {@link #score()} is {@code NaN}: the loss on private training data is not a private release, so it is not
 * computed; evaluate on held-out data instead (e.g. an {@code EvaluativeListener} or an early-stopping score
 * calculator on a validation set).
 *
 * <pre>{@code
 * // given: org.nd4j.linalg.dataset.DataSet trainSet
 * MultiLayerConfiguration conf = new NeuralNetConfiguration.Builder()
 *     .updater(DpSgd.builder().clipNorm(1.0).noiseMultiplier(1.1).expectedBatchSize(256)
 *         .baseUpdater(new org.nd4j.linalg.learning.config.Sgd(0.1)).build())
 *     .list()
 *     .layer(new org.deeplearning4j.nn.conf.layers.DenseLayer.Builder().nIn(784).nOut(128)
 *         .activation(org.nd4j.linalg.activations.Activation.TANH).build())
 *     .layer(new org.deeplearning4j.nn.conf.layers.OutputLayer.Builder().nIn(128).nOut(10)
 *         .activation(org.nd4j.linalg.activations.Activation.SOFTMAX).build())
 *     .build();
 * PrivateMultiLayerNetwork net = new PrivateMultiLayerNetwork(conf);
 * net.init();
 * SampledDataSetIterator train = SampledDataSetIterator.poisson(IndexedData.of(trainSet), 256);
 * net.addListeners(org.dp4j.listeners.PrivacyLedgerListener.forNetwork(net, train, 1e-5).build());
 * net.fit(train, 20);
 * }</pre>
 *
 * <p>Save it with {@code ModelSerializer} as usual; a restored network is a plain {@code MultiLayerNetwork}:
 * continue it with {@link #resume} and the ledger restored from the same checkpoint. Not thread-safe.
 */
public class PrivateMultiLayerNetwork extends MultiLayerNetwork implements PrivateTraining {
  private static final long serialVersionUID = 1L;

  private final transient PrivateFitState state = new PrivateFitState(() -> ClippableModel.of(this));
  private transient INDArray featureMask;   // the masks of the batch being fitted, as DL4J's fit sets them
  private transient INDArray labelMask;

  public PrivateMultiLayerNetwork(MultiLayerConfiguration conf) {
    super(conf);
  }

  /**
   * Initialises as DL4J does, then installs {@link PrivateFitUpdater} (DL4J's updater, with the in-place update
   * of {@code DpSgdStep} for plain SGD). Refuses a configuration whose trainable layers do not share one
   * {@link DpSgd}.
   */
  @Override
  public void init(INDArray parameters, boolean cloneParametersArray) {
    super.init(parameters, cloneParametersArray);
    if (!(getUpdater(false) instanceof PrivateFitUpdater)) {
      setUpdater(new PrivateFitUpdater(this));
    }
  }

  /**
   * Continues a private network restored with {@code ModelSerializer} (parameters, updater state and iteration
   * count kept). Its ledger must be restored from the same checkpoint: a privacy listener refuses a fresh ledger on
   * a network that has already taken steps.
   */
  public static PrivateMultiLayerNetwork resume(MultiLayerNetwork restored) {
    checkArgument(restored.params() != null, "network must be initialised");
    DpSgdStep.configOf(restored);   // refuses a network that is not private
    PrivateMultiLayerNetwork net = new PrivateMultiLayerNetwork(restored.getLayerWiseConfigurations().clone());
    net.init(restored.params().dup(), false);
    PrivateFitState.copyUpdaterState(restored.getUpdater(), net::getUpdater);
    return net;
  }

  /**
   * For tests and reproductions only: noise from a source that is not cryptographically secure. A run with it
   * carries <b>no privacy guarantee</b>; a privacy listener marks every guarantee void. Call before training.
   */
  public PrivateMultiLayerNetwork insecureNoise(NoiseSource noise) {
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

  /** One private step on a batch drawn by a {@link SampledDataSetIterator} (as DL4J's early stopping calls it). */
  @Override
  public void fit(DataSet data) {
    state.fitBatch(data, () -> super.fit(data));
  }

  /** Refused unless called by this class's own {@code fit}: raw arrays carry no sampling the accountant knows. */
  @Override
  public synchronized void fit(INDArray features, INDArray labels, INDArray featuresMask, INDArray labelsMask) {
    state.checkRawArraysInsideStep("fit(features, labels)");
    super.fit(features, labels, featuresMask, labelsMask);
  }

  @Override
  public void fit(INDArray examples, int[] labels) {
    throw new IllegalStateException("fit(examples, int[] labels) is not a private step; fit a "
        + "SampledDataSetIterator instead");
  }

  @Override
  public void fit(MultiDataSet dataSet) {
    throw new IllegalStateException("fit(MultiDataSet) is not supported by PrivateMultiLayerNetwork; fit a "
        + "SampledDataSetIterator instead");
  }

  @Override
  public void fit(MultiDataSetIterator iterator) {
    throw new IllegalStateException("fit(MultiDataSetIterator) is not supported by PrivateMultiLayerNetwork; fit a "
        + "SampledDataSetIterator instead");
  }

  /**
   * Replaces DL4J's backward pass: the gradient view receives the private gradient (clipped per-example sum, noise,
   * division by the expected batch size) and the score is {@code NaN} (not computed, see the class comment).
   */
  @Override
  public void computeGradientAndScore(LayerWorkspaceMgr workspaces) {
    computeGradientAndScore();
  }

  /** Records the batch's masks (DL4J's fit sets them here before its gradient) for the private gradient. */
  @Override
  public void setLayerMaskArrays(INDArray featuresMaskArray, INDArray labelsMaskArray) {
    featureMask = featuresMaskArray;
    labelMask = labelsMaskArray;
    super.setLayerMaskArrays(featuresMaskArray, labelsMaskArray);
  }

  @Override
  public void clearLayerMaskArrays() {
    featureMask = null;
    labelMask = null;
    super.clearLayerMaskArrays();
  }

  @Override
  public void computeGradientAndScore() {
    // Masks go to the clipper as DL4J's fit set them: padded time steps contribute nothing to any example.
    state.privateGradient(new INDArray[] {getInput()}, new INDArray[] {getLabels()}, new INDArray[] {featureMask},
        new INDArray[] {labelMask});
    gradient = new DefaultGradient(getFlattenedGradients());
    score = Double.NaN;
  }

  /**
   * Accepts the 0-row input of an empty Poisson batch inside a private step (DL4J refuses it): the step then adds
   * the noise only, as the accountant assumes.
   */
  @Override
  public void setInput(INDArray input) {
    if (state != null && state.stepping() && input != null && input.length() == 0) {
      this.input = input;
      return;
    }
    super.setInput(input);
  }

  /**
   * A copy with the same configuration, parameters, updater state and counts (as DL4J's early-stopping model
   * savers take it); the copy has the default secure noise and no accountant.
   */
  @Override
  public PrivateMultiLayerNetwork clone() {
    return resume(this);
  }

  /**
   * Inside a private step, the expected batch size q·N when it is an integer (DL4J's updater divides the private sum
   * by it), else 1 (the gradient is already divided); never the realised batch size, which is data-dependent.
   */
  @Override
  public int batchSize() {
    return state.batchSize(super.batchSize());
  }
}
