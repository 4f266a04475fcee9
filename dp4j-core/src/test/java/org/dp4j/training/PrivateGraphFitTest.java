package org.dp4j.training;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.deeplearning4j.datasets.iterator.IteratorMultiDataSetIterator;
import org.deeplearning4j.earlystopping.EarlyStoppingConfiguration;
import org.deeplearning4j.earlystopping.EarlyStoppingResult;
import org.deeplearning4j.earlystopping.saver.InMemoryModelSaver;
import org.deeplearning4j.earlystopping.scorecalc.DataSetLossCalculator;
import org.deeplearning4j.earlystopping.termination.MaxEpochsTerminationCondition;
import org.deeplearning4j.earlystopping.trainer.EarlyStoppingGraphTrainer;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.graph.ElementWiseVertex;
import org.deeplearning4j.nn.conf.graph.MergeVertex;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.transferlearning.TransferLearning;
import org.dp4j.clipping.GraphPerExampleClipper;
import org.dp4j.noise.AesCtrRandom;
import org.dp4j.noise.GaussianNoise;
import org.dp4j.updater.DpSgd;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.dataset.ViewIterator;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.IUpdater;
import org.nd4j.linalg.learning.config.Nesterovs;
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.lossfunctions.LossFunctions;

/**
 * DL4J's own fit loop on a {@link PrivateComputationGraph} with a skip connection, against the same DP-SGD steps
 * computed by hand from {@link GraphPerExampleClipper}, the same seeded (insecure) noise and plain SGD.
 */
class PrivateGraphFitTest {
  private static final int N = 200;
  private static final int BATCH = 40;
  private static final double LR = 0.3;

