package org.dp4j.training;

import static com.google.common.base.Preconditions.checkNotNull;
import static com.google.common.base.Preconditions.checkState;
import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.graph.LayerVertex;
import org.deeplearning4j.nn.conf.layers.BaseLayer;
import org.deeplearning4j.nn.conf.layers.Layer;
import org.deeplearning4j.nn.conf.layers.samediff.AbstractSameDiffLayer;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.dp4j.accounting.Orders;
import org.dp4j.clipping.NestedLayers;
import org.dp4j.accounting.RdpConversion;
import org.dp4j.accounting.SampledGaussianMechanism;
import org.dp4j.accounting.ThreatModel;
import org.dp4j.accounting.ledger.CompositionAccounting;
import org.dp4j.accounting.ledger.StepAccountant;
import org.dp4j.accounting.ledger.PrivacyBudget;
import org.dp4j.accounting.ledger.PrivacyLedger;
import org.dp4j.noise.AesCtrRandom;
import org.dp4j.sampling.PoissonSampler;
import org.dp4j.updater.DpSgd;
import org.dp4j.updater.UpdaterLayers;
import org.nd4j.linalg.learning.config.IUpdater;

/**
 * Everything a DP-SGD run needs, decided before training (the dp4j analogue of Opacus'
 * {@code make_private} / {@code make_private_with_epsilon}): clip norm, expected batch size, epochs, and
 * either a noise multiplier or a target (ε, δ) from which the smallest sufficient noise multiplier is
 * calibrated with the composition accountant that will report on the run (PLD by default, RDP on request:
 * {@link Builder#accounting}).
 *
 * <pre>{@code
 * // given: MultiLayerConfiguration conf; LabelledImages images
 * DpSgdSetup setup = DpSgdSetup.builder().datasetSize(60_000).expectedBatchSize(256).epochs(20)
 *     .clipNorm(1.0).targetEpsilon(3.0).delta(1e-5).build();
 * MultiLayerNetwork net = setup.privateNetwork(conf);       // conf: an ordinary configuration, e.g. Sgd(0.1)
 * TrainingResult r = setup.trainer(net, IndexedData.of(images, DataType.FLOAT)).build().train();
 * }</pre>
 */
public final class DpSgdSetup {
  private final int datasetSize;
  private final int expectedBatchSize;
  private final int epochs;
  private final double clipNorm;
  private final double noiseMultiplier;
  private final double delta;
  private final Optional<Double> targetEpsilon;
  private final Optional<Double> budget;
  private final Orders orders;
  private final RdpConversion conversion;
  private final CompositionAccounting accounting;

  private DpSgdSetup(Builder b) {
    this.datasetSize = b.datasetSize;
    this.expectedBatchSize = b.expectedBatchSize;
    this.epochs = b.epochs;
    this.clipNorm = b.clipNorm;
    this.delta = b.delta;
    this.targetEpsilon = Optional.ofNullable(b.targetEpsilon);
    this.budget = Optional.ofNullable(b.budget).or(() -> targetEpsilon);
    this.orders = b.orders;
    this.conversion = b.conversion;
    this.accounting = b.accounting;
    this.noiseMultiplier = targetEpsilon.isPresent()
        ? accounting.noiseMultiplier(b.targetEpsilon, delta, samplingRate(), steps(), orders, conversion)
        : b.noiseMultiplier;
    for (StepAccountant a : accounting.ledgerAccountants(mechanism(), orders)) {
      // refuses here, before training, a noise the accountant does not cover or for which no ε is finite
      checkArgument(a.guaranteeAfter(1, delta, conversion).isFinite(),
          "noise multiplier %s gives no finite epsilon at delta %s with the %s accountant, even for one step",
          noiseMultiplier, delta, a.name());
    }
  }

  public static Builder builder() {
    return new Builder();
  }

  public double samplingRate() {
    return (double) expectedBatchSize / datasetSize;
  }

  /** The expected batch size B = qn: the DpSgd divisor and the Poisson sampler's mean batch. */
  public int expectedBatchSize() {
    return expectedBatchSize;
  }

  /** The number of records n the sampling rate is computed from. */
  public int datasetSize() {
    return datasetSize;
  }

  /** Steps per epoch, ⌈n/B⌉, as the Poisson sampler counts them. */
  public int stepsPerEpoch() {
    return (datasetSize + expectedBatchSize - 1) / expectedBatchSize;
  }

  /** Total private updates planned: epochs · ⌈n/B⌉. */
  public long steps() {
    return (long) epochs * stepsPerEpoch();
  }

  public double noiseMultiplier() {
    return noiseMultiplier;
  }

