package org.dp4j.training;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.assertj.core.data.Offset;
import org.deeplearning4j.datasets.iterator.IteratorMultiDataSetIterator;
import org.nd4j.linalg.dataset.adapter.SingletonMultiDataSetIterator;
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
import org.deeplearning4j.nn.conf.graph.ScaleVertex;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.dp4j.clipping.ClippedGradientSum;
import org.dp4j.clipping.ClippingMode;
import org.dp4j.clipping.GraphPerExampleClipper;
import org.dp4j.noise.AesCtrRandom;
import org.dp4j.noise.GaussianNoise;
import org.dp4j.sampling.PoissonSampler;
import org.dp4j.updater.DpSgd;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.api.MultiDataSet;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.IUpdater;
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.lossfunctions.LossFunctions.LossFunction;

/**
 * A {@link PrivateComputationGraph} with two inputs and two outputs trained through DL4J's
 * {@code fit(MultiDataSetIterator, epochs)}, {@code fit(MultiDataSet)} and {@code EarlyStoppingGraphTrainer} over a
 * {@link SampledMultiDataSetIterator}: per-example norms against DL4J's own gradient of each example alone (the
 * sum of both outputs' losses), steps against the same DP-SGD steps computed by hand, refusals.
 */
class PrivateMultiGraphFitTest {
  private static final int N = 200;
  private static final int BATCH = 40;
  private static final double LR = 0.3;

  /**
   * a [n, 6] → dense, b [n, 4] → dense; both added (skip) and merged with b's branch, scaled, into a dense layer and
   * a softmax output "cls"; b's branch also feeds an MSE output "reg" with one unit.
   */
  static ComputationGraphConfiguration conf(IUpdater updater, DataType type) {
    return new NeuralNetConfiguration.Builder().seed(4).dataType(type).updater(updater).graphBuilder()
        .addInputs("a", "b")
        .addLayer("da", new DenseLayer.Builder().nIn(6).nOut(5).activation(Activation.TANH).build(), "a")
        .addLayer("db", new DenseLayer.Builder().nIn(4).nOut(5).activation(Activation.SIGMOID).build(), "b")
        .addVertex("add", new ElementWiseVertex(ElementWiseVertex.Op.Add), "da", "db")
        .addVertex("merge", new MergeVertex(), "add", "db")
        .addVertex("scale", new ScaleVertex(0.8), "merge")
        .addLayer("d", new DenseLayer.Builder().nIn(10).nOut(6).activation(Activation.RELU).build(), "scale")
        .addLayer("cls", new OutputLayer.Builder(LossFunction.MCXENT).nIn(6).nOut(3)
            .activation(Activation.SOFTMAX).build(), "d")
        .addLayer("reg", new OutputLayer.Builder(LossFunction.MSE).nIn(5).nOut(1)
            .activation(Activation.IDENTITY).build(), "db")
        .setOutputs("cls", "reg").build();
  }

  /** Two inputs, a class (from a's first coordinate) and one regression target (from b). */
  static MultiDataSet data() {
    Nd4j.getRandom().setSeed(9);
    INDArray a = Nd4j.randn(DataType.DOUBLE, N, 6);
    INDArray b = Nd4j.randn(DataType.DOUBLE, N, 4);
    INDArray cls = Nd4j.zeros(DataType.DOUBLE, N, 3);
    for (int i = 0; i < N; i++) {
      double v = a.getDouble(i, 0);
      cls.putScalar(i, v < -0.4 ? 0 : v < 0.4 ? 1 : 2, 1.0);
    }
    INDArray reg = b.getColumn(0, true).mul(0.5).add(b.getColumn(1, true));
    return new org.nd4j.linalg.dataset.MultiDataSet(new INDArray[] {a, b}, new INDArray[] {cls, reg});
  }

  static DpSgdSetup setup(int epochs) {
    return PrivateFitTest.setup(epochs);
  }

  @Test
  void perExampleNormsAreThoseOfDl4jsOwnBatchOfOneGradientsOfBothOutputsLosses() {
    MultiDataSet data = data();
    int n = 12;
    INDArray[] x = RowSelection.rows(data.getFeatures(), range(n));
    INDArray[] y = RowSelection.rows(data.getLabels(), range(n));
    ComputationGraph dl4j = new ComputationGraph(conf(new Sgd(LR), DataType.DOUBLE));
    dl4j.init();
    double[] exact = new double[n];
    for (int i = 0; i < n; i++) {
      // DL4J's own backprop on example i alone: its score is the sum of both outputs' losses.
      dl4j.setInputs(RowSelection.rows(x, new int[] {i}));
      dl4j.setLabels(RowSelection.rows(y, new int[] {i}));
      dl4j.computeGradientAndScore();
      exact[i] = dl4j.gradient().gradient().norm2Number().doubleValue();
    }
    // A clip norm above every norm: the clipped sum is the sum of the exact per-example gradients.
    double clip = 10 * java.util.Arrays.stream(exact).max().orElseThrow();
    ClippedGradientSum fast = GraphPerExampleClipper.of(dl4j, ClippingMode.FLAT)
        .clippedSum(x, y, clip, Nd4j.create(DataType.DOUBLE, 1, dl4j.numParams()));
    for (int i = 0; i < n; i++) {
      assertThat(fast.perExampleNorms()[i]).as("example %s", i).isCloseTo(exact[i], Offset.offset(1e-10 * exact[i]));
    }
    ComputationGraph single = dl4j.convertDataType(DataType.FLOAT);
    ClippedGradientSum inFloat = GraphPerExampleClipper.of(single, ClippingMode.FLAT)
        .clippedSum(x, y, clip, Nd4j.create(DataType.FLOAT, 1, single.numParams()));
    for (int i = 0; i < n; i++) {
      assertThat(inFloat.perExampleNorms()[i]).as("example %s in float", i)
          .isCloseTo(exact[i], Offset.offset(2e-6 * exact[i]));
    }
  }

