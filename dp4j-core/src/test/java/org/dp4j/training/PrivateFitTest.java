package org.dp4j.training;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.nd4j.linalg.dataset.ViewIterator;
import org.deeplearning4j.earlystopping.EarlyStoppingConfiguration;
import org.deeplearning4j.earlystopping.EarlyStoppingResult;
import org.deeplearning4j.earlystopping.saver.InMemoryModelSaver;
import org.deeplearning4j.earlystopping.scorecalc.DataSetLossCalculator;
import org.deeplearning4j.earlystopping.termination.MaxEpochsTerminationCondition;
import org.deeplearning4j.earlystopping.trainer.EarlyStoppingTrainer;
import org.deeplearning4j.nn.api.Model;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.nn.transferlearning.TransferLearning;
import org.deeplearning4j.optimize.api.BaseTrainingListener;
import org.deeplearning4j.optimize.listeners.ScoreIterationListener;
import org.dp4j.accounting.Orders;
import org.dp4j.accounting.ledger.CompositionStepAccountant;
import org.dp4j.accounting.ledger.PrivacyLedger;
import org.dp4j.noise.AesCtrRandom;
import org.dp4j.noise.GaussianNoise;
import org.dp4j.sampling.PoissonSampler;
import org.dp4j.sampling.ShuffleOncePartition;
import org.dp4j.updater.DpSgdStep;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.IUpdater;
import org.nd4j.linalg.learning.config.Nesterovs;
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.lossfunctions.LossFunctions;

/** DL4J's own fit loop on a {@link PrivateMultiLayerNetwork} against dp4j's {@link DpSgdTrainer}. */
class PrivateFitTest {
  private static final int N = 200;
  private static final int BATCH = 40;

