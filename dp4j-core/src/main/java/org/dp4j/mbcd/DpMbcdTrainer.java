package org.dp4j.mbcd;

import static com.google.common.base.Preconditions.checkNotNull;
import static com.google.common.base.Preconditions.checkState;
import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.dp4j.accounting.hiddenstate.NoiseTemperatureSchedule;
import org.dp4j.accounting.ledger.LedgerRow;
import org.dp4j.accounting.ledger.PrivacyLedger;
import org.dp4j.noise.AesCtrRandom;
import org.dp4j.noise.GaussianNoise;
import org.dp4j.noise.NoiseSource;
import org.dp4j.prox.ProximalOperator;
import org.dp4j.sampling.ShuffleOncePartition;
import org.dp4j.training.PrivateTrainer;
import org.dp4j.training.StopReason;
import org.dp4j.training.TrainingResult;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.indexing.NDArrayIndex;
import org.nd4j.linalg.ops.transforms.Transforms;
import org.slf4j.LoggerFactory;

/**
 * DP-MBCD for a lifted ReLU network with an MSE or softmax cross-entropy output ({@link OutputLoss}; Chen &amp;
 * Liu Alg. 4; docs/errata.md#dp-mbcd-lifted-updates; docs/accountants.md#dp-mbcd): dense
 * ({@link LiftedMlp}) or convolutional with average pooling ({@link LiftedCnn}; x-updates by conjugate
 * gradient, conv blocks stepped in normalised coordinates, see {@link ConvolutionBlock}).
 * Per batch of a shuffle-once fixed partition: x-update (Eq. 11) and clip to ρ_d (Eq. 12) for every
 * hidden/output auxiliary, u-update (Eq. 10), then every released block W_d takes the noisy proximal
 * step of Eq. 14 with per-example gradients bounded by C (docs/errata.md#dp-mbcd-sensitivity). The auxiliaries are per
 * example, held for the whole data set inside the trainer, and never leave it.
 *
 * <p>The privacy guarantee is the hidden-state one (only the final blocks are released): calling
 * {@link #releasedNetwork()} or {@link #model()} before training ends and publishing the result
 * voids it. Accounting: {@link #mechanism()} is what the accountant reads; the trainer builds its
 * {@link PrivacyLedger} from it ({@link DpMbcdAccounting}), asks {@link PrivacyLedger#tryStep()} before
 * every batch's W-updates (stopping before the step that would exceed the budget) and closes a ledger
 * row after every epoch.
 *
 * <pre>{@code
 * // given: MultiLayerNetwork initialNet; INDArray features; INDArray oneHotLabels
 * DpMbcdTrainer t = DpMbcdTrainer.builder(initialNet, features, oneHotLabels)
 *     .batchSize(100).epochs(20).learningRate(0.1).clipNorm(1.0).activationNormBound(1.0)
 *     .inputNormBound(1.0).noiseSchedule(NoiseTemperatureSchedule.constant(1e-3))
 *     .accounting(DpMbcdAccounting.builder().delta(1e-5).budget(3.0).build()).build();
 * TrainingResult r = t.train();        // r.stopReason(): COMPLETED or BUDGET
 * MultiLayerNetwork released = r.network();
 * }</pre>
 */
public final class DpMbcdTrainer implements PrivateTrainer<TrainingResult> {
  private final LiftedNetwork model;
  private final AuxiliaryStore aux;
  private final INDArray features;
  private final INDArray labels;
  private final DpMbcdMechanism mechanism;
  private final double[] rho;
  private final ProximalOperator prox;
  private final NoiseSource noise;
  private final List<DpMbcdStepListener> listeners;
  private final List<Consumer<LedgerRow>> onEpoch;
  private final PrivacyLedger ledger;
  private int epoch;
  private StopReason stopped;

