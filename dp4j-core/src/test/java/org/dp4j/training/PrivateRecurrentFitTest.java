package org.dp4j.training;

import static org.assertj.core.api.Assertions.assertThat;

import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.LSTM;
import org.deeplearning4j.nn.conf.layers.RnnOutputLayer;
import org.deeplearning4j.nn.conf.layers.SelfAttentionLayer;
import org.deeplearning4j.nn.conf.layers.recurrent.Bidirectional;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.nn.weights.WeightInit;
import org.dp4j.clipping.ClippedGradientSum;
import org.dp4j.clipping.ClippingMode;
import org.dp4j.clipping.ExactPerExampleGradients;
import org.dp4j.clipping.GraphPerExampleClipper;
import org.dp4j.noise.AesCtrRandom;
import org.dp4j.noise.GaussianNoise;
import org.dp4j.updater.ClippableModel;
import org.dp4j.updater.DpSgd;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;
import org.nd4j.linalg.indexing.SpecifiedIndex;
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.lossfunctions.LossFunctions.LossFunction;

/**
 * An LSTM with an RnnOutputLayer (neither has a vectorised rule here: both take the generic exact path) trains under
 * DL4J's own {@code fit} on a {@link PrivateMultiLayerNetwork}; the clipped sum its steps use equals Σ_i clip(g_i)
 * from DL4J's batch-of-one gradients, in a MultiLayerNetwork and in a ComputationGraph.
 */
class PrivateRecurrentFitTest {
  private static final int N = 24;
  private static final int T = 5;

  private static NeuralNetConfiguration.Builder base() {
    return new NeuralNetConfiguration.Builder().seed(8).dataType(DataType.DOUBLE).weightInit(WeightInit.XAVIER)
        .updater(DpSgd.builder().clipNorm(0.05).noiseMultiplier(1.0).expectedBatchSize(6)
            .baseUpdater(new Sgd(0.5)).build());
  }

  private static DataSet sequences() {
    Nd4j.getRandom().setSeed(6);
    INDArray x = Nd4j.rand(DataType.DOUBLE, N, 3, T).subi(0.5);
    INDArray y = Nd4j.rand(DataType.DOUBLE, N, 2, T).subi(0.5);
    return new DataSet(x, y);
  }

  /** Rows of 3-D features and labels (IndexedData.of pulls rows of matrices). */
  private static IndexedData indexed(DataSet all) {
    return new IndexedData() {
      @Override
      public int size() {
        return N;
      }

      @Override
      public DataSet rows(int[] indices) {
        long[] rows = java.util.Arrays.stream(indices).asLongStream().toArray();
        if (rows.length == 0) {
          return new DataSet(Nd4j.create(DataType.DOUBLE, 0, 3, T), Nd4j.create(DataType.DOUBLE, 0, 2, T));
        }
        return new DataSet(select(all.getFeatures(), rows), select(all.getLabels(), rows));
      }
    };
  }

  private static INDArray select(INDArray a, long[] rows) {
    return a.get(new SpecifiedIndex(rows), NDArrayIndex.all(), NDArrayIndex.all()).dup();
  }

  private static MultiLayerConfiguration lstm() {
    return base().list()
        .layer(new LSTM.Builder().nOut(4).activation(Activation.TANH).build())
        .layer(new RnnOutputLayer.Builder(LossFunction.MSE).nOut(2).activation(Activation.IDENTITY).build())
        .setInputType(InputType.recurrent(3, T)).build();
  }