  public double clipNorm() {
    return clipNorm;
  }

  public double delta() {
    return delta;
  }

  public int epochs() {
    return epochs;
  }

  public Optional<Double> targetEpsilon() {
    return targetEpsilon;
  }

  /**
   * The ε (all iterates released, at this setup's δ) at which {@link #ledger()} stops training, before the update
   * that would exceed it: {@link Builder#budget} if given, else the target ε; empty if neither was given.
   */
  public Optional<Double> budget() {
    return budget;
  }

  public SampledGaussianMechanism mechanism() {
    return new SampledGaussianMechanism(samplingRate(), noiseMultiplier);
  }

  /** The DP updater wrapping {@code base} (the updater the non-private configuration used). */
  public DpSgd updater(IUpdater base) {
    return DpSgd.builder().clipNorm(clipNorm).noiseMultiplier(noiseMultiplier).expectedBatchSize(expectedBatchSize)
        .baseUpdater(base).build();
  }

  /**
   * A network whose every trainable layer uses {@link DpSgd} around the updater it had in {@code conf} (all such
   * layers must share one base updater), freshly initialised. {@code conf} itself is not changed. Train it with
   * {@code net.fit(SampledDataSetIterator, epochs)} or with {@link #trainer}.
   */
  public PrivateMultiLayerNetwork privateNetwork(MultiLayerConfiguration conf) {
    PrivateMultiLayerNetwork net = new PrivateMultiLayerNetwork(privateConfiguration(conf));
    net.init();
    return net;
  }

  /**
   * A private copy of a pretrained network that <b>keeps its weights</b> (transfer learning): the same layers and
   * parameters, frozen layers still frozen, every trainable layer's updater wrapped in {@link DpSgd}; fresh updater
   * state, iteration and epoch counts 0. The guarantee covers the data the returned network is then fit on; the
   * pretraining data are not covered (they are assumed public). {@code pretrained} is not changed. A network that
   * is already private is refused: continue it with {@link PrivateMultiLayerNetwork#resume} and its restored ledger.
   *
   * <pre>{@code
   * // given: DpSgdSetup setup; MultiLayerNetwork pretrained
   * MultiLayerNetwork tuned = new TransferLearning.Builder(pretrained).setFeatureExtractor(1).build();
   * PrivateMultiLayerNetwork net = setup.privateNetwork(tuned);   // only layers 2.. are trained, privately
   * }</pre>
   */
  public PrivateMultiLayerNetwork privateNetwork(MultiLayerNetwork pretrained) {
    checkArgument(pretrained.params() != null, "the pretrained network must be initialised");
    MultiLayerConfiguration conf = privateConfiguration(pretrained.getLayerWiseConfigurations());
    conf.setIterationCount(0);
    conf.setEpochCount(0);
    PrivateMultiLayerNetwork net = new PrivateMultiLayerNetwork(conf);
    net.init(pretrained.params().dup(), false);
    return net;
  }

  /**
   * A {@link PrivateComputationGraph} from an ordinary graph configuration (not yet private), as
   * {@link #privateNetwork(MultiLayerConfiguration)} does for a {@code MultiLayerNetwork}: every trainable layer's
   * updater wrapped in this setup's {@link DpSgd}.
   *
   * <pre>{@code
   * // given: DpSgdSetup setup; ComputationGraphConfiguration graphConf; int epochs
   * // given: org.nd4j.linalg.dataset.DataSet trainSet
   * PrivateComputationGraph graph = setup.privateGraph(graphConf);   // graphConf: e.g. Sgd(0.1) everywhere
   * graph.fit(SampledDataSetIterator.poisson(IndexedData.of(trainSet), setup.expectedBatchSize()), epochs);
   * }</pre>
   */
  public PrivateComputationGraph privateGraph(ComputationGraphConfiguration conf) {
    PrivateComputationGraph graph = new PrivateComputationGraph(privateConfiguration(conf));
    graph.init();
    return graph;
  }

  /**
   * A private copy of a pretrained graph that <b>keeps its weights</b>, as {@link #privateNetwork(MultiLayerNetwork)}
   * does: frozen vertices stay frozen, fresh updater state, counts 0. A graph that is already private is refused:
   * continue it with {@link PrivateComputationGraph#resume} and its restored ledger.
   *
   * <pre>{@code
   * // given: DpSgdSetup setup; ComputationGraph pretrained
   * ComputationGraph tuned = new TransferLearning.GraphBuilder(pretrained).setFeatureExtractor("conv").build();
   * PrivateComputationGraph graph = setup.privateGraph(tuned);   // vertices above "conv" trained privately
   * }</pre>
   */
  public PrivateComputationGraph privateGraph(ComputationGraph pretrained) {
    checkArgument(pretrained.params() != null, "the pretrained graph must be initialised");
    ComputationGraphConfiguration conf = privateConfiguration(pretrained.getConfiguration());
    conf.setIterationCount(0);
    conf.setEpochCount(0);
    PrivateComputationGraph graph = new PrivateComputationGraph(conf);
    graph.init(pretrained.params().dup(), false);
    return graph;
  }