  private DpMbcdTrainer(Builder b, ShuffleOncePartition partition) {
    this.model = LiftedNetwork.from(b.initial);
    int depth = model.depth();
    this.rho = new double[depth + 1];
    rho[0] = b.inputNormBound;
    for (int d = 1; d <= depth; d++) {
      rho[d] = b.activationNormBounds.length == 1 ? b.activationNormBounds[0]
          : b.activationNormBounds[d - 1];
    }
    int[] order = partition.batchOrder();
    DataType type = b.initial.params().dataType();
    this.features = b.features.getRows(order).castTo(type);
    this.labels = b.labels.getRows(order).castTo(type);
    RowNormClip.clipInPlace(features, rho[0]);
    int batchSize = partition.plan().fixedBatchSize();
    this.aux = new AuxiliaryStore(order.length, batchSize, model.widths(), features.dataType());
    this.prox = b.prox;
    this.noise = b.noise;
    this.listeners = List.copyOf(b.listeners);
    this.onEpoch = List.copyOf(b.onEpoch);
    long[] counts = new long[model.numBlocks()];
    for (int d = 0; d < counts.length; d++) {
      counts[d] = model.blockParameterCount(d);
    }
    this.mechanism = DpMbcdMechanism.builder().learningRate(b.learningRate).gamma(b.gamma)
        .batches(partition.plan()).epochs(b.epochs).clipNorm(b.clipNorm)
        .strongConvexity(b.strongConvexity).blockStepRule(b.blockStepRule)
        .batchReduction(b.batchReduction).outputLoss(model.outputLoss()).noiseSchedule(b.schedule)
        .blocks(counts, rho).prox(b.prox.description(), b.prox.lipschitzConstant(b.batchReduction == BatchReduction.SUM
            ? b.learningRate * batchSize : b.learningRate))
        .secureNoise(b.noise.isSecure()).build();
    this.ledger = b.accounting.ledger(mechanism);
    for (int j = 0; j < mechanism.numBatchesPerEpoch(); j++) {
      initialiseAuxiliaries(j);
    }
  }


  public static Builder builder(MultiLayerNetwork initial, INDArray features, INDArray labels) {
    return new Builder(initial, features, labels);
  }

  /** Bytes the auxiliary store needs for n examples of this architecture in the net's data type. */
  public static long auxiliaryBytesRequired(MultiLayerNetwork net, long examples) {
    return AuxiliaryStore.bytesRequired(examples, LiftedNetwork.from(net).widths(),
        net.params().dataType());
  }

  /** Runs the remaining epochs up to K, or until the next step would exceed the budget. */
  @Override
  public TrainingResult train() {
    return PrivateTrainer.super.train();
  }

  /** The same as {@link #train()}. */
  @Deprecated
  public TrainingResult fit() {
    return train();
  }

  /** The same as {@link #trainEpoch()}. */
  @Deprecated
  public boolean fitEpoch() {
    return trainEpoch();
  }

  @Override
  public boolean isFinished() {
    return stopped != null || epoch >= mechanism.epochs();
  }

  /**
   * One epoch: every batch of the fixed partition once, in order, each after the ledger accepted it;
   * then a ledger row. Returns false if the budget stopped the epoch (a partial row is closed if any of
   * its steps ran; the blocks hold the last in-budget values and training cannot continue).
   */
  @Override
  public boolean trainEpoch() {
    checkState(epoch < mechanism.epochs(),
        "all %s planned epochs are done; the mechanism (and its accounting) covers no more",
        mechanism.epochs());
    checkState(stopped == null, "training stopped (%s); the model holds the last in-budget blocks",
        stopped);
    for (int j = 0; j < mechanism.numBatchesPerEpoch(); j++) {
      checkState(ledger.steps() == (long) epoch * mechanism.numBatchesPerEpoch() + j,
          "the ledger has %s steps, the trainer is at epoch %s batch %s", ledger.steps(), epoch, j);
      if (!ledger.tryStep()) {
        stopped = StopReason.BUDGET;
        if (j > 0) {
          closeRow(epoch + 1, true);
        }
        return false;
      }
      step(j);
    }
    epoch++;
    closeRow(epoch, false);
    if (epoch == mechanism.epochs()) {
      stopped = StopReason.COMPLETED;
    }
    return true;
  }

  /** Closes the ledger row of epoch {@code number} (1-based); partial when the budget stopped it. */
  private void closeRow(int number, boolean partial) {
    LedgerRow row = partial ? ledger.closePartialEpoch(number) : ledger.closeEpoch(number);
    onEpoch.forEach(c -> c.accept(row));
  }

  /** What happened so far: the released network, the ledger, and why training ended (if it did). */
  @Override
  public TrainingResult result() {
    return new TrainingResult(releasedNetwork(), ledger,
        stopped == null ? StopReason.COMPLETED : stopped, epoch, ledger.steps());
  }

