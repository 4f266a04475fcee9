package org.dp4j.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.JavaRDD;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.dp4j.accounting.ThreatModel;
import org.dp4j.accounting.ledger.CompositionAccounting;
import org.dp4j.accounting.ledger.PrivacyBudget;
import org.dp4j.accounting.ledger.PrivacyLedger;
import org.dp4j.noise.GaussianNoise;
import org.dp4j.training.DpSgdSetup;
import org.dp4j.training.StopReason;
import org.dp4j.updater.DpSgd;
import org.dp4j.updater.DpSgdStep;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.learning.config.Adam;
import org.nd4j.linalg.learning.config.Nesterovs;

/**
 * The Spark trainer against the single-machine {@link DpSgdStep}: with q = 1 the Poisson batch is the whole data set,
 * so given the same noise draws (one seeded source on each side) every distributed step must equal the local step
 * on the same batch, to floating-point summation order. Also: failures (a task that throws on its first attempt)
 * and the budget stop.
 */
class SparkDpSgdTrainerTest {
  private static final int N = 30;
  private static final double CLIP = 0.7;
  private static final double Z = 1.1;
  private static final long NOISE_SEED = 77;
  /** Set by a test: the next first attempt of partition 1 throws (once). */
  static final AtomicBoolean FAIL_NEXT_FIRST_ATTEMPT = new AtomicBoolean();

  private static DpSgdSetup setup(int n, double expectedBatch, int epochs) {
    return DpSgdSetup.builder().datasetSize(n).expectedBatchSize((int) expectedBatch).epochs(epochs).clipNorm(CLIP)
        .noiseMultiplier(Z).delta(1e-5).accounting(CompositionAccounting.RDP).build();
  }

  @Test
  void multiLayerNetworkStepsEqualTheSingleMachineSteps() {
    DpSgdSetup setup = setup(N, N, 3);
    DpSgd dp = setup.updater(new Nesterovs(0.1, 0.9));
    List<LabelledRecord> records = TinyModels.records(1, N);
    MultiLayerNetwork distributed = TinyModels.mlp(dp);
    MultiLayerNetwork local = distributed.clone();

    SparkTrainingResult r = SparkDpSgdTrainer.builder(TinyModels.rdd(records, 3), distributed).ledger(setup.ledger())
        .epochs(3).insecureNoise(GaussianNoise.insecureFixedSeed(NOISE_SEED)).microBatchSize(4).build().train();

    singleMachineSteps(DpSgdStep.withInsecureNoise(local, GaussianNoise.insecureFixedSeed(NOISE_SEED)), records, 3);
    assertClose(distributed.params(), local.params(), 1e-10);
    assertThat(r.steps()).isEqualTo(3);
    assertThat(r.ledger().steps()).isEqualTo(3);
    assertThat(r.stopReason()).isEqualTo(StopReason.COMPLETED);
    assertThat(distributed.getIterationCount()).isEqualTo(3);
    assertThat(distributed.getEpochCount()).isEqualTo(3);
  }

  @Test
  void computationGraphStepsEqualTheSingleMachineSteps() {
    DpSgdSetup setup = setup(N, N, 2);
    ComputationGraph distributed = TinyModels.graph(setup.updater(new Adam(0.05)));
    ComputationGraph local = distributed.clone();
    List<LabelledRecord> records = TinyModels.records(2, N);

    SparkDpSgdTrainer.builder(TinyModels.rdd(records, 2), distributed).ledger(setup.ledger()).epochs(2)
        .insecureNoise(GaussianNoise.insecureFixedSeed(NOISE_SEED)).build().train();

    singleMachineSteps(DpSgdStep.withInsecureNoise(local, GaussianNoise.insecureFixedSeed(NOISE_SEED)), records, 2);
    assertClose(distributed.params(), local.params(), 1e-10);
  }

  @Test
  void aStepWhoseTaskFailedIsRedoneFromScratchAndCountedOnce() {
    DpSgdSetup setup = setup(N, N, 3);
    DpSgd dp = setup.updater(new Nesterovs(0.1, 0.9));
    List<LabelledRecord> records = TinyModels.records(3, N);
    MultiLayerNetwork distributed = TinyModels.mlp(dp);
    MultiLayerNetwork local = distributed.clone();
    PrivacyLedger ledger = setup.ledger();

    // The first attempt of a task of step 2 throws; Spark retries it (local[2,3]), dp4j refuses the retry, the
    // step's job fails, and the trainer redoes the whole step.
    SparkTrainingResult r = SparkDpSgdTrainer.builder(failingOnce(records), distributed).ledger(ledger).epochs(3)
        .insecureNoise(GaussianNoise.insecureFixedSeed(NOISE_SEED)).maxStepAttempts(2)
        .onStep(() -> FAIL_NEXT_FIRST_ATTEMPT.set(distributed.getIterationCount() == 1)).build().train();

    // Noise is drawn only for applied steps and no partial sum is counted twice: the same three local steps.
    singleMachineSteps(DpSgdStep.withInsecureNoise(local, GaussianNoise.insecureFixedSeed(NOISE_SEED)), records, 3);
    assertThat(r.failedAttempts()).isEqualTo(1);
    assertThat(r.steps()).isEqualTo(3);
    assertThat(ledger.steps()).isEqualTo(3);
    assertClose(distributed.params(), local.params(), 1e-10);
  }