  private MultiLayerConfiguration privateConfiguration(MultiLayerConfiguration conf) {
    MultiLayerConfiguration copy = conf.clone();
    privatise(copy.getConfs().stream().map(NeuralNetConfiguration::getLayer).collect(Collectors.toList()));
    return copy;
  }

  private ComputationGraphConfiguration privateConfiguration(ComputationGraphConfiguration conf) {
    ComputationGraphConfiguration copy = conf.clone();
    // A FrozenVertex wraps its layer vertex: it is not a LayerVertex, so its layer keeps its updater (not trained).
    privatise(copy.getVertices().values().stream().filter(v -> v instanceof LayerVertex)
        .map(v -> ((LayerVertex) v).getLayerConf().getLayer()).collect(Collectors.toList()));
    return copy;
  }

  /**
   * Wraps the one base updater of the trainable layers in DpSgd: {@code BaseLayer}s and SameDiff layers, also inside
   * wrappers such as {@code Bidirectional} and {@code LastTimeStep} (frozen wrappers keep theirs: not trained).
   */
  private void privatise(List<Layer> outer) {
    // DL4J's clone shares the layers inside Bidirectional and LastTimeStep with the caller's configuration:
    // copy them first, so that making this configuration private leaves the caller's unchanged.
    outer.forEach(UpdaterLayers::ownInnerLayers);
    List<Layer> layers = outer.stream().flatMap(l -> NestedLayers.of(l).stream()).collect(Collectors.toList());
    IUpdater base = null;
    for (Layer layer : layers) {
      IUpdater[] own = updaters(layer);
      if (own == null) {
        continue;
      }
      checkArgument(!(own[0] instanceof DpSgd), "configuration is already private: %s; to continue "
          + "a private network use PrivateMultiLayerNetwork.resume (PrivateComputationGraph.resume) with its "
          + "restored ledger", own[0]);
      checkArgument(base == null || base.equals(own[0]), "all layers must share one base updater: %s vs %s", base,
          own[0]);
      checkArgument(own[1] == null || own[1].equals(own[0]), "a separate bias updater (%s) is not supported by "
          + "DP-SGD", own[1]);
      base = own[0];
    }
    checkArgument(base != null, "the configuration has no trainable layer with parameters");
    DpSgd dp = updater(base);
    for (Layer l : layers) {
      if (l instanceof BaseLayer layer) {
        layer.setIUpdater(dp);
        layer.setBiasUpdater(null);
      } else if (l instanceof AbstractSameDiffLayer layer) {
        layer.setUpdater(dp);
        layer.setBiasUpdater(null);
      }
    }
  }


  /** {updater, bias updater} of a layer that holds its own, else null. */
  private static IUpdater[] updaters(Layer layer) {
    if (layer instanceof BaseLayer b) {
      return new IUpdater[] {b.getIUpdater(), b.getBiasUpdater()};
    }
    if (layer instanceof AbstractSameDiffLayer s && s.getUpdater() != null) {
      return new IUpdater[] {s.getUpdater(), s.getBiasUpdater()};
    }
    return null;
  }

  /** The composition method used for calibration and the budget (PLD unless the builder chose RDP). */
  public CompositionAccounting accounting() {
    return accounting;
  }

  /**
   * A ledger builder with this setup's composition accountants ({@link CompositionAccounting#ledgerAccountants}),
   * δ and conversion, and no budget yet.
   */
  public PrivacyLedger.Builder ledgerBuilder() {
    PrivacyLedger.Builder b = PrivacyLedger.builder().delta(delta).conversion(conversion);
    accounting.ledgerAccountants(mechanism(), orders).forEach(b::accountant);
    return b;
  }

  /** {@link #ledgerBuilder()} with this setup's {@link #budget()} (the target ε unless a budget was given). */
  public PrivacyLedger ledger() {
    PrivacyLedger.Builder b = ledgerBuilder();
    budget.ifPresent(e -> b.budget(new PrivacyBudget(e, delta, ThreatModel.ALL_ITERATES_RELEASED)));
    return b.build();
  }