  /** Why training ended; empty while epochs remain and the budget allows them. */
  public java.util.Optional<StopReason> stopReason() {
    return java.util.Optional.ofNullable(stopped);
  }

  @Override
  public int epochsCompleted() {
    return epoch;
  }

  /** The privacy ledger: one row per epoch, hidden-state bound per block-summed RDP. */
  public PrivacyLedger ledger() {
    return ledger;
  }

  public DpMbcdMechanism mechanism() {
    return mechanism;
  }

  /** The released blocks (live view; publishing it before training ends voids the guarantee). */
  public LiftedNetwork model() {
    return model;
  }

  /** A new DL4J network holding the current released blocks. */
  public MultiLayerNetwork releasedNetwork() {
    return model.toNetwork();
  }

  /** Memory held by the hidden auxiliaries x_d, u_d (bytes). */
  public long auxiliaryBytes() {
    return aux.bytes();
  }

  /**
   * Mean output loss over the training examples used (½‖f(x) − y‖², or −Σ y log p for cross-entropy): a
   * diagnostic on private data.
   */
  double trainingLoss() {
    INDArray out = model.output(features);
    if (model.outputLoss() == OutputLoss.SOFTMAX_CROSS_ENTROPY) {
      return -Transforms.log(out.addi(1e-30), false).muli(labels).sumNumber().doubleValue() / features.rows();
    }
    INDArray r = out.subi(labels);
    return 0.5 * r.mul(r).sumNumber().doubleValue() / features.rows();
  }

  private void initialiseAuxiliaries(int j) {
    // a forward pass from the data-independent initial blocks (docs/threat-models.md#dp-mbcd-auxiliaries, #data-independent-choices)
    INDArray x = batch(features, j);
    for (int d = 0; d < model.depth(); d++) {
      aux.u(d, j).assign(model.block(d).apply(x));
      INDArray next = aux.x(d + 1, j);
      next.assign(Transforms.relu(aux.u(d, j), true));
      RowNormClip.clipInPlace(next, rho[d + 1]);
      x = next;
    }
  }

  private void step(int j) {
    int depth = model.depth();
    INDArray x0 = batch(features, j);
    INDArray y = batch(labels, j);
    // Eq. 11 + 12: every x_d from the stored u's
    INDArray[] x = new INDArray[depth + 1];
    for (int d = 1; d <= depth; d++) {
      INDArray activatedPrev = Transforms.relu(aux.u(d - 1, j), true);
      x[d] = d < depth ? model.block(d).solveInput(aux.u(d, j), activatedPrev)
          : outputAuxiliary(model.linearBlock(d), y, activatedPrev);
      RowNormClip.clipInPlace(x[d], rho[d]);
    }
    x[0] = x0;
    for (int d = 1; d <= depth; d++) {
      aux.x(d, j).assign(x[d]);
    }
    // Eq. 10: every u_d from the new x's
    for (int d = 0; d < depth; d++) {
      aux.u(d, j).assign(PreActivationUpdate.solve(x[d + 1], model.block(d).apply(x[d])));
    }
    // Eq. 14: every released block, noisy proximal step on clipped per-example gradients
    double o = mechanism.meanTemperature(epoch, j);
    double eta = mechanism.meanLearningRate();
    for (int d = 0; d <= depth; d++) {
      boolean output = d == depth;
      INDArray target = output ? y : aux.u(d, j);
      double weight = output ? 1.0 : mechanism.gamma();
      boolean crossEntropy = output && model.outputLoss() == OutputLoss.SOFTMAX_CROSS_ENTROPY;
      if (mechanism.blockStepRule() == BlockStepRule.PROXIMAL_POINT && crossEntropy) {
        SoftmaxProx.blockStep(model.linearBlock(d), x[d], y, eta, mechanism.strongConvexity(), o, prox, noise);
        continue;
      }
      if (mechanism.blockStepRule() == BlockStepRule.PROXIMAL_POINT) {
        model.block(d).proximalPointStep(x[d], target, weight, eta, mechanism.strongConvexity(), o, prox, noise);
        continue;
      }
      INDArray g = crossEntropy
          ? ClippedBlockGradient.crossEntropy(model.linearBlock(d), x[d], y, mechanism.clipNorm()).flat()
          : model.block(d).clippedGradient(x[d], target, weight, mechanism.clipNorm());
      NoisyProximalStep.apply(model.block(d), g, eta,
          mechanism.strongConvexity(), o, prox, noise);
    }
    for (DpMbcdStepListener l : listeners) {
      l.stepDone(epoch, j, mechanism.temperature(epoch, j));
    }
  }