  @Test
  void fitOverTheMultiSamplerEqualsTheStepsComputedByHand() {
    MultiDataSet data = data();
    DpSgdSetup setup = setup(3);
    PrivateComputationGraph graph = setup.privateGraph(conf(new Sgd(LR), DataType.DOUBLE));
    INDArray initial = graph.params().dup();
    graph.insecureNoise(GaussianNoise.insecureFixedSeed(11));
    graph.fit(SampledMultiDataSetIterator.poisson(IndexedMultiData.of(data), BATCH, AesCtrRandom.insecureFixedSeed(7)),
        3);

    // By hand: θ ← θ − η · (Σ_i clip_C(g_i) + N(0, (zC)² I)) / (qN), batches from the same sampler seed.
    ComputationGraph reference = setup.privateGraph(conf(new Sgd(LR), DataType.DOUBLE));
    assertThat(reference.params()).isEqualTo(initial);
    DpSgd dp = graph.dpSgd();
    GraphPerExampleClipper clipper = GraphPerExampleClipper.of(reference, dp.clipping());
    GaussianNoise noise = GaussianNoise.insecureFixedSeed(11);
    SampledMultiDataSetIterator batches =
        SampledMultiDataSetIterator.poisson(IndexedMultiData.of(data), BATCH, AesCtrRandom.insecureFixedSeed(7));
    int steps = 0;
    int clipped = 0;
    for (int epoch = 0; epoch < 3; epoch++) {
      batches.reset();
      while (batches.hasNext()) {
        MultiDataSet b = batches.next();
        INDArray g = Nd4j.create(DataType.DOUBLE, 1, reference.numParams());
        clipped += clipper.clippedSum(b.getFeatures(), b.getLabels(), dp.clipNorm(), g).clippedCount();
        noise.addGaussian(g, dp.noiseStd());
        reference.params().subi(g.divi(BATCH).muli(LR).reshape(reference.params().shape()));
        steps++;
      }
    }
    assertThat(steps).isEqualTo(15);
    assertThat(clipped).as("the clip norm binds").isPositive();
    assertThat(graph.getIterationCount()).isEqualTo(15);
    assertThat(graph.getEpochCount()).isEqualTo(3);
    assertThat(graph.samplingPlan().orElseThrow().samplingRate()).isEqualTo((double) BATCH / N);
    assertThat(graph.params().sub(initial).norm2Number().doubleValue()).isGreaterThan(1e-3);
    assertThat(graph.params().sub(reference.params()).amaxNumber().doubleValue()).isLessThanOrEqualTo(1e-12);
  }

  @Test
  void singleBatchFitAndAnEmptyBatchAreStepsTheEmptyOneNoiseOnly() {
    PrivateComputationGraph graph = setup(1).privateGraph(conf(new Sgd(LR), DataType.DOUBLE));
    graph.insecureNoise(GaussianNoise.insecureFixedSeed(5));
    SampledMultiDataSetIterator empty = SampledMultiDataSetIterator.of(IndexedMultiData.of(data()),
        new PrivateFitTest.EmptyBatches(N, BATCH));
    SampledMultiBatch batch = empty.next();
    assertThat(batch.getFeatures(0).size(0)).isZero();
    assertThat(batch.getFeatures(1).shape()).containsExactly(0, 4);
    INDArray before = graph.params().dup();
    graph.fit(batch);
    assertThat(graph.getIterationCount()).isEqualTo(1);
    INDArray expected = before.dup();
    GaussianNoise noise = GaussianNoise.insecureFixedSeed(5);
    INDArray g = Nd4j.create(DataType.DOUBLE, 1, graph.numParams());
    noise.addGaussian(g, graph.dpSgd().noiseStd());
    expected.subi(g.divi(BATCH).muli(LR).reshape(expected.shape()));
    assertThat(graph.params().sub(expected).amaxNumber().doubleValue()).isLessThanOrEqualTo(1e-12);
    graph.fit(empty);   // the rest of the epoch: 4 more noise-only steps
    assertThat(graph.getIterationCount()).isEqualTo(5);

    SampledMultiDataSetIterator real = SampledMultiDataSetIterator.poisson(data(), BATCH);
    graph.fit(real.next());
    assertThat(graph.getIterationCount()).isEqualTo(6);
  }

