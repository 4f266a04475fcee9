package org.dp4j.training;

import static com.google.common.base.Preconditions.checkNotNull;
import static com.google.common.base.Preconditions.checkState;
import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.dp4j.accounting.ledger.CompositionStepAccountant;
import org.dp4j.accounting.ledger.LedgerRow;
import org.dp4j.accounting.ledger.FixedPartitionCompositionStepAccountant;
import org.dp4j.accounting.ledger.PrivacyLedger;
import org.dp4j.accounting.ledger.StepAccountant;
import org.dp4j.noise.GaussianNoise;
import org.dp4j.noise.NoiseSource;
import org.dp4j.noise.PrefetchingNoise;
import org.dp4j.sampling.BatchSampler;
import org.dp4j.updater.DpSgd;
import org.dp4j.updater.DpSgdStep;
import org.nd4j.linalg.dataset.DataSet;

/**
 * The DP-SGD training loop: per step, ask the ledger whether the update fits in the budget, draw the
 * batch from the sampler, take one {@link DpSgdStep}; per epoch, close a ledger row.
 *
 * <p>The sampler must match the accountants: the composition accountant of the network's
 * {@link DpSgd} (sampled Gaussian) assumes Poisson sampling with rate expectedBatchSize/n; the
 * {@link FixedPartitionCompositionStepAccountant} and the Ye–Shokri accountants assume a shuffle-once
 * fixed partition ({@link SoftmaxRegressionCertificate#ledger} builds both for softmax regression). The
 * trainer refuses a sampler an accountant does not cover, and an accountant it cannot check
 * ({@link StepAccountant#requireCovers}, {@link NetworkCoverage}).
 *
 * <pre>{@code
 * // given: MultiLayerNetwork net; IndexedData data
 * DpSgdTrainer trainer = DpSgdTrainer.builder(net, data)
 *     .sampler(PoissonSampler.withExpectedBatchSize(data.size(), 256, AesCtrRandom.secure()))
 *     .ledger(PrivacyLedger.builder().accountant(DpSgdTrainer.compositionAccountant(net, data.size(),
 *         Orders.DEFAULT))
 *         .delta(1e-5).budget(new PrivacyBudget(3, 1e-5, ThreatModel.ALL_ITERATES_RELEASED)).build())
 *     .epochs(20).physicalBatchSize(512)            // optional: bounded memory for large logical batches
 *     .onEpoch(row -> System.out.println(row.composition().orElseThrow().summary()))
 *     .build();
 * TrainingResult result = trainer.train();
 * }</pre>
 */
public final class DpSgdTrainer implements PrivateTrainer<TrainingResult> {
  static final String INSECURE = "the noise source is not cryptographically secure (insecureNoise): whoever knows "
      + "its seed can remove the noise";
  private final MultiLayerNetwork net;
  private final IndexedData data;
  private final BatchSampler sampler;
  private final PrivacyLedger ledger;
  private final int epochs;
  private final DpSgdStep step;
  private final List<Consumer<LedgerRow>> onEpoch;
  private final Runnable onStep;
  private final int physicalBatchSize;
  private final Optional<String> voidBecause;
  private int completed;
  private StopReason stopped;
  private boolean planChecked;

  private DpSgdTrainer(Builder b) {
    this.physicalBatchSize = b.physicalBatchSize;
    this.net = b.net;
    this.data = b.data;
    this.sampler = b.sampler;
    this.ledger = b.ledger;
    this.epochs = b.epochs;
    this.onEpoch = List.copyOf(b.onEpoch);
    this.onStep = b.onStep;
    if (net instanceof PrivateTraining p) {
      p.claimAccounting(this);   // a PrivacyLedgerListener on the same network would count every step twice
    }
    this.step = DpSgdStep.withInsecureNoise(net, b.noise);   // secure unless insecureNoise() opted out
    this.voidBecause = b.noise.isSecure() ? Optional.empty() : Optional.of(INSECURE);
    voidBecause.ifPresent(ledger::voidGuarantees);
    DpSgd dp = step.config();
    checkArgument(sampler.plan().datasetSize() == data.size(),
        "the sampler covers %s records but the data has %s", sampler.plan().datasetSize(), data.size());
    PlainSgdCheck.whyNotPlainSgd(net).ifPresent(ledger::voidHiddenState);
    for (var a : ledger.accountants()) {
      requireCovers(a, dp);
    }
    this.completed = ledger.epochsCompleted();
  }