  /** x_D: closed form for the squared loss, the iterative prox for softmax cross-entropy. */
  private INDArray outputAuxiliary(LinearBlock out, INDArray y, INDArray activatedPrev) {
    return model.outputLoss() == OutputLoss.SQUARED
        ? PostActivationUpdate.output(out, y, activatedPrev, mechanism.gamma())
        : SoftmaxProx.auxiliary(out, y, activatedPrev, mechanism.gamma());
  }

  private INDArray batch(INDArray rows, int j) {
    long b = mechanism.batchSize();
    return rows.get(NDArrayIndex.interval(j * b, (j + 1) * b), NDArrayIndex.all());
  }

  /** Builder: batch size, epochs, learning rate, clip norm and noise schedule are required. */
  public static final class Builder {
    private final MultiLayerNetwork initial;
    private final INDArray features;
    private final INDArray labels;
    private int batchSize;
    private int epochs;
    private double learningRate = Double.NaN;
    private double gamma = 1.0;
    private double clipNorm = Double.NaN;
    private double[] activationNormBounds = {1.0};
    private double inputNormBound = Double.POSITIVE_INFINITY;
    private double strongConvexity;
    private BlockStepRule blockStepRule = BlockStepRule.GRADIENT;
    private BatchReduction batchReduction = BatchReduction.MEAN;
    private NoiseTemperatureSchedule schedule;
    private ProximalOperator prox = ProximalOperator.none();
    private NoiseSource noise;
    private Long partitionSeed;
    private long maxAuxiliaryBytes = 2L << 30;
    private DpMbcdAccounting accounting = DpMbcdAccounting.defaults();
    private final List<DpMbcdStepListener> listeners = new ArrayList<>();
    private final List<Consumer<LedgerRow>> onEpoch = new ArrayList<>();

    private Builder(MultiLayerNetwork initial, INDArray features, INDArray labels) {
      this.initial = checkNotNull(initial, "initial network");
      this.features = checkNotNull(features, "features");
      this.labels = checkNotNull(labels, "labels");
    }

    public Builder batchSize(int b) {
      this.batchSize = b;
      return this;
    }

    public Builder epochs(int k) {
      this.epochs = k;
      return this;
    }

    /** η of the released-block steps (Eq. 14). */
    public Builder learningRate(double eta) {
      this.learningRate = eta;
      return this;
    }

    /** γ of the lifted objective (Eq. 4); the paper uses 1. */
    public Builder gamma(double gamma) {
      this.gamma = gamma;
      return this;
    }

    /** C, the per-example clip norm of every block gradient (S_g = 2C). */
    public Builder clipNorm(double c) {
      this.clipNorm = c;
      return this;
    }

    /** ρ for every x_d, d = 1..D (Eq. 12); default 1 as in the paper. */
    public Builder activationNormBound(double rho) {
      this.activationNormBounds = new double[] {rho};
      return this;
    }

    /** ρ_1..ρ_D, one per hidden/output auxiliary. */
    public Builder activationNormBounds(double... rhos) {
      this.activationNormBounds = rhos.clone();
      return this;
    }

    /** ρ_0: inputs are clipped to this norm once (default +∞: not clipped, β_0 unbounded). */
    public Builder inputNormBound(double rho0) {
      this.inputNormBound = rho0;
      return this;
    }

    /** o(k, j), fixed before training and independent of the data (docs/threat-models.md#data-independent-choices). */
    public Builder noiseSchedule(NoiseTemperatureSchedule schedule) {
      this.schedule = schedule;
      return this;
    }

    /**
     * μ &gt; 0 adds (μ/2)‖θ‖² to every block objective (gradient μθ after clipping), so each block is
     * μ-strongly convex and SAFE-mode L_F can drop below 1 (docs/errata.md#dp-mbcd-lipschitz-f). Default 0.
     */
    public Builder strongConvexity(double mu) {
      this.strongConvexity = mu;
      return this;
    }