  @Test
  void lstmTrainsUnderPrivateFitWithExactClippedSums() {
    // The private fit refuses gradients outside its step: the same configuration as a plain network shows the sums.
    MultiLayerNetwork plain = new MultiLayerNetwork(lstm());
    plain.init();
    DataSet data = sequences();
    INDArray x = data.getFeatures().get(NDArrayIndex.interval(0, 8), NDArrayIndex.all(), NDArrayIndex.all());
    INDArray y = data.getLabels().get(NDArrayIndex.interval(0, 8), NDArrayIndex.all(), NDArrayIndex.all());
    // The clipped sum of a private step, by the model the private fit uses, against DL4J's batch-of-one gradients.
    ClippableModel model = ClippableModel.of(plain);
    INDArray target = Nd4j.create(DataType.DOUBLE, 1, plain.numParams());
    ClippedGradientSum fast = model.clippedSum(new INDArray[] {x}, new INDArray[] {y}, null, null, 0.05, target);
    ClippedGradientSum exact = ExactPerExampleGradients.clippedSum(plain, x, y, 0.05, ClippingMode.FLAT);
    assertThat(exact.clippedCount()).isPositive();
    assertThat(fast.sum().sub(exact.sum()).amaxNumber().doubleValue() / exact.sum().amaxNumber().doubleValue())
        .isLessThanOrEqualTo(1e-10);

    PrivateMultiLayerNetwork net = new PrivateMultiLayerNetwork(lstm());
    net.init();
    INDArray before = net.params().dup();
    net.insecureNoise(GaussianNoise.insecureFixedSeed(2));
    net.fit(SampledDataSetIterator.poisson(indexed(data), 6, AesCtrRandom.insecureFixedSeed(4)), 2);
    assertThat(net.getIterationCount()).isEqualTo(8);
    assertThat(net.params().sub(before).amaxNumber().doubleValue()).isPositive();
    assertThat(net.params().isNaN().any() || net.params().isInfinite().any()).isFalse();
  }

  @Test
  void bidirectionalLstmAndSelfAttentionTrainThroughDpSgdSetup() {
    // Neither keeps its updater in a BaseLayer of its own: DpSgdSetup must privatise the wrapped and SameDiff layers.
    MultiLayerConfiguration conf = new NeuralNetConfiguration.Builder().seed(8).dataType(DataType.DOUBLE)
        .weightInit(WeightInit.XAVIER).updater(new Sgd(0.5)).list()
        .layer(new Bidirectional(new LSTM.Builder().nOut(4).activation(Activation.TANH).build()))
        .layer(new SelfAttentionLayer.Builder().nOut(4).nHeads(2).projectInput(true).build())
        .layer(new RnnOutputLayer.Builder(LossFunction.MSE).nOut(2).activation(Activation.IDENTITY).build())
        .setInputType(InputType.recurrent(3, T)).build();
    DpSgdSetup setup = DpSgdSetup.builder().datasetSize(N).expectedBatchSize(6).epochs(1).clipNorm(0.05)
        .noiseMultiplier(1.0).delta(1e-5).build();
    PrivateMultiLayerNetwork net = setup.privateNetwork(conf);
    assertThat(net.dpSgd().clipNorm()).isEqualTo(0.05);
    INDArray before = net.params().dup();
    net.insecureNoise(GaussianNoise.insecureFixedSeed(2));
    net.fit(SampledDataSetIterator.poisson(indexed(sequences()), 6, AesCtrRandom.insecureFixedSeed(4)), 1);
    assertThat(net.getIterationCount()).isEqualTo(4);
    assertThat(net.params().sub(before).amaxNumber().doubleValue()).isPositive();
  }

  @Test
  void lstmInAComputationGraphMatchesDl4jBatchOfOneGradients() {
    ComputationGraph graph = new ComputationGraph(base().graphBuilder().addInputs("x")
        .addLayer("lstm", new LSTM.Builder().nOut(4).activation(Activation.TANH).build(), "x")
        .addLayer("out", new RnnOutputLayer.Builder(LossFunction.MSE).nOut(2).activation(Activation.IDENTITY)
            .build(), "lstm")
        .setOutputs("out").setInputTypes(InputType.recurrent(3, T)).build());
    graph.init();
    DataSet data = sequences();
    INDArray[] x = {data.getFeatures()};
    INDArray[] y = {data.getLabels()};
    for (ClippingMode mode : ClippingMode.values()) {
      INDArray target = Nd4j.create(DataType.DOUBLE, 1, graph.numParams());
      ClippedGradientSum fast = GraphPerExampleClipper.of(graph, mode).clippedSum(x, y, 0.05, target);
      ClippedGradientSum exact = ExactPerExampleGradients.clippedSum(graph, x, y, null, 0.05, mode);
      assertThat(exact.clippedCount()).isPositive();
      assertThat(fast.perExampleNorms()).containsExactly(exact.perExampleNorms(),
          org.assertj.core.data.Offset.offset(1e-10 * exact.perExampleNorms()[0]));
      assertThat(fast.sum().sub(exact.sum()).amaxNumber().doubleValue() / exact.sum().amaxNumber().doubleValue())
          .isLessThanOrEqualTo(1e-10);
    }
  }
}