  @Test
  void refusesMultiDataNoSamplerDrewNamingTheSampler() {
    MultiDataSet data = data();
    PrivateComputationGraph graph = setup(1).privateGraph(conf(new Sgd(LR), DataType.DOUBLE));
    INDArray before = graph.params().dup();
    assertThatThrownBy(() -> graph.fit(new IteratorMultiDataSetIterator(List.of(data).iterator(), BATCH)))
        .hasMessageContaining("not a sampler").hasMessageContaining("SampledMultiDataSetIterator");
    assertThatThrownBy(() -> graph.fit(data)).hasMessageContaining("SampledMultiDataSetIterator");
    assertThatThrownBy(() -> graph.fit(data.getFeatures(), data.getLabels())).hasMessageContaining("not a private step");
    assertThatThrownBy(() -> SampledMultiDataSetIterator.poisson(data, BATCH).next(10))
        .hasMessageContaining("drawn by the sampler");
    // A sampler over other data than the iterator's.
    assertThatThrownBy(() -> SampledMultiDataSetIterator.of(IndexedMultiData.of(data),
        PoissonSampler.withExpectedBatchSize(N + 1, BATCH, AesCtrRandom.insecureFixedSeed(1))))
        .hasMessageContaining("covers 201 records but the data has 200");
    assertThat(graph.params()).isEqualTo(before);
    assertThat(graph.getIterationCount()).isZero();
    // One sampling scheme per network: a shuffle-once batch after Poisson steps is refused.
    graph.fit(SampledMultiDataSetIterator.poisson(data, BATCH).next());
    assertThatThrownBy(() -> graph.fit(SampledMultiDataSetIterator.shuffleOnce(IndexedMultiData.of(data), BATCH)))
        .hasMessageContaining("cannot switch");
  }

  @Test
  void earlyStoppingGraphTrainerTakesPrivateStepsOverTheMultiSampler() {
    MultiDataSet data = data();
    PrivateComputationGraph graph = setup(2).privateGraph(conf(new Sgd(LR), DataType.DOUBLE));
    INDArray before = graph.params().dup();
    EarlyStoppingConfiguration<ComputationGraph> es = new EarlyStoppingConfiguration.Builder<ComputationGraph>()
        .epochTerminationConditions(new MaxEpochsTerminationCondition(2))
        .scoreCalculator(new DataSetLossCalculator(new SingletonMultiDataSetIterator(data), true))
        .modelSaver(new InMemoryModelSaver<>()).build();
    EarlyStoppingResult<ComputationGraph> result =
        new EarlyStoppingGraphTrainer(es, graph, SampledMultiDataSetIterator.poisson(data, BATCH), null).fit();
    assertThat(result.getTerminationReason())
        .isEqualTo(EarlyStoppingResult.TerminationReason.EpochTerminationCondition);
    assertThat(result.getBestModel()).isNotNull();
    assertThat(graph.getIterationCount()).isEqualTo(10);
    assertThat(graph.params()).isNotEqualTo(before);
  }

  @Test
  void inMemoryRowsKeepEveryArrayAndRankAndMasks() {
    INDArray seq = Nd4j.arange(2 * 3 * 4).castTo(DataType.DOUBLE).reshape(2, 3, 4);
    INDArray v = Nd4j.arange(4).castTo(DataType.DOUBLE).reshape(2, 2);
    INDArray mask = Nd4j.create(new double[][] {{1, 0}, {0, 1}});
    IndexedMultiData data = IndexedMultiData.of(new org.nd4j.linalg.dataset.MultiDataSet(new INDArray[] {seq, v},
        new INDArray[] {v.dup()}, null, new INDArray[] {mask}));
    MultiDataSet second = data.rows(new int[] {1});
    assertThat(second.getFeatures(0)).isEqualTo(seq.get(org.nd4j.linalg.indexing.NDArrayIndex.interval(1, 2)));
    assertThat(second.getFeatures(1).toDoubleVector()).containsExactly(2, 3);
    assertThat(second.getLabelsMaskArray(0).toDoubleVector()).containsExactly(0, 1);
    MultiDataSet none = data.rows(new int[0]);
    assertThat(none.getFeatures(0).shape()).containsExactly(0, 3, 4);
    assertThatThrownBy(() -> IndexedMultiData.of(new org.nd4j.linalg.dataset.MultiDataSet(new INDArray[] {seq},
        new INDArray[] {Nd4j.zeros(3, 1)}))).hasMessageContaining("every array must have 2 rows");
  }

  private static int[] range(int n) {
    return java.util.stream.IntStream.range(0, n).toArray();
  }
}
