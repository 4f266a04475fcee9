package org.dp4j.clipping;

import static org.dp4j.clipping.RecurrentClipperTest.LENGTHS;
import static org.dp4j.clipping.RecurrentClipperTest.N;

import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.graph.rnn.LastTimeStepVertex;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.GravesLSTM;
import org.deeplearning4j.nn.conf.layers.LSTM;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.conf.layers.RnnOutputLayer;
import org.deeplearning4j.nn.conf.layers.recurrent.Bidirectional;
import org.deeplearning4j.nn.conf.layers.recurrent.LastTimeStep;
import org.deeplearning4j.nn.conf.layers.recurrent.SimpleRnn;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.lossfunctions.LossFunctions.LossFunction;

/**
 * The recurrent rules inside a {@code ComputationGraph}, with masks propagated as DL4J propagates them: a sequence
 * input read by a Bidirectional LSTM, whose output feeds a per-step RnnOutputLayer and, through a
 * LastTimeStepVertex and a dense layer, a classifier; a LastTimeStep(GravesLSTM) feeds the classifier as well. The
 * reference is DL4J's gradient of each example alone, cut to its length, without masks, to 1e-10 relative.
 */
class GraphRecurrentClipperTest {
  private static final double TOLERANCE = 1e-10;

  @BeforeAll
  static void doublePrecision() {
    Nd4j.setDefaultDataTypes(DataType.DOUBLE, DataType.DOUBLE);
  }

  private static ComputationGraph graph() {
    ComputationGraph graph = new ComputationGraph(new NeuralNetConfiguration.Builder().seed(21)
        .dataType(DataType.DOUBLE).updater(new Sgd(0.1)).graphBuilder()
        .addInputs("seq").setInputTypes(InputType.recurrent(3))
        .addLayer("bi", new Bidirectional(Bidirectional.Mode.CONCAT, new LSTM.Builder().nIn(3).nOut(3).build()),
            "seq")
        .addLayer("steps", new RnnOutputLayer.Builder(LossFunction.MSE).nIn(6).nOut(2)
            .activation(Activation.TANH).build(), "bi")
        .addVertex("last", new LastTimeStepVertex("seq"), "bi")
        .addLayer("graves", new LastTimeStep(new GravesLSTM.Builder().nIn(3).nOut(2).build()), "seq")
        .addLayer("dense", new DenseLayer.Builder().nIn(6).nOut(4).activation(Activation.SIGMOID).build(), "last")
        .addLayer("rnn", new LastTimeStep(new SimpleRnn.Builder().nIn(3).nOut(2).build()), "seq")
        .addVertex("merge", new org.deeplearning4j.nn.conf.graph.MergeVertex(), "dense", "graves", "rnn")
        .addLayer("class", new OutputLayer.Builder(LossFunction.MCXENT).nIn(8).nOut(3)
            .activation(Activation.SOFTMAX).build(), "merge")
        .setOutputs("steps", "class").build());
    graph.init();
    graph.params().addi(Nd4j.rand(DataType.DOUBLE, graph.params().shape()).subi(0.5).muli(0.4));
    return graph;
  }

  /** Row i: DL4J's gradient of example i alone, cut to {@code lengths[i]} steps (null: all), without masks. */
  private static INDArray reference(ComputationGraph graph, INDArray x, INDArray steps, INDArray classes,
      int[] lengths) {
    INDArray rows = Nd4j.create(DataType.DOUBLE, N, graph.numParams());
    for (int i = 0; i < N; i++) {
      long len = lengths == null ? x.size(2) : lengths[i];
      graph.setInputs(x.get(NDArrayIndex.interval(i, i + 1), NDArrayIndex.all(), NDArrayIndex.interval(0, len)).dup());
      graph.setLabels(
          steps.get(NDArrayIndex.interval(i, i + 1), NDArrayIndex.all(), NDArrayIndex.interval(0, len)).dup(),
          classes.get(NDArrayIndex.interval(i, i + 1), NDArrayIndex.all()).dup());
      graph.setLayerMaskArrays(null, null);
      graph.computeGradientAndScore();
      rows.getRow(i).assign(graph.gradient().gradient().reshape(graph.numParams()));
    }
    graph.clear();
    return rows;
  }

  private static void assertMatches(ComputationGraph graph, INDArray x, INDArray steps, INDArray classes,
      INDArray mask, int[] lengths) {
    INDArray rows = reference(graph, x, steps, classes, lengths);
    double clip = RecurrentClipperTest.clipBetweenMiddleNorms(rows);
    INDArray target = Nd4j.zeros(DataType.DOUBLE, 1, graph.numParams());
    ClippedGradientSum fast = GraphPerExampleClipper.of(graph, ClippingMode.FLAT).addClippedSum(
        new INDArray[] {x}, new INDArray[] {steps, classes}, mask == null ? null : new INDArray[] {mask},
        mask == null ? null : new INDArray[] {mask, null}, clip, target);
    RecurrentClipperTest.assertMatches(fast, rows, clip, TOLERANCE);
  }

  @Test
  void recurrentLayersWrappersAndLastTimeStepVertexMatchDl4j() {
    ComputationGraph graph = graph();
    INDArray x = TinyNetworks.features(31, N, 3, RecurrentClipperTest.STEPS);
    INDArray steps = TinyNetworks.features(32, N, 2, RecurrentClipperTest.STEPS).muli(0.5);
    INDArray classes = TinyNetworks.labels(33, N, 3, true);
    assertMatches(graph, x, steps, classes, null, null);
    assertMatches(graph, x, steps, classes, RecurrentClipperTest.lengthMask(), LENGTHS);
  }
}