  /**
   * Each accountant checks that its theorem covers this run's sampler and noise, the DpSgd its divisor (the same
   * check as the privacy listener's, {@link AccountantCoverage}), and the network, if the accountant says so.
   */
  private void requireCovers(StepAccountant a, DpSgd dp) {
    AccountantCoverage.requireCovers(a, dp, sampler.plan());
    if (a instanceof NetworkCoverage n) {
      n.requireCovers(net, data, sampler.plan());
    }
  }

  /** The composition accountant of the network's {@link DpSgd} mechanism over n records. */
  public static CompositionStepAccountant compositionAccountant(MultiLayerNetwork net, int datasetSize,
      org.dp4j.accounting.Orders orders) {
    return new CompositionStepAccountant(DpSgdStep.configOf(net).mechanism(datasetSize), orders);
  }

  public static Builder builder(MultiLayerNetwork net, IndexedData data) {
    return new Builder(net, data);
  }

  /** Runs until every epoch is done or the budget would be exceeded by the next update. */
  @Override
  public TrainingResult train() {
    return PrivateTrainer.super.train();
  }

  @Override
  public boolean trainEpoch() {
    checkState(!isFinished(), "training is finished (%s after %s epochs)", stopped, completed);
    int stepsPerEpoch = sampler.plan().stepsPerEpoch();
    if (!planChecked) {
      ledger.stepsWithinBudget((long) (epochs - completed) * stepsPerEpoch); // the plan's budget check, once
      planChecked = true;
    }
    int epoch = completed + 1;
    for (int s = 0; s < stepsPerEpoch; s++) {
      if (!ledger.tryStep()) {
        stopped = StopReason.BUDGET;
        closeRow(epoch, true);
        return false;
      }
      takeStep(sampler.nextBatch());
      onStep.run();
    }
    completed++;
    // Before the callbacks: a model saved there (a checkpoint) carries the epochs it has finished, so a resumed
    // run (and an epoch-based learning-rate schedule) continues from the right epoch.
    net.incrementEpochCount();
    if (completed == epochs) {
      stopped = StopReason.COMPLETED;
    }
    closeRow(epoch, false);
    return true;
  }

  @Override
  public boolean isFinished() {
    return stopped != null || completed >= epochs;
  }

  @Override
  public int epochsCompleted() {
    return completed;
  }

  /** The network, the ledger and why training ended (COMPLETED while epochs remain). */
  @Override
  public TrainingResult result() {
    return new TrainingResult(net, ledger, stopped == null ? StopReason.COMPLETED : stopped, completed,
        ledger.steps(), voidBecause);
  }

  /**
   * One mechanism step on a logical (Poisson) batch, processed in physical micro-batches of at most
   * {@code physicalBatchSize} rows: clipped sums accumulated, noise added once, one update.
   */
  private void takeStep(int[] logical) {
    for (int from = 0; from < logical.length; from += physicalBatchSize) {
      int[] micro = Arrays.copyOfRange(logical, from, Math.min(logical.length, from + physicalBatchSize));
      DataSet batch = data.rows(micro);
      step.accumulate(batch.getFeatures(), batch.getLabels());
    }
    step.step();
  }

  private void closeRow(int epoch, boolean partial) {
    if (partial && ledger.stepsSinceLastRow() == 0) {
      return;
    }
    LedgerRow row = partial ? ledger.closePartialEpoch(epoch) : ledger.closeEpoch(epoch);
    onEpoch.forEach(c -> c.accept(row));
  }

