package org.dp4j.spark;

import static com.google.common.base.Preconditions.checkNotNull;
import static com.google.common.base.Preconditions.checkState;
import static org.dp4j.InvalidSettingException.checkArgument;

import org.apache.spark.api.java.JavaRDD;
import org.deeplearning4j.nn.api.Model;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.dp4j.accounting.ledger.PrivacyLedger;
import org.dp4j.accounting.ledger.StepAccountant;
import org.dp4j.noise.NoiseSource;
import org.dp4j.sampling.SamplingPlan;
import org.dp4j.sampling.SamplingScheme;
import org.dp4j.training.AccountantCoverage;
import org.dp4j.training.LedgerEpochLoop;
import org.dp4j.training.LedgerTrainerBuilder;
import org.dp4j.training.NetworkCoverage;
import org.dp4j.updater.DpSgd;
import org.dp4j.updater.DpSgdStep;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Synchronous DP-SGD on Apache Spark, the same mechanism and the same privacy ledger as {@code DpSgdTrainer} on one
 * machine. Per step:
 * <ol>
 *   <li>the driver broadcasts the parameters;</li>
 *   <li>every partition includes each of its records independently with probability q = b/n (secure coins), so the
 *       global batch is exactly a Poisson sample of rate q, and returns the clipped sum Σ_i clip_C(g_i) of its
 *       included records (dp4j's vectorised clipper, micro-batches of bounded memory) — nothing else;</li>
 *   <li>the partial sums are tree-aggregated; the driver adds N(0, (zC)² I) once (secure noise), divides by the
 *       expected batch size b (never the realised one), and applies the network's base updater
 *       ({@link DpSgdStep#accumulateClippedSum});</li>
 *   <li>the ledger counts one sampled-Gaussian step, and training stops before any step that would exceed its budget
 *       (Abadi et al. 2016, Alg. 1; docs/spark.md).</li>
 * </ol>
 *
 * <p>Failures (docs/spark.md#failures): a retried task attempt refuses to run, so a step's sum is made of first
 * attempts only and Spark's own retry never resamples part of a batch silently; a step whose job failed was never
 * applied nor counted. By default ({@code maxStepAttempts(1)}) training then stops with a
 * {@link DistributedStepException}: the ledger counts exactly the steps applied and the model holds their result.
 * With {@code maxStepAttempts(k > 1)} the failed step is redone from scratch — fresh broadcast, fresh sampling on every
 * partition, noise drawn only after a successful aggregation — and counted once; that is the same mechanism only if
 * failures do not depend on which records were sampled (lost executors, preemption), which the user asserts by
 * choosing it.
 *
 * <pre>{@code
 * // given: JavaRDD<LabelledRecord> data; int n; MultiLayerConfiguration conf
 * DpSgdSetup setup = DpSgdSetup.builder().datasetSize(n).expectedBatchSize(256).epochs(2).clipNorm(1)
 *     .delta(1e-5).targetEpsilon(3).build();
 * MultiLayerNetwork net = setup.privateNetwork(conf);
 * SparkTrainingResult r = SparkDpSgdTrainer.builder(data, net).ledger(setup.ledger()).epochs(2).build().train();
 * }</pre>
 *
 * <p>Not thread-safe; one trainer per network.
 */
public final class SparkDpSgdTrainer {
  private static final Logger LOG = LoggerFactory.getLogger(SparkDpSgdTrainer.class);

  private final Model model;
  private final DpSgdStep step;
  private final PrivacyLedger ledger;
  private final LedgerEpochLoop loop;
  private final int maxStepAttempts;
  private final SamplingPlan plan;
  private final DistributedClippedSum clippedSum;
  private int failedAttempts;
  private long taken;

  private SparkDpSgdTrainer(Builder b, LedgerEpochLoop loop, NoiseSource noise) {
    checkArgument(!b.data.context().getConf().getBoolean("spark.speculation", false), "spark.speculation is on: "
        + "speculative copies of a step's tasks would be refused and fail the step; turn it off for DP-SGD");
    this.model = b.model;
    this.step = b.model instanceof MultiLayerNetwork net ? DpSgdStep.withInsecureNoise(net, noise)
        : DpSgdStep.withInsecureNoise((ComputationGraph) b.model, noise);   // secure unless insecureNoise()
    this.loop = loop;
    this.ledger = loop.ledger();
    this.maxStepAttempts = b.maxStepAttempts;
    DpSgd dp = step.config();
    long n = b.data.count();
    checkArgument(n > 0 && n <= Integer.MAX_VALUE, "the data set must have 1 to 2^31 - 1 records, has %s", n);
    double expected = dp.expectedBatchSize();
    checkArgument(expected <= n, "the DpSgd's expected batch size %s exceeds the %s records", expected, (Object) n);
    this.plan = new SamplingPlan(SamplingScheme.POISSON, (int) n, expected / n, expected,
        (int) Math.ceil(n / expected), 0);
    if (!noise.isSecure()) {
      ledger.voidHiddenState("the noise source is not cryptographically secure (insecureNoise): whoever knows its "
          + "seed can remove the noise");
    }
    for (StepAccountant a : ledger.accountants()) {
      checkArgument(!(a instanceof NetworkCoverage), "%s certifies a network trained on one machine; on Spark use "
          + "the composition accountants (DpSgdSetup.ledger())", a.getClass().getSimpleName());
      AccountantCoverage.requireCovers(a, dp, plan);
    }
    this.clippedSum = new DistributedClippedSum(b.data, ModelSpec.of(b.model), plan.samplingRate(), dp.clipNorm(),
        b.microBatchSize, b.treeDepth);
  }

  public static Builder builder(JavaRDD<LabelledRecord> data, MultiLayerNetwork net) {
    return new Builder(data, net);
  }

  public static Builder builder(JavaRDD<LabelledRecord> data, ComputationGraph graph) {
    return new Builder(data, graph);
  }

  /** The Poisson plan of this run: n counted once on the cluster, q = b/n, ⌈n/b⌉ steps per epoch. */
  public SamplingPlan plan() {
    return plan;
  }

  /** Runs until every epoch is done or the budget would be exceeded by the next update. */
  public SparkTrainingResult train() {
    try {
      while (!loop.isFinished() && loop.runEpoch(plan.stepsPerEpoch(), this::tryStep)) {
        // one epoch per turn; the loop closes the ledger rows
      }
      return new SparkTrainingResult(model, ledger, loop.stopReason(), loop.epochsCompleted(), ledger.steps(),
          failedAttempts);
    } finally {
      clippedSum.close();
    }
  }

  /**
   * One step if the budget allows it: the clipped sum from the cluster, counted by the ledger once it exists (a
   * failed job is never counted), then noise and the update on the driver.
   */
  private boolean tryStep(int epoch, int stepInEpoch) {
    // The exact number of further steps the budget allows (PrivacyLedger#tryStep agrees with it step by step).
    if (taken == loop.stepsAllowed()) {
      return false;
    }
    INDArray sum = aggregate(epoch, stepInEpoch);
    // Counted once the sum exists, before the noisy update is applied; never false within the allowance.
    checkState(ledger.tryStep(), "the ledger refused step %s within the %s steps it allowed", taken + 1,
        loop.stepsAllowed());
    step.accumulateClippedSum(sum);
    step.step();
    taken++;
    return true;
  }

  /** The step's clipped sum, with the failure policy of {@link Builder#maxStepAttempts}. */
  private INDArray aggregate(int epoch, int stepInEpoch) {
    for (int attempt = 1; ; attempt++) {
      try {
        return clippedSum.compute(model.params());
      } catch (Exception e) {   // Spark's SparkException is checked but undeclared
        failedAttempts++;
        if (attempt >= maxStepAttempts) {
          loop.closePartialRow(epoch);
          throw new DistributedStepException(String.format("step %d of epoch %d failed %d time(s) on the cluster "
              + "and was not applied; the ledger counts exactly the %d steps applied (the model holds their "
              + "result). Cause: %s", stepInEpoch + 1, epoch, attempt, ledger.steps(), e.getMessage()), e);
        }
        LOG.warn("step {} of epoch {} failed on the cluster (attempt {} of {}); redoing it from scratch with fresh "
            + "sampling and noise: {}", stepInEpoch + 1, epoch, attempt, maxStepAttempts, e.getMessage());
      }
    }
  }

  /** Builder; data, network, ledger and epochs are required. */
  public static final class Builder extends LedgerTrainerBuilder<Builder> {
    private final JavaRDD<LabelledRecord> data;
    private final Model model;
    private int microBatchSize = 256;
    private int treeDepth = 2;
    private int maxStepAttempts = 1;

    private Builder(JavaRDD<LabelledRecord> data, Model model) {
      this.data = checkNotNull(data, "data");
      this.model = checkNotNull(model, "network");
      checkArgument(model.params() != null, "network must be initialised (call init())");
    }

    @Override
    protected Builder self() {
      return this;
    }

    /** Largest number of sampled records an executor clips at once (default 256): bounds executor memory. */
    public Builder microBatchSize(int rows) {
      checkArgument(rows > 0, "microBatchSize must be > 0, was %s", rows);
      this.microBatchSize = rows;
      return this;
    }

    /** Depth of Spark's tree aggregation of the partial sums (default 2). */
    public Builder treeDepth(int depth) {
      checkArgument(depth >= 1, "treeDepth must be >= 1, was %s", depth);
      this.treeDepth = depth;
      return this;
    }

    /**
     * How often a step whose Spark job failed is tried (default 1: training stops at the first failed step, with
     * the ledger exact). Above 1, a failed step is redone from scratch (fresh sampling and noise) and counted once:
     * choose it only if task failures do not depend on the sampled records (see the class comment).
     */
    public Builder maxStepAttempts(int attempts) {
      checkArgument(attempts >= 1, "maxStepAttempts must be >= 1, was %s", attempts);
      this.maxStepAttempts = attempts;
      return this;
    }

    public SparkDpSgdTrainer build() {
      Runnable nextEpoch = model instanceof MultiLayerNetwork net ? net::incrementEpochCount
          : ((ComputationGraph) model)::incrementEpochCount;
      LedgerEpochLoop loop = epochLoop(nextEpoch);
      return new SparkDpSgdTrainer(this, loop, noiseSource());
    }
  }
}