  /** in → a → (b ‖ c) → b + c → [sum, a] merged → out: two branches and a skip connection. */
  static ComputationGraphConfiguration conf(IUpdater updater) {
    return new NeuralNetConfiguration.Builder().seed(3).dataType(DataType.DOUBLE).updater(updater).graphBuilder()
        .addInputs("in")
        .addLayer("a", new DenseLayer.Builder().nIn(10).nOut(8).activation(Activation.TANH).build(), "in")
        .addLayer("b", new DenseLayer.Builder().nIn(8).nOut(6).activation(Activation.RELU).build(), "a")
        .addLayer("c", new DenseLayer.Builder().nIn(8).nOut(6).activation(Activation.TANH).build(), "a")
        .addVertex("sum", new ElementWiseVertex(ElementWiseVertex.Op.Add), "b", "c")
        .addVertex("merge", new MergeVertex(), "sum", "a")
        .addLayer("out", new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT).nIn(14).nOut(2)
            .activation(Activation.SOFTMAX).build(), "merge")
        .setOutputs("out").build();
  }

  static DpSgdSetup setup(int epochs) {
    return PrivateFitTest.setup(epochs);
  }

  @Test
  void fitEqualsTheStepsComputedByHand() {
    DataSet data = PrivateFitTest.data();
    DpSgdSetup setup = setup(3);
    PrivateComputationGraph graph = setup.privateGraph(conf(new Sgd(LR)));
    INDArray initial = graph.params().dup();
    graph.insecureNoise(GaussianNoise.insecureFixedSeed(11));
    graph.fit(SampledDataSetIterator.poisson(IndexedData.of(data), BATCH, AesCtrRandom.insecureFixedSeed(7)), 3);

    // By hand: θ ← θ − η · (Σ_i clip_C(g_i) + N(0, (zC)² I)) / (qN), batches from the same sampler seed.
    ComputationGraph reference = setup.privateGraph(conf(new Sgd(LR)));
    assertThat(reference.params()).isEqualTo(initial);
    DpSgd dp = graph.dpSgd();
    GraphPerExampleClipper clipper = GraphPerExampleClipper.of(reference, dp.clipping());
    GaussianNoise noise = GaussianNoise.insecureFixedSeed(11);
    SampledDataSetIterator batches =
        SampledDataSetIterator.poisson(IndexedData.of(data), BATCH, AesCtrRandom.insecureFixedSeed(7));
    int steps = 0;
    for (int epoch = 0; epoch < 3; epoch++) {
      batches.reset();
      while (batches.hasNext()) {
        org.nd4j.linalg.dataset.api.DataSet b = batches.next();
        INDArray g = Nd4j.create(DataType.DOUBLE, 1, reference.numParams());
        clipper.clippedSum(new INDArray[] {b.getFeatures()}, new INDArray[] {b.getLabels()}, dp.clipNorm(), g);
        noise.addGaussian(g, dp.noiseStd());
        reference.params().subi(g.divi(BATCH).muli(LR).reshape(reference.params().shape()));
        steps++;
      }
    }
    assertThat(steps).isEqualTo(15);
    assertThat(graph.getIterationCount()).isEqualTo(15);
    assertThat(graph.getEpochCount()).isEqualTo(3);
    assertThat(graph.params().sub(initial).norm2Number().doubleValue()).isGreaterThan(1e-3);
    assertThat(graph.params().sub(reference.params()).amaxNumber().doubleValue()).isLessThanOrEqualTo(1e-12);
  }

  @Test
  void emptyPoissonBatchTakesANoiseOnlyStep() {
    PrivateComputationGraph graph = setup(1).privateGraph(conf(new Sgd(LR)));
    INDArray before = graph.params().dup();
    graph.insecureNoise(GaussianNoise.insecureFixedSeed(5));
    graph.fit(SampledDataSetIterator.of(IndexedData.of(PrivateFitTest.data()), new PrivateFitTest.EmptyBatches(N,
        BATCH)));
    assertThat(graph.getIterationCount()).isEqualTo(5);
    // Five steps of noise only: θ − η Σ_t N_t / (qN), with the same seed.
    INDArray expected = before.dup();
    GaussianNoise noise = GaussianNoise.insecureFixedSeed(5);
    for (int t = 0; t < 5; t++) {
      INDArray g = Nd4j.create(DataType.DOUBLE, 1, graph.numParams());
      noise.addGaussian(g, graph.dpSgd().noiseStd());
      expected.subi(g.divi(BATCH).muli(LR).reshape(expected.shape()));
    }
    assertThat(graph.params().sub(expected).amaxNumber().doubleValue()).isLessThanOrEqualTo(1e-12);
  }

  @Test
  void frozenVerticesStayBitIdenticalAndPretrainedWeightsAreKept() {
    ComputationGraph pretrained = new ComputationGraph(conf(new Nesterovs(0.1, 0.9)));
    pretrained.init();
    DataSet data = PrivateFitTest.data();
    for (int i = 0; i < 3; i++) {
      pretrained.fit(data);   // public pretraining, non-private
    }
    ComputationGraph tuned = new TransferLearning.GraphBuilder(pretrained).setFeatureExtractor("b").build();
    PrivateComputationGraph graph = setup(2).privateGraph(tuned);
    assertThat(graph.params().reshape(pretrained.params().shape()).sub(pretrained.params()).amaxNumber().doubleValue())
        .isZero();
    assertThat(graph.getIterationCount()).isZero();
    INDArray a = graph.getLayer("a").params().dup();
    INDArray b = graph.getLayer("b").params().dup();
    INDArray c = graph.getLayer("c").params().dup();
    INDArray out = graph.getLayer("out").params().dup();
    graph.fit(SampledDataSetIterator.poisson(data, BATCH), 2);
    assertThat(graph.getIterationCount()).isEqualTo(10);
    assertThat(graph.getLayer("a").params()).isEqualTo(a);   // below "b": frozen too
    assertThat(graph.getLayer("b").params()).isEqualTo(b);
    assertThat(graph.getLayer("c").params()).isNotEqualTo(c);
    assertThat(graph.getLayer("out").params()).isNotEqualTo(out);
  }

  @Test
  void refusesDataThatNoSamplerDrewAndGraphsWithoutDpSgd() {
    DataSet data = PrivateFitTest.data();
    PrivateComputationGraph graph = setup(1).privateGraph(conf(new Sgd(LR)));
    INDArray before = graph.params().dup();
    assertThatThrownBy(() -> graph.fit(new ViewIterator(data, BATCH)))
        .hasMessageContaining("not a sampler").hasMessageContaining("SampledDataSetIterator.poisson");
    assertThatThrownBy(() -> graph.fit(new IteratorMultiDataSetIterator(
        java.util.List.<org.nd4j.linalg.dataset.api.MultiDataSet>of(data.toMultiDataSet()).iterator(), BATCH)))
        .hasMessageContaining("not a sampler");
    assertThatThrownBy(() -> graph.fit(data)).hasMessageContaining("SampledDataSetIterator");
    assertThatThrownBy(() -> graph.fit(data.toMultiDataSet())).hasMessageContaining("SampledMultiDataSetIterator");
    assertThatThrownBy(() -> graph.fit(new INDArray[] {data.getFeatures()}, new INDArray[] {data.getLabels()}))
        .hasMessageContaining("not a private step");
    assertThat(graph.params()).isEqualTo(before);
    assertThat(graph.getIterationCount()).isZero();

    PrivateComputationGraph noDpSgd = new PrivateComputationGraph(conf(new Sgd(LR)));
    noDpSgd.init();
    assertThatThrownBy(() -> noDpSgd.fit(SampledDataSetIterator.poisson(data, BATCH)))
        .hasMessageContaining("must use the same DpSgd updater");
    // A plain ComputationGraph with DpSgd still refuses DL4J's non-private fit.
    ComputationGraph plain = new ComputationGraph(setup(1).privateGraph(conf(new Sgd(LR))).getConfiguration());
    plain.init();
    assertThatThrownBy(() -> plain.fit(data)).isInstanceOf(RuntimeException.class);
    assertThatThrownBy(() -> setup(1).privateGraph(graph)).hasMessageContaining("already private");
  }

  @Test
  void earlyStoppingGraphTrainerTrainsPrivately() {
    DataSet data = PrivateFitTest.data();
    PrivateComputationGraph graph = setup(2).privateGraph(conf(new Sgd(LR)));
    EarlyStoppingConfiguration<ComputationGraph> es = new EarlyStoppingConfiguration.Builder<ComputationGraph>()
        .epochTerminationConditions(new MaxEpochsTerminationCondition(2))
        .scoreCalculator(new DataSetLossCalculator(new ViewIterator(data, 50), true))
        .modelSaver(new InMemoryModelSaver<>()).build();
    EarlyStoppingResult<ComputationGraph> result =
        new EarlyStoppingGraphTrainer(es, graph, SampledDataSetIterator.poisson(data, BATCH)).fit();
    assertThat(result.getTerminationReason())
        .isEqualTo(EarlyStoppingResult.TerminationReason.EpochTerminationCondition);
    assertThat(result.getBestModel()).isNotNull();
    assertThat(graph.getIterationCount()).isEqualTo(10);
  }

  @Test
  void resumeKeepsParametersUpdaterStateAndIterationCount() {
    PrivateComputationGraph graph = setup(1).privateGraph(conf(new Nesterovs(0.1, 0.9)));
    graph.fit(SampledDataSetIterator.poisson(PrivateFitTest.data(), BATCH));
    PrivateComputationGraph resumed = PrivateComputationGraph.resume(graph);
    assertThat(resumed.params()).isEqualTo(graph.params());
    assertThat(resumed.getUpdater().getStateViewArray()).isEqualTo(graph.getUpdater().getStateViewArray());
    assertThat(resumed.getIterationCount()).isEqualTo(5);
  }
}