  @Test
  void byDefaultAFailedStepStopsTrainingWithTheLedgerExact() {
    DpSgdSetup setup = setup(N, N, 3);
    DpSgd dp = setup.updater(new Nesterovs(0.1, 0.9));
    List<LabelledRecord> records = TinyModels.records(4, N);
    MultiLayerNetwork distributed = TinyModels.mlp(dp);
    MultiLayerNetwork local = distributed.clone();
    PrivacyLedger ledger = setup.ledger();
    SparkDpSgdTrainer trainer = SparkDpSgdTrainer.builder(failingOnce(records), distributed).ledger(ledger)
        .epochs(3).insecureNoise(GaussianNoise.insecureFixedSeed(NOISE_SEED))
        .onStep(() -> FAIL_NEXT_FIRST_ATTEMPT.set(distributed.getIterationCount() == 1)).build();

    assertThatThrownBy(trainer::train).isInstanceOf(DistributedStepException.class)
        .hasMessageContaining("step 1 of epoch 2 failed 1 time(s)").hasMessageContaining("exactly the 1 steps");

    singleMachineSteps(DpSgdStep.withInsecureNoise(local, GaussianNoise.insecureFixedSeed(NOISE_SEED)), records, 1);
    assertThat(ledger.steps()).isEqualTo(1);
    assertClose(distributed.params(), local.params(), 1e-10);
  }

  @Test
  void stopsExactlyWhereTheNextStepWouldExceedTheBudget() {
    int n = 200;
    DpSgdSetup setup = setup(n, 20, 5);   // q = 0.1, 10 steps per epoch
    MultiLayerNetwork net = TinyModels.mlp(setup.updater(new Nesterovs(0.05, 0.9)));
    PrivacyLedger probe = setup.ledgerBuilder().build();
    for (int k = 0; k < 13; k++) {
      probe.tryStep();
    }
    // A budget between epsilon after 13 and after 14 steps (no budget on the probe: it only measures).
    double after13 = probe.best(ThreatModel.ALL_ITERATES_RELEASED, 0).orElseThrow().epsilon();
    double after14 = probe.best(ThreatModel.ALL_ITERATES_RELEASED, 1).orElseThrow().epsilon();
    PrivacyLedger ledger = setup.ledgerBuilder()
        .budget(new PrivacyBudget((after13 + after14) / 2, 1e-5, ThreatModel.ALL_ITERATES_RELEASED)).build();

    SparkTrainingResult r = SparkDpSgdTrainer.builder(TinyModels.rdd(TinyModels.records(5, n), 2), net)
        .ledger(ledger).epochs(5).build().train();

    assertThat(r.stopReason()).isEqualTo(StopReason.BUDGET);
    assertThat(r.steps()).isEqualTo(13);
    assertThat(net.getIterationCount()).isEqualTo(13);
    assertThat(r.epochsCompleted()).isEqualTo(1);
    assertThat(ledger.rows()).hasSize(2);   // epoch 1 and the partial epoch 2
    assertThat(ledger.best(ThreatModel.ALL_ITERATES_RELEASED, 0).orElseThrow().epsilon()).isEqualTo(after13);
  }

  @Test
  void refusesADpSgdWhoseExpectedBatchIsNotTheLedgersSampling() {
    DpSgdSetup setup = setup(N, 10, 1);
    MultiLayerNetwork net = TinyModels.mlp(TinyModels.dp(CLIP, Z, 15, new Nesterovs(0.1, 0.9)));
    assertThatThrownBy(() -> SparkDpSgdTrainer.builder(TinyModels.rdd(TinyModels.records(6, N), 2), net)
        .ledger(setup.ledger()).epochs(1).build()).isInstanceOf(IllegalArgumentException.class);
  }

  /** The records, through a map whose task throws on its first attempt while {@link #FAIL_NEXT_FIRST_ATTEMPT}. */
  private static JavaRDD<LabelledRecord> failingOnce(List<LabelledRecord> records) {
    FAIL_NEXT_FIRST_ATTEMPT.set(false);
    return TinyModels.rdd(records, 3).map(r -> {
      TaskContext context = TaskContext.get();
      if (context.partitionId() == 1 && context.attemptNumber() == 0 && FAIL_NEXT_FIRST_ATTEMPT.getAndSet(false)) {
        throw new IllegalStateException("injected failure");
      }
      return r;
    });
  }

  /** The reference: {@code steps} single-machine steps on the whole data set (the q = 1 Poisson batch). */
  private static void singleMachineSteps(DpSgdStep step, List<LabelledRecord> records, int steps) {
    for (int i = 0; i < steps; i++) {
      step.apply(TinyModels.features(records), TinyModels.labels(records));
    }
  }

  private static void assertClose(INDArray actual, INDArray expected, double relative) {
    assertThat(actual.sub(expected).amaxNumber().doubleValue())
        .isLessThanOrEqualTo(relative * expected.amaxNumber().doubleValue());
  }

}
