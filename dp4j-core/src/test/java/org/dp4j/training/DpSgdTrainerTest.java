package org.dp4j.training;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.dp4j.accounting.Orders;
import org.dp4j.accounting.RdpConversion;
import org.dp4j.accounting.SgmCalibration;
import org.dp4j.accounting.ThreatModel;
import org.dp4j.accounting.ledger.PrivacyBudget;
import org.dp4j.accounting.ledger.PrivacyLedger;
import org.dp4j.data.LabelledImages;
import org.dp4j.data.MnistLoader;
import org.dp4j.data.MnistSplit;
import org.dp4j.noise.AesCtrRandom;
import org.dp4j.noise.GaussianNoise;
import org.dp4j.sampling.PoissonSampler;
import org.dp4j.sampling.ShuffleOncePartition;
import org.dp4j.updater.DpSgd;
import org.junit.jupiter.api.Assumptions;
import org.dp4j.accounting.ledger.CompositionAccounting;
import org.dp4j.accounting.pld.PldAccountant;
import org.dp4j.accounting.pld.PldCalibration;
import org.junit.jupiter.api.Test;
import org.nd4j.evaluation.classification.Evaluation;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.lossfunctions.LossFunctions;

class DpSgdTrainerTest {
  static MultiLayerConfiguration mlp(int in, int hidden, int out) {
    return new NeuralNetConfiguration.Builder().seed(1).dataType(DataType.FLOAT).updater(new Sgd(0.5)).list()
        .layer(new DenseLayer.Builder().nIn(in).nOut(hidden).activation(Activation.RELU).build())
        .layer(new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT).nIn(hidden).nOut(out)
            .activation(Activation.SOFTMAX).build())
        .build();
  }

  /** Two Gaussian blobs in 10 dimensions, separable. */
  static DataSet blobs(int n) {
    Nd4j.getRandom().setSeed(5);
    INDArray x = Nd4j.randn(DataType.FLOAT, n, 10);
    INDArray y = Nd4j.zeros(DataType.FLOAT, n, 2);
    for (int i = 0; i < n; i++) {
      int c = i % 2;
      x.getRow(i).addi(c == 0 ? 1.5f : -1.5f);
      y.putScalar(i, c, 1f);
    }
    return new DataSet(x, y);
  }

  @Test
  void privateNetworkWrapsTheConfiguredUpdater() {
    DpSgdSetup setup = DpSgdSetup.builder().datasetSize(1000).expectedBatchSize(50).epochs(3).clipNorm(1)
        .noiseMultiplier(1.0).delta(1e-5).build();
    MultiLayerConfiguration conf = mlp(10, 8, 2);
    MultiLayerNetwork net = setup.privateNetwork(conf);
    DpSgd dp = org.dp4j.updater.DpSgdStep.configOf(net);
    assertThat(dp.baseUpdater()).isEqualTo(new Sgd(0.5));
    assertThat(dp.noiseMultiplier()).isEqualTo(1.0);
    assertThat(dp.expectedBatchSize()).isEqualTo(50);
    assertThat(conf.getConf(0).getLayer()).extracting(l -> ((DenseLayer) l).getIUpdater()).isEqualTo(new Sgd(0.5));
    assertThatThrownBy(() -> setup.privateNetwork(net.getLayerWiseConfigurations()))
        .hasMessageContaining("already private");
  }

  @Test
  void targetEpsilonIsCalibratedAndNeverExceeded() {
    DataSet data = blobs(1000);
    DpSgdSetup setup = DpSgdSetup.builder().datasetSize(1000).expectedBatchSize(50).epochs(4).clipNorm(1)
        .targetEpsilon(2.0).delta(1e-5).build();
    // PLD is the default; it needs less noise than RDP for the same target
    double expectedZ = PldCalibration.noiseMultiplier(PldAccountant.withDefaults(), 2.0, 1e-5, 0.05, 80)
        .noiseMultiplier();
    double rdpZ = SgmCalibration.noiseMultiplier(2.0, 1e-5, 0.05, 80, Orders.DEFAULT, RdpConversion.IMPROVED)
        .noiseMultiplier();
    assertThat(setup.accounting()).isEqualTo(CompositionAccounting.PLD);
    assertThat(setup.noiseMultiplier()).isEqualTo(expectedZ).isLessThan(rdpZ);
    DpSgdSetup rdpSetup = DpSgdSetup.builder().datasetSize(1000).expectedBatchSize(50).epochs(4).clipNorm(1)
        .targetEpsilon(2.0).delta(1e-5).accounting(CompositionAccounting.RDP).build();
    assertThat(rdpSetup.noiseMultiplier()).isEqualTo(rdpZ);
    assertThat(rdpSetup.ledger().accountants()).hasSize(1);
    assertThat(setup.ledger().accountants()).extracting(a -> a.name())
        .containsExactly("sampled-gaussian-pld", "sampled-gaussian-rdp");
    MultiLayerNetwork net = setup.privateNetwork(mlp(10, 8, 2));
    TrainingResult r = setup.trainer(net, IndexedData.of(data)).insecureNoise(GaussianNoise.insecureFixedSeed(3)).build()
        .train();
    assertThat(r.stopReason()).isEqualTo(StopReason.COMPLETED);
    assertThat(r.epochsCompleted()).isEqualTo(4);
    assertThat(r.steps()).isEqualTo(80);
    assertThat(r.ledger().rows()).hasSize(4);
    double eps = r.ledger().rows().get(3).composition().orElseThrow().epsilon();
    assertThat(eps).isLessThanOrEqualTo(2.0).isGreaterThan(1.99);
    Evaluation eval = net.evaluate(new org.deeplearning4j.datasets.iterator.utilty.ListDataSetIterator<>(
        data.asList(), 100));
    assertThat(eval.accuracy()).isGreaterThan(0.9);
  }

  /**
   * Augmentation multiplicity: with each example's two views equal, the mean of their gradients is the example's own
   * gradient, so training on [x x] with two views per example is the run on x (same sampler and noise seeds) up to
   * float32 rounding; a network off the fused dense path and rows of the wrong width are refused before training.
   */
  @Test
  void twoEqualViewsPerExampleTrainLikeOne() {
    DataSet data = blobs(300);
    // Rows of a larger array (a view), as the CLI's training split is: the gathered rows must be laid out afresh.
    INDArray larger = Nd4j.vstack(Nd4j.hstack(data.getFeatures(), data.getFeatures()),
        Nd4j.ones(DataType.FLOAT, 7, 20));
    DataSet doubled = new DataSet(larger.get(org.nd4j.linalg.indexing.NDArrayIndex.interval(0, 300),
        org.nd4j.linalg.indexing.NDArrayIndex.all()), data.getLabels());
    DpSgdSetup setup = DpSgdSetup.builder().datasetSize(300).expectedBatchSize(30).epochs(3).clipNorm(0.5)
        .noiseMultiplier(1.0).delta(1e-5).build();
    INDArray[] params = new INDArray[2];
    for (int views = 1; views <= 2; views++) {
      MultiLayerNetwork net = setup.privateNetwork(mlp(10, 6, 2));
      setup.trainer(net, IndexedData.of(views == 1 ? data : doubled)).viewsPerExample(views).physicalBatchSize(3)
          .sampler(PoissonSampler.withRate(300, 0.1, AesCtrRandom.insecureFixedSeed(31)))
          .insecureNoise(GaussianNoise.insecureFixedSeed(32)).build().train();
      params[views - 1] = net.params().dup();
    }
    double scale = params[0].amaxNumber().doubleValue();
    assertThat(params[1].sub(params[0]).amaxNumber().doubleValue()).isLessThanOrEqualTo(1e-4 * scale);
    MultiLayerNetwork fresh = setup.privateNetwork(mlp(10, 6, 2));
    assertThatThrownBy(() -> setup.trainer(fresh, IndexedData.of(data)).viewsPerExample(2)
        .insecureNoise(GaussianNoise.insecureFixedSeed(32)).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("views of the network's 10 inputs");
    MultiLayerNetwork dropout = setup.privateNetwork(new NeuralNetConfiguration.Builder().seed(1)
        .dataType(DataType.FLOAT).updater(new Sgd(0.5)).list()
        .layer(new DenseLayer.Builder().nIn(10).nOut(6).dropOut(0.5).activation(Activation.RELU).build())
        .layer(new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT).nIn(6).nOut(2)
            .activation(Activation.SOFTMAX).build())
        .build());
    assertThatThrownBy(() -> setup.trainer(dropout, IndexedData.of(doubled)).viewsPerExample(2)
        .insecureNoise(GaussianNoise.insecureFixedSeed(32)).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("fused dense path");
  }

  @Test
  void viewsSideBySideBecomeConsecutiveRowsWithTheirLabel() {
    INDArray x = Nd4j.create(new float[][] {{1, 2, 3, 4, 5, 6}, {7, 8, 9, 10, 11, 12}});
    INDArray y = Nd4j.create(new float[][] {{1, 0}, {0, 1}});
    assertThat(ExampleViews.rows(x, 3)).isEqualTo(Nd4j.create(new float[][] {{1, 2}, {3, 4}, {5, 6}, {7, 8},
        {9, 10}, {11, 12}}));
    assertThat(ExampleViews.repeatedRows(y, 3)).isEqualTo(Nd4j.create(new float[][] {{1, 0}, {1, 0}, {1, 0}, {0, 1},
        {0, 1}, {0, 1}}));
  }

  /**
   * The trainer contract: epoch by epoch with {@link PrivateTrainer#trainEpoch()} is the same run as
   * {@link PrivateTrainer#train()} (same seeds, same parameters, same steps), the budget stop ends it, and a
   * finished trainer refuses another epoch.
   */
  @Test
  void trainingEpochByEpochIsTheSameRunAsTrain() {
    DataSet data = blobs(400);
    DpSgdSetup setup = DpSgdSetup.builder().datasetSize(400).expectedBatchSize(40).epochs(50).clipNorm(1)
        .noiseMultiplier(2.0).delta(1e-5).build();
    MultiLayerNetwork[] nets = new MultiLayerNetwork[2];
    PrivateTrainer<TrainingResult>[] trainers = new DpSgdTrainer[2];
    for (int k = 0; k < 2; k++) {
      nets[k] = setup.privateNetwork(mlp(10, 4, 2));
      PrivacyLedger ledger = PrivacyLedger.builder().accountant(DpSgdTrainer.compositionAccountant(nets[k], 400,
          Orders.DEFAULT)).delta(1e-5).budget(new PrivacyBudget(1.5, 1e-5, ThreatModel.ALL_ITERATES_RELEASED))
          .build();
      trainers[k] = setup.trainer(nets[k], IndexedData.of(data)).ledger(ledger)
          .sampler(PoissonSampler.withRate(400, 0.1, AesCtrRandom.insecureFixedSeed(21)))
          .insecureNoise(GaussianNoise.insecureFixedSeed(4)).build();
    }
    TrainingResult whole = trainers[0].train();
    int epochs = 0;
    boolean ranToEnd = true;
    while (!trainers[1].isFinished()) {
      ranToEnd = trainers[1].trainEpoch();
      epochs++;
      assertThat(trainers[1].epochsCompleted()).isEqualTo(ranToEnd ? epochs : epochs - 1);
    }
    TrainingResult byEpoch = trainers[1].result();
    assertThat(ranToEnd).as("the budget stopped the last epoch").isFalse();
    assertThat(byEpoch.stopReason()).isEqualTo(StopReason.BUDGET).isEqualTo(whole.stopReason());
    assertThat(byEpoch.steps()).isEqualTo(whole.steps());
    assertThat(byEpoch.epochsCompleted()).isEqualTo(whole.epochsCompleted()).isEqualTo(epochs - 1);
    assertThat(nets[1].params()).isEqualTo(nets[0].params());
    assertThatThrownBy(trainers[1]::trainEpoch).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("training is finished");
  }

  @Test
  void budgetStopsTrainingAtTheAccountantsStepCount() {
    DataSet data = blobs(400);
    DpSgdSetup setup = DpSgdSetup.builder().datasetSize(400).expectedBatchSize(40).epochs(50).clipNorm(1)
        .noiseMultiplier(2.0).delta(1e-5).build();
    MultiLayerNetwork net = setup.privateNetwork(mlp(10, 4, 2));
    PrivacyLedger ledger = PrivacyLedger.builder().accountant(DpSgdTrainer.compositionAccountant(net, 400,
        Orders.DEFAULT)).delta(1e-5).budget(new PrivacyBudget(1.5, 1e-5, ThreatModel.ALL_ITERATES_RELEASED)).build();
    List<int[]> epochCounts = new ArrayList<>(); // {row's epoch, the network's epoch count seen by the callback}
    TrainingResult r = setup.trainer(net, IndexedData.of(data)).ledger(ledger)
        .onEpoch(row -> epochCounts.add(new int[] {row.epoch(), net.getEpochCount()}))
        .insecureNoise(GaussianNoise.insecureFixedSeed(4)).build().train();
    long allowed = SgmCalibration.maxSteps(1.5, 1e-5, 0.1, 2.0, Orders.DEFAULT, RdpConversion.IMPROVED).steps();
    // A callback (where a checkpoint is saved) sees every finished epoch counted; the partial epoch of the
    // budget stop is not counted.
    int full = (int) (allowed / 10);
    assertThat(epochCounts).hasSize(full + 1);
    for (int e = 0; e < full; e++) {
      assertThat(epochCounts.get(e)).containsExactly(e + 1, e + 1);
    }
    assertThat(epochCounts.get(full)).containsExactly(full + 1, full);
    assertThat(net.getEpochCount()).isEqualTo(full);
    assertThat(allowed).as("a mid-epoch stop").isBetween(11L, 499L).matches(a -> a % 10 != 0);
    assertThat(r.stopReason()).isEqualTo(StopReason.BUDGET);
    assertThat(r.steps()).isEqualTo(allowed);
    assertThat(r.epochsCompleted()).isEqualTo((int) (allowed / 10));
    assertThat(ledger.rows().get(ledger.rows().size() - 1).steps()).isEqualTo(allowed);
    assertThat(ledger.rows().get(ledger.rows().size() - 1).composition().orElseThrow().epsilon())
        .isLessThanOrEqualTo(1.5);
  }

  @Test
  void physicalMicroBatchesLeaveTheUpdatesAndTheAccountingUnchanged() {
    DataSet data = blobs(400);
    DpSgdSetup setup = DpSgdSetup.builder().datasetSize(400).expectedBatchSize(40).epochs(2).clipNorm(1)
        .noiseMultiplier(1.0).delta(1e-5).build();
    MultiLayerNetwork[] nets = new MultiLayerNetwork[2];
    TrainingResult[] results = new TrainingResult[2];
    for (int run = 0; run < 2; run++) {
      nets[run] = setup.privateNetwork(mlp(10, 8, 2));
      DpSgdTrainer.Builder trainer = setup.trainer(nets[run], IndexedData.of(data))
          .sampler(org.dp4j.sampling.PoissonSampler.withExpectedBatchSize(400, 40, AesCtrRandom.insecureFixedSeed(8)))
          .insecureNoise(GaussianNoise.insecureFixedSeed(9));
      if (run == 1) {
        trainer.physicalBatchSize(7);       // logical batches of ~40 in micro-batches of at most 7
      }
      results[run] = trainer.build().train();
    }
    // One mechanism step per logical batch either way: the same steps and the same epsilon.
    assertThat(results[1].steps()).isEqualTo(results[0].steps()).isEqualTo(20);
    assertThat(results[1].ledger().rows().get(1).composition().orElseThrow().epsilon())
        .isEqualTo(results[0].ledger().rows().get(1).composition().orElseThrow().epsilon());
    assertThat(nets[1].getIterationCount()).isEqualTo(20);
    // Same samples and noise: the same parameters up to float32 rounding of the summation order.
    double scale = nets[0].params().amaxNumber().doubleValue();
    assertThat(nets[1].params().sub(nets[0].params()).amaxNumber().doubleValue()).isLessThan(1e-5 * scale);
  }

  @Test
  void aSamplerTheAccountantDoesNotCoverIsRefused() {
    DataSet data = blobs(400);
    DpSgdSetup setup = DpSgdSetup.builder().datasetSize(400).expectedBatchSize(40).epochs(2).clipNorm(1)
        .noiseMultiplier(1.0).delta(1e-5).build();
    MultiLayerNetwork net = setup.privateNetwork(mlp(10, 4, 2));
    assertThatThrownBy(() -> setup.trainer(net, IndexedData.of(data))
        .sampler(new ShuffleOncePartition(400, 40, AesCtrRandom.insecureFixedSeed(1))).build())
        .hasMessageContaining("Poisson");
  }

  @Test
  void aShortRunOnAnMnistSliceLearns() throws Exception {
    Path dir = Path.of(System.getProperty("user.dir")).resolve("../.cache/data/mnist").normalize();
    Assumptions.assumeTrue(Files.isDirectory(dir), "MNIST not fetched (scripts/fetch-data.sh)");
    LabelledImages train = MnistLoader.load(dir, MnistSplit.TRAIN);
    LabelledImages test = MnistLoader.load(dir, MnistSplit.TEST);
    int n = 6000;
    int[] slice = new int[n];
    for (int i = 0; i < n; i++) {
      slice[i] = i;
    }
    DataSet trainSlice = train.toDataSet(slice, DataType.FLOAT);
    DpSgdSetup setup = DpSgdSetup.builder().datasetSize(n).expectedBatchSize(200).epochs(3).clipNorm(1)
        .targetEpsilon(5).delta(1e-5).build();
    MultiLayerNetwork net = setup.privateNetwork(mlp(784, 64, 10));
    // Seeded noise and sampling (tests only) so that the accuracy threshold is not a coin flip.
    TrainingResult r = setup.trainer(net, IndexedData.of(trainSlice)).insecureNoise(GaussianNoise.insecureFixedSeed(11))
        .sampler(PoissonSampler.withExpectedBatchSize(n, 200, AesCtrRandom.insecureFixedSeed(12))).build().train();
    int[] first = new int[2000];
    for (int i = 0; i < first.length; i++) {
      first[i] = i;
    }
    DataSet testSlice = test.toDataSet(first, DataType.FLOAT);
    Evaluation eval = new Evaluation(10);
    eval.eval(testSlice.getLabels(), net.output(testSlice.getFeatures()));
    assertThat(eval.accuracy()).as("test accuracy after 3 private epochs on 6k examples").isGreaterThan(0.75);
    assertThat(r.ledger().rows().get(2).composition().orElseThrow().epsilon()).isLessThanOrEqualTo(5);
  }
}