    /** How each released block steps (default {@link BlockStepRule#GRADIENT}). */
    public Builder blockStepRule(BlockStepRule rule) {
      this.blockStepRule = checkNotNull(rule, "rule");
      return this;
    }

    /**
     * MEAN (default) or SUM, the paper's Eq. 15–17 as printed: η and o then apply to batch sums, i.e. the
     * run equals a MEAN run with η·b and o/b (docs/errata.md#dp-mbcd-batch-mean).
     */
    public Builder batchReduction(BatchReduction reduction) {
      this.batchReduction = checkNotNull(reduction, "reduction");
      return this;
    }

    /** How the run is accounted (default {@link DpMbcdAccounting#defaults()}: SAFE, δ = 1e-5). */
    public Builder accounting(DpMbcdAccounting accounting) {
      this.accounting = checkNotNull(accounting, "accounting");
      return this;
    }

    /** Called with every epoch's ledger row (also the partial row of a budget stop). */
    public Builder onEpoch(Consumer<LedgerRow> consumer) {
      onEpoch.add(checkNotNull(consumer, "consumer"));
      return this;
    }

    /** The proximal map of the regulariser r (default none). */
    public Builder prox(ProximalOperator prox) {
      this.prox = checkNotNull(prox, "prox");
      return this;
    }

    /** The noise source (default {@link GaussianNoise#secure()}). */
    public Builder noise(NoiseSource noise) {
      this.noise = checkNotNull(noise, "noise");
      return this;
    }

    /** A fixed partition seed, for tests only (default: shuffled by {@link AesCtrRandom#secure()}). */
    public Builder partitionSeed(long seed) {
      this.partitionSeed = seed;
      return this;
    }

    /** Refuse to allocate more than this for the auxiliaries (default 2 GiB). */
    public Builder maxAuxiliaryBytes(long bytes) {
      this.maxAuxiliaryBytes = bytes;
      return this;
    }

    public Builder listener(DpMbcdStepListener listener) {
      listeners.add(checkNotNull(listener, "listener"));
      return this;
    }

    public DpMbcdTrainer build() {
      checkArgument(features.rank() == 2 && labels.rank() == 2
              && features.rows() == labels.rows(),
          "features and labels must be matrices with one row per example, shapes %s and %s",
          Arrays.toString(features.shape()), Arrays.toString(labels.shape()));
      LiftedNetwork probe = LiftedNetwork.from(initial);
      int[] widths = probe.widths();
      checkArgument(features.columns() == widths[0] && labels.columns() == widths[widths.length - 1],
          "data shapes %s/%s do not match the network widths %s",
          Arrays.toString(features.shape()), Arrays.toString(labels.shape()),
          Arrays.toString(widths));
      checkArgument(activationNormBounds.length == 1
              || activationNormBounds.length == probe.depth(),
          "need one activation bound or one per auxiliary x_1..x_D (%s), got %s", probe.depth(),
          activationNormBounds.length);
      checkArgument(inputNormBound > 0, "input norm bound must be > 0, was %s", inputNormBound);
      checkNotNull(schedule, "a noise schedule is required");
      checkArgument(features.size(0) <= Integer.MAX_VALUE, "too many examples: %s", features.size(0));
      long need = AuxiliaryStore.bytesRequired(features.rows(), widths,
          initial.params().dataType());
      checkArgument(need <= maxAuxiliaryBytes,
          "the auxiliary store needs %s bytes for %s examples, above the limit maxAuxiliaryBytes=%s",
          need, features.rows(), maxAuxiliaryBytes);
      if (noise == null) {
        noise = GaussianNoise.secure();
      }
      checkArgument(batchSize >= 1 && batchSize <= features.rows(),
          "batch size must be in [1, n = %s], was %s", features.rows(), batchSize);
      AesCtrRandom shuffler = partitionSeed != null ? AesCtrRandom.insecureFixedSeed(partitionSeed)
          : AesCtrRandom.secure();
      ShuffleOncePartition partition = new ShuffleOncePartition((int) features.rows(), batchSize,
          shuffler);
      if (partition.plan().droppedRecords() > 0) {
        LoggerFactory.getLogger(DpMbcdTrainer.class).warn(
            "DP-MBCD: n={} is not a multiple of b={}: {} examples are dropped every epoch",
            features.rows(), batchSize, partition.plan().droppedRecords());
      }
      return new DpMbcdTrainer(this, partition);
    }
  }
}