  /** A trainer with a secure Poisson sampler and {@link #ledger()}; add callbacks, then build. */
  public DpSgdTrainer.Builder trainer(MultiLayerNetwork net, IndexedData data) {
    checkArgument(data.size() == datasetSize, "setup is for %s records, data has %s", datasetSize, data.size());
    return DpSgdTrainer.builder(net, data)
        .sampler(PoissonSampler.withExpectedBatchSize(datasetSize, expectedBatchSize, AesCtrRandom.secure()))
        .ledger(ledger()).epochs(epochs);
  }

  /** Builder: dataset size, expected batch size, epochs, clip norm, δ and one of noise / target ε. */
  public static final class Builder {
    private int datasetSize;
    private int expectedBatchSize;
    private int epochs;
    private double clipNorm;
    private double noiseMultiplier = Double.NaN;
    private Double targetEpsilon;
    private Double budget;
    private double delta = Double.NaN;
    private Orders orders = Orders.DEFAULT;
    private RdpConversion conversion = RdpConversion.IMPROVED;
    private CompositionAccounting accounting = CompositionAccounting.PLD;

    private Builder() {}

    public Builder datasetSize(int n) {
      checkArgument(n > 0, "dataset size must be > 0, was %s", n);
      this.datasetSize = n;
      return this;
    }

    public Builder expectedBatchSize(int b) {
      checkArgument(b > 0, "expected batch size must be > 0, was %s", b);
      this.expectedBatchSize = b;
      return this;
    }

    public Builder epochs(int epochs) {
      checkArgument(epochs > 0, "epochs must be > 0, was %s", epochs);
      this.epochs = epochs;
      return this;
    }

    public Builder clipNorm(double c) {
      checkArgument(c > 0 && Double.isFinite(c), "clip norm must be finite and > 0, was %s", c);
      this.clipNorm = c;
      return this;
    }

    public Builder noiseMultiplier(double z) {
      checkArgument(z > 0 && Double.isFinite(z), "noise multiplier must be finite and > 0, was %s", z);
      this.noiseMultiplier = z;
      return this;
    }

    /** Calibrate the noise so that the whole run is (ε, δ)-DP; also enforced as a budget. */
    public Builder targetEpsilon(double epsilon) {
      checkArgument(epsilon > 0 && Double.isFinite(epsilon), "target epsilon must be finite and > 0, was %s",
          epsilon);
      this.targetEpsilon = epsilon;
      return this;
    }

    /**
     * Stop before any update that would take ε (all iterates released, at this δ) above {@code epsilon}; replaces
     * the target ε as the budget when both are given (e.g. calibrate for ε = 3, but stop only at 4 after resuming).
     *
     * <pre>{@code
     * DpSgdSetup setup = DpSgdSetup.builder().datasetSize(60_000).expectedBatchSize(256).epochs(20)
     *     .clipNorm(1.0).noiseMultiplier(1.1).delta(1e-5).budget(2.0).build();
     * PrivacyLedger ledger = setup.ledger();   // refuses the update that would take epsilon above 2
     * }</pre>
     */
    public Builder budget(double epsilon) {
      checkArgument(epsilon > 0 && Double.isFinite(epsilon), "budget epsilon must be finite and > 0, was %s",
          epsilon);
      this.budget = epsilon;
      return this;
    }

    public Builder delta(double delta) {
      checkArgument(delta > 0 && delta < 1, "delta must be in (0, 1), was %s", delta);
      this.delta = delta;
      return this;
    }

    public Builder orders(Orders orders) {
      this.orders = checkNotNull(orders, "orders");
      return this;
    }

    /** The composition bound used to calibrate and to stop at the budget (default {@link CompositionAccounting#PLD}). */
    public Builder accounting(CompositionAccounting accounting) {
      this.accounting = checkNotNull(accounting, "accounting");
      return this;
    }

    public Builder conversion(RdpConversion conversion) {
      this.conversion = checkNotNull(conversion, "conversion");
      return this;
    }

    public DpSgdSetup build() {
      checkState(datasetSize > 0 && expectedBatchSize > 0 && epochs > 0 && clipNorm > 0,
          "dataset size, expected batch size, epochs and clip norm are required");
      checkState(expectedBatchSize <= datasetSize, "expected batch size %s exceeds the dataset size %s",
          expectedBatchSize, datasetSize);
      checkState(!Double.isNaN(delta), "delta is required");
      checkState(Double.isNaN(noiseMultiplier) != (targetEpsilon == null),
          "give exactly one of noiseMultiplier and targetEpsilon");
      return new DpSgdSetup(this);
    }
  }
}
