package org.dp4j.training;

import static com.google.common.base.Preconditions.checkNotNull;
import static com.google.common.base.Preconditions.checkState;
import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.Arrays;
import java.util.Optional;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.dp4j.accounting.ledger.CompositionStepAccountant;
import org.dp4j.accounting.ledger.FixedPartitionCompositionStepAccountant;
import org.dp4j.accounting.ledger.PrivacyLedger;
import org.dp4j.accounting.ledger.StepAccountant;
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
  private final LedgerEpochLoop loop;
  private final DpSgdStep step;
  private final int physicalBatchSize;
  private final int views;
  private final Optional<String> voidBecause;
  private final Optional<ParameterAverage> average;

  private DpSgdTrainer(Builder b, LedgerEpochLoop loop) {
    this.physicalBatchSize = b.physicalBatchSize;
    this.views = b.views;
    this.average = Optional.ofNullable(b.average);
    this.net = b.net;
    this.data = b.data;
    this.sampler = b.sampler;
    this.loop = loop;
    this.ledger = loop.ledger();
    if (net instanceof PrivateTraining p) {
      p.claimAccounting(this);   // a PrivacyLedgerListener on the same network would count every step twice
    }
    this.step = DpSgdStep.withInsecureNoise(net, b.noiseSource());   // secure unless insecureNoise() opted out
    this.voidBecause = b.noiseSource().isSecure() ? Optional.empty() : Optional.of(INSECURE);
    voidBecause.ifPresent(ledger::voidGuarantees);
    DpSgd dp = step.config();
    checkArgument(sampler.plan().datasetSize() == data.size(),
        "the sampler covers %s records but the data has %s", sampler.plan().datasetSize(), data.size());
    step.requireViews(views);
    checkArgument(views == 1 || data.size() == 0
        || net.layerInputSize(0) * views == data.rows(new int[] {0}).getFeatures().size(1),
        "with %s views per example each data row must hold %s views of the network's %s inputs side by side",
        views, views, net.layerInputSize(0));
    PlainSgdCheck.whyNotPlainSgd(net).ifPresent(ledger::voidHiddenState);
    for (var a : ledger.accountants()) {
      requireCovers(a, dp);
    }
    if (average.isPresent()) {
      ParameterAverage.requireCovered(ledger);
      checkArgument(average.get().parameterCount() == net.numParams(), "the parameter average has %s parameters, "
          + "the network %s", average.get().parameterCount(), net.numParams());
    }
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
    return loop.runEpoch(sampler.plan().stepsPerEpoch(), this::tryStep);
  }

  @Override
  public boolean isFinished() {
    return loop.isFinished();
  }

  @Override
  public int epochsCompleted() {
    return loop.epochsCompleted();
  }

  /** The network, the ledger and why training ended (COMPLETED while epochs remain). */
  @Override
  public TrainingResult result() {
    return new TrainingResult(net, ledger, loop.stopReason(), loop.epochsCompleted(), ledger.steps(), voidBecause);
  }

  /** Counts the next step if the budget allows it, then draws its batch and takes it. */
  private boolean tryStep(int epoch, int stepInEpoch) {
    if (!ledger.tryStep()) {
      return false;
    }
    takeStep(sampler.nextBatch());
    average.ifPresent(a -> a.update(net.params()));
    return true;
  }

  /**
   * One mechanism step on a logical (Poisson) batch, processed in physical micro-batches of at most
   * {@code physicalBatchSize} rows: clipped sums accumulated, noise added once, one update.
   */
  private void takeStep(int[] logical) {
    for (int from = 0; from < logical.length; from += physicalBatchSize) {
      int[] micro = Arrays.copyOfRange(logical, from, Math.min(logical.length, from + physicalBatchSize));
      DataSet batch = data.rows(micro);
      if (views == 1) {
        step.accumulate(batch.getFeatures(), batch.getLabels());
      } else {
        step.accumulate(ExampleViews.rows(batch.getFeatures(), views),
            ExampleViews.repeatedRows(batch.getLabels(), views), views);
      }
    }
    step.step();
  }

  /** Builder; network, data, sampler, ledger and epochs are required. */
  public static final class Builder extends LedgerTrainerBuilder<Builder> {
    private final MultiLayerNetwork net;
    private final IndexedData data;
    private BatchSampler sampler;
    private int physicalBatchSize = Integer.MAX_VALUE;
    private int views = 1;
    private ParameterAverage average;

    private Builder(MultiLayerNetwork net, IndexedData data) {
      this.net = checkNotNull(net, "network");
      this.data = checkNotNull(data, "data");
    }

    @Override
    protected Builder self() {
      return this;
    }

    /** The batch schedule; must be Poisson for the composition accountant. */
    public Builder sampler(BatchSampler sampler) {
      this.sampler = checkNotNull(sampler, "sampler");
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

    /**
     * Augmentation multiplicity (De et al. 2022): each data row holds K views of one example side by side ([K·d]
     * for a network of d inputs, e.g. an image's features and its mirror's), and each example's gradient is the
     * mean over its views, clipped once. The views must be computed from that example alone (a fixed transformation
     * of it); then adding or removing an example changes the clipped sum by at most C, as with one view, and the
     * mechanism and its accounting are unchanged. Needs a dense stack ({@link DpSgdStep#requireViews}); layout:
     * {@link ExampleViews}; default 1.
     */
    public Builder viewsPerExample(int views) {
      checkArgument(views >= 1, "viewsPerExample must be >= 1, was %s", views);
      this.views = views;
      return this;
    }

    /**
     * Folds the parameters into {@code average} after every update (the average of the released iterates: free
     * under the composition accountant, refused by {@link #build} if the ledger has a hidden-state accountant, see
     * {@link ParameterAverage}). It must have been started from this network's parameters.
     */
    public Builder averageParameters(ParameterAverage average) {
      this.average = checkNotNull(average, "average");
      return this;
    }

    public DpSgdTrainer build() {
      checkState(sampler != null, "a sampler is required");
      return new DpSgdTrainer(this, epochLoop(net::incrementEpochCount));
    }
  }
}