  static MultiLayerConfiguration conf(IUpdater updater) {
    return new NeuralNetConfiguration.Builder().seed(3).dataType(DataType.DOUBLE).updater(updater).list()
        .layer(new DenseLayer.Builder().nIn(10).nOut(8).activation(Activation.TANH).build())
        .layer(new DenseLayer.Builder().nIn(8).nOut(6).activation(Activation.RELU).build())
        .layer(new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT).nIn(6).nOut(2)
            .activation(Activation.SOFTMAX).build())
        .build();
  }

  static DpSgdSetup setup(int epochs) {
    return DpSgdSetup.builder().datasetSize(N).expectedBatchSize(BATCH).epochs(epochs).clipNorm(0.5)
        .noiseMultiplier(1.3).delta(1e-5).build();
  }

  static DataSet data() {
    return doubles(DpSgdTrainerTest.blobs(N));
  }

  private static DataSet doubles(DataSet d) {
    return new DataSet(d.getFeatures().castTo(DataType.DOUBLE), d.getLabels().castTo(DataType.DOUBLE));
  }

  /** Same seeds for sampling and noise: DL4J's fit must take exactly DpSgdTrainer's steps. */
  private static void assertFitEqualsTrainer(IUpdater base) {
    DataSet data = data();
    DpSgdSetup setup = setup(3);
    MultiLayerNetwork reference = setup.privateNetwork(conf(base));
    TrainingResult r = DpSgdTrainer.builder(reference, IndexedData.of(data))
        .sampler(PoissonSampler.withExpectedBatchSize(N, BATCH, AesCtrRandom.insecureFixedSeed(7)))
        .ledger(setup.ledger()).epochs(3).insecureNoise(GaussianNoise.insecureFixedSeed(11)).build().train();

    PrivateMultiLayerNetwork net = setup.privateNetwork(conf(base));
    net.insecureNoise(GaussianNoise.insecureFixedSeed(11));
    net.fit(SampledDataSetIterator.poisson(IndexedData.of(data), BATCH, AesCtrRandom.insecureFixedSeed(7)), 3);

    assertThat(r.steps()).isEqualTo(15);
    assertThat(net.getIterationCount()).isEqualTo(15);
    assertThat(net.getEpochCount()).isEqualTo(3);
    assertThat(net.params()).isEqualTo(reference.params());   // bit for bit
    assertThat(net.params()).isNotEqualTo(setup.privateNetwork(conf(base)).params());
  }

  @Test
  void fitEqualsDpSgdTrainerWithPlainSgd() {
    assertFitEqualsTrainer(new Sgd(0.3));
  }

  @Test
  void fitEqualsDpSgdTrainerWithMomentum() {
    assertFitEqualsTrainer(new Nesterovs(0.1, 0.9));
  }

  @Test
  void emptyBatchTakesTheNoiseOnlyStepOfDpSgdStep() {
    DataSet data = data();
    MultiLayerNetwork reference = setup(1).privateNetwork(conf(new Sgd(0.3)));
    DpSgdStep.withInsecureNoise(reference, GaussianNoise.insecureFixedSeed(5)).apply(
        Nd4j.create(DataType.DOUBLE, 0, 10), Nd4j.create(DataType.DOUBLE, 0, 2));
    PrivateMultiLayerNetwork net = setup(1).privateNetwork(conf(new Sgd(0.3)));
    INDArray before = net.params().dup();
    net.insecureNoise(GaussianNoise.insecureFixedSeed(5));
    SampledDataSetIterator it = SampledDataSetIterator.of(IndexedData.of(data), new EmptyBatches(N, BATCH));
    net.fit(it.next());
    assertThat(net.params()).isEqualTo(reference.params());
    assertThat(net.params()).isNotEqualTo(before);
    assertThat(net.getIterationCount()).isEqualTo(1);
    // Through fit(iterator) as well: an epoch of empty batches is an epoch of noise-only steps.
    net.fit(SampledDataSetIterator.of(IndexedData.of(data), new EmptyBatches(N, BATCH)));
    assertThat(net.getIterationCount()).isEqualTo(6);
    assertThat(net.getEpochCount()).isEqualTo(1);
  }

  @Test
  void shuffleOnceIteratorVisitsEveryUsedRecordOncePerEpoch() {
    DataSet data = data();
    SampledDataSetIterator it = SampledDataSetIterator.shuffleOnce(IndexedData.of(data), 30,
        AesCtrRandom.insecureFixedSeed(2));
    assertThat(it.plan().stepsPerEpoch()).isEqualTo(6);
    int rows = 0;
    while (it.hasNext()) {
      rows += it.next().numExamples();
    }
    assertThat(rows).isEqualTo(180);
    it.reset();
    assertThat(it.hasNext()).isTrue();
    PrivateMultiLayerNetwork net = DpSgdSetup.builder().datasetSize(N).expectedBatchSize(30).epochs(1).clipNorm(1)
        .noiseMultiplier(1).delta(1e-5).build().privateNetwork(conf(new Sgd(0.1)));
    net.fit(it);
    assertThat(net.getIterationCount()).isEqualTo(6);
  }

  @Test
  void poissonBatchSizesAverageTheExpectedBatch() {
    SampledDataSetIterator it = SampledDataSetIterator.poisson(data(), BATCH);
    long total = 0;
    for (int e = 0; e < 20; e++) {
      it.reset();
      while (it.hasNext()) {
        total += it.next().numExamples();
      }
    }
    // 100 steps of Binomial(200, 0.2): mean 40, sd of the mean 0.57; 6 sd either side.
    assertThat(total / 100.0).isBetween(36.5, 43.5);
  }

  @Test
  void refusesDataThatNoSamplerDrew() {
    PrivateMultiLayerNetwork net = setup(1).privateNetwork(conf(new Sgd(0.1)));
    DataSet data = data();
    assertThatThrownBy(() -> net.fit(new ViewIterator(data, 40)))
        .hasMessageContaining("ViewIterator").hasMessageContaining("SampledDataSetIterator.poisson");
    assertThatThrownBy(() -> net.fit(data)).hasMessageContaining("SampledDataSetIterator.poisson");
    assertThatThrownBy(() -> net.fit(data.getFeatures(), data.getLabels()))
        .hasMessageContaining("not a private step");
    assertThat(net.getIterationCount()).isZero();
  }

  @Test
  void plainNetworkWithDpSgdStillRefusesFit() {
    MultiLayerNetwork plain = new MultiLayerNetwork(setup(1).privateNetwork(conf(new Sgd(0.1)))
        .getLayerWiseConfigurations());
    plain.init();
    assertThatThrownBy(() -> plain.fit(data())).hasMessageContaining("not clipped per example");
  }

  @Test
  void listenersSeeEpochsIterationsAndThePrivatisedGradient() {
    PrivateMultiLayerNetwork net = setup(2).privateNetwork(conf(new Sgd(0.5)));
    Recorder recorder = new Recorder();
    net.setListeners(recorder, new ScoreIterationListener(1));
    SampledDataSetIterator it = SampledDataSetIterator.poisson(data(), BATCH);
    net.fit(it, 2);
    assertThat(recorder.epochStarts).isEqualTo(2);
    assertThat(recorder.epochEnds).isEqualTo(2);
    assertThat(recorder.iterations).containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
    // As in DL4J, listeners see the sum before the division by the batch size, here the noisy clipped sum
    // S + N(0, (zC)^2 I), which is then divided by the expected batch size 40: with plain SGD,
    // θ_before − θ_after = η · (what the listener saw) / 40.
    for (int i = 0; i < recorder.gradients.size(); i++) {
      INDArray delta = recorder.before.get(i).sub(recorder.after.get(i));
      assertThat(delta.sub(recorder.gradients.get(i).mul(0.5 / 40)).amaxNumber().doubleValue()).isLessThan(1e-14);
    }
    assertThat(net.score()).isNaN();
  }

  @Test
  void evaluativeListenerRunsOnHeldOutDataAtEachEpochEnd() {
    PrivateMultiLayerNetwork net = setup(2).privateNetwork(conf(new Sgd(0.3)));
    org.nd4j.evaluation.classification.Evaluation eval = new org.nd4j.evaluation.classification.Evaluation(2);
    List<Integer> evaluatedAtEpoch = new ArrayList<>();
    org.deeplearning4j.optimize.listeners.EvaluativeListener evaluative =
        new org.deeplearning4j.optimize.listeners.EvaluativeListener(new ViewIterator(doubles(
            DpSgdTrainerTest.blobs(100)), 50), 1, org.deeplearning4j.optimize.api.InvocationType.EPOCH_END, eval);
    evaluative.setCallback((listener, model, invocationsCount, evaluations) ->
        evaluatedAtEpoch.add(((MultiLayerNetwork) model).getEpochCount()));
    net.setListeners(evaluative);
    net.fit(SampledDataSetIterator.poisson(data(), BATCH), 2);
    assertThat(evaluatedAtEpoch).hasSize(2);
    assertThat(eval.getConfusion().getActualTotal(0) + eval.getConfusion().getActualTotal(1)).isEqualTo(100);
  }

  @Test
  void earlyStoppingTrainerTrainsPrivately() {
    DataSet data = data();
    PrivateMultiLayerNetwork net = setup(2).privateNetwork(conf(new Sgd(0.3)));
    EarlyStoppingConfiguration<MultiLayerNetwork> es = new EarlyStoppingConfiguration.Builder<MultiLayerNetwork>()
        .epochTerminationConditions(new MaxEpochsTerminationCondition(2))
        .scoreCalculator(new DataSetLossCalculator(new ViewIterator(data, 50), true))
        .modelSaver(new InMemoryModelSaver<>()).build();
    EarlyStoppingResult<MultiLayerNetwork> result =
        new EarlyStoppingTrainer(es, net, SampledDataSetIterator.poisson(data, BATCH)).fit();
    assertThat(result.getTerminationReason()).isEqualTo(EarlyStoppingResult.TerminationReason.EpochTerminationCondition);
    assertThat(result.getBestModel()).isNotNull();
    assertThat(net.getIterationCount()).isEqualTo(10);
  }

  @Test
  void frozenLayersStayBitIdenticalAndPretrainedWeightsAreKept() {
    MultiLayerNetwork pretrained = new MultiLayerNetwork(conf(new Nesterovs(0.1, 0.9)));
    pretrained.init();
    DataSet data = data();
    for (int i = 0; i < 3; i++) {
      pretrained.fit(data);   // public pretraining, non-private
    }
    MultiLayerNetwork tuned = new TransferLearning.Builder(pretrained).setFeatureExtractor(0).build();
    PrivateMultiLayerNetwork net = setup(2).privateNetwork(tuned);
    assertThat(net.params()).isEqualTo(pretrained.params());
    assertThat(net.getIterationCount()).isZero();
    Map<String, INDArray> frozenBefore = copy(net.getLayer(0).paramTable());
    INDArray topBefore = net.getLayer(2).params().dup();
    net.fit(SampledDataSetIterator.poisson(data, BATCH), 2);
    assertThat(net.getLayer(0).paramTable()).isEqualTo(frozenBefore);
    assertThat(net.getLayer(2).params()).isNotEqualTo(topBefore);
    // The same with DpSgdStep (the lower-level API).
    PrivateMultiLayerNetwork other = setup(2).privateNetwork(tuned);
    DpSgdStep.of(other).apply(data.getFeatures(), data.getLabels());
    assertThat(other.getLayer(0).paramTable()).isEqualTo(frozenBefore);
  }

  @Test
  void resumeKeepsParametersUpdaterStateAndIterationCount() {
    PrivateMultiLayerNetwork net = setup(1).privateNetwork(conf(new Nesterovs(0.1, 0.9)));
    net.fit(SampledDataSetIterator.poisson(data(), BATCH));
    PrivateMultiLayerNetwork resumed = PrivateMultiLayerNetwork.resume(net);
    assertThat(resumed.params()).isEqualTo(net.params());
    assertThat(resumed.getUpdater().getStateViewArray()).isEqualTo(net.getUpdater().getStateViewArray());
    assertThat(resumed.getIterationCount()).isEqualTo(5);
    assertThatThrownBy(() -> setup(1).privateNetwork(net)).hasMessageContaining("already private");
  }

  @Test
  void insecureNoiseIsRefusedUnlessOptedIn() {
    MultiLayerNetwork net = setup(1).privateNetwork(conf(new Sgd(0.1)));
    assertThatThrownBy(() -> DpSgdStep.of(net, GaussianNoise.insecureFixedSeed(1)))
        .hasMessageContaining("not cryptographically secure");
    assertThatThrownBy(() -> setup(1).trainer(net, IndexedData.of(data())).noise(GaussianNoise.insecureFixedSeed(1)))
        .hasMessageContaining("not cryptographically secure");
    TrainingResult r = setup(1).trainer(net, IndexedData.of(data())).insecureNoise(GaussianNoise.insecureFixedSeed(1))
        .build().train();
    assertThat(r.guaranteesVoidBecause()).isPresent();
    assertThat(r.epsilonSpent()).contains("NO privacy guarantee");
    assertThat(r.epsilon(org.dp4j.accounting.ThreatModel.ALL_ITERATES_RELEASED)).isEmpty();
    assertThat(r.ledger().guaranteesVoidedBecause()).isEqualTo(r.guaranteesVoidBecause());
    assertThat(r.ledger().warnings()).anyMatch(w -> w.startsWith("NO privacy guarantee"));
  }

  private static Map<String, INDArray> copy(Map<String, INDArray> table) {
    Map<String, INDArray> out = new java.util.LinkedHashMap<>();
    table.forEach((k, v) -> out.put(k, v.dup()));
    return out;
  }

  /** Poisson plan, but every batch empty. */
  record EmptyBatches(int n, int b) implements org.dp4j.sampling.BatchSampler {
    @Override
    public org.dp4j.sampling.SamplingPlan plan() {
      return PoissonSampler.withExpectedBatchSize(n, b, AesCtrRandom.insecureFixedSeed(1)).plan();
    }

    @Override
    public int[] nextBatch() {
      return new int[0];
    }
  }

  private static final class Recorder extends BaseTrainingListener {
    int epochStarts;
    int epochEnds;
    final List<Integer> iterations = new ArrayList<>();
    final List<INDArray> gradients = new ArrayList<>();
    final List<INDArray> before = new ArrayList<>();
    final List<INDArray> after = new ArrayList<>();

    @Override
    public void onEpochStart(Model model) {
      epochStarts++;
    }

    @Override
    public void onEpochEnd(Model model) {
      epochEnds++;
    }

    @Override
    public void onGradientCalculation(Model model) {
      gradients.add(model.gradient().gradient().dup());
      before.add(model.params().dup());
    }

    @Override
    public void iterationDone(Model model, int iteration, int epoch) {
      iterations.add(iteration);
      after.add(model.params().dup());
    }
  }
}