  /** Builder; network, data, sampler, ledger and epochs are required. */
  public static final class Builder {
    private final MultiLayerNetwork net;
    private final IndexedData data;
    private BatchSampler sampler;
    private PrivacyLedger ledger;
    private int epochs = -1;
    private NoiseSource noise;
    private final List<Consumer<LedgerRow>> onEpoch = new ArrayList<>();
    private Runnable onStep = () -> { };
    private int physicalBatchSize = Integer.MAX_VALUE;

    private Builder(MultiLayerNetwork net, IndexedData data) {
      this.net = checkNotNull(net, "network");
      this.data = checkNotNull(data, "data");
    }

    /** The batch schedule; must be Poisson for the composition accountant. */
    public Builder sampler(BatchSampler sampler) {
      this.sampler = checkNotNull(sampler, "sampler");
      return this;
    }

    /**
     * A fresh ledger, or one restored from a checkpoint at an epoch boundary (training then resumes
     * with the next epoch); it enforces the budget, if it has one.
     */
    public Builder ledger(PrivacyLedger ledger) {
      this.ledger = checkNotNull(ledger, "ledger");
      return this;
    }

    public Builder epochs(int epochs) {
      checkArgument(epochs > 0, "epochs must be > 0, was %s", epochs);
      this.epochs = epochs;
      return this;
    }

    /**
     * Noise source; must be cryptographically secure ({@link NoiseSource#isSecure()}). The default is
     * {@link GaussianNoise#secure()}, prefetched by {@link PrefetchingNoise}.
     */
    public Builder noise(NoiseSource noise) {
      checkNotNull(noise, "noise");
      checkArgument(noise.isSecure(), "the noise source %s is not cryptographically secure, so the run would carry "
          + "no privacy guarantee; use GaussianNoise.secure(), or insecureNoise(...) in tests",
          noise.getClass().getSimpleName());
      this.noise = noise;
      return this;
    }

    /**
     * For tests and reproductions only: a noise source that is not secure (fixed seed, recording). The run then
     * carries <b>no privacy guarantee</b>: {@link TrainingResult#guaranteesVoidBecause()} says so, and the
     * ledger's hidden-state bounds are voided.
     */
    public Builder insecureNoise(NoiseSource noise) {
      this.noise = checkNotNull(noise, "noise");
      return this;
    }

    /**
     * Called with each epoch's ledger row (also with the partial row of a budget stop). After a full epoch the
     * network's {@code getEpochCount()} already counts it (a partial epoch is not counted).
     */
    public Builder onEpoch(Consumer<LedgerRow> consumer) {
      onEpoch.add(checkNotNull(consumer, "consumer"));
      return this;
    }

    /**
     * Largest number of rows processed at once (default: the whole logical batch). A logical Poisson batch of
     * thousands is split into micro-batches of at most this size whose clipped sums are accumulated; noise is
     * added once and the update taken once per logical batch, so memory is bounded by the physical size and the
     * accounting (one sampled-Gaussian step per logical batch) is unchanged.
     */
    public Builder physicalBatchSize(int rows) {
      checkArgument(rows > 0, "physicalBatchSize must be > 0, was %s", rows);
      this.physicalBatchSize = rows;
      return this;
    }

    /** Called after every private update (e.g. a progress display). */
    public Builder onStep(Runnable callback) {
      this.onStep = checkNotNull(callback, "callback");
      return this;
    }

    public DpSgdTrainer build() {
      checkState(sampler != null, "a sampler is required");
      checkState(ledger != null, "a ledger is required");
      checkState(epochs > 0, "epochs are required");
      checkState(ledger.stepsSinceLastRow() == 0,
          "the ledger must be fresh or restored at an epoch boundary, it has %s steps", ledger.steps());
      if (noise == null) {
        noise = PrefetchingNoise.secure();
      }
      return new DpSgdTrainer(this);
    }
  }
}
