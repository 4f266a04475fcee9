package org.dp4j.clipping;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import org.assertj.core.data.Offset;
import org.deeplearning4j.nn.conf.graph.L2NormalizeVertex;
import org.deeplearning4j.nn.conf.graph.L2Vertex;
import org.deeplearning4j.nn.conf.graph.MergeVertex;
import org.deeplearning4j.nn.conf.graph.ReshapeVertex;
import org.deeplearning4j.nn.conf.graph.ScaleVertex;
import org.deeplearning4j.nn.conf.graph.StackVertex;
import org.deeplearning4j.nn.conf.layers.BatchNormalization;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.nn.transferlearning.TransferLearning;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;
import org.nd4j.linalg.lossfunctions.LossFunctions.LossFunction;

/**
 * The graph clipper against DL4J's own gradients of each example alone ({@code computeGradientAndScore} on a batch
 * of one, {@link ExactPerExampleGradients}), an independent code path: 1e-10 relative in double, 1e-5 in float.
 */
class GraphPerExampleClipperTest {
  private static final double TOLERANCE = 1e-10;
  private static final int N = 9;

  @BeforeAll
  static void doublePrecision() {
    Nd4j.setDefaultDataTypes(DataType.DOUBLE, DataType.DOUBLE);
  }

  private static INDArray[] denseSkipFeatures() {
    return new INDArray[] {TinyNetworks.features(1, N, 6), TinyNetworks.features(2, N, 4)};
  }

  private static INDArray[] denseSkipLabels() {
    return new INDArray[] {TinyNetworks.labels(3, N, 3, true), TinyNetworks.labels(4, N, 2, false)};
  }

  /** Clip norm halfway between two middle exact norms: about half of the examples are clipped, none ties. */
  private static double medianNorm(ComputationGraph graph, INDArray[] x, INDArray[] y) {
    double[] norms = ExactPerExampleGradients.clippedSum(graph, x, y, null, 1.0, ClippingMode.FLAT)
        .perExampleNorms();
    Arrays.sort(norms);
    return (norms[norms.length / 2 - 1] + norms[norms.length / 2]) / 2;
  }

  private static ClippedGradientSum assertMatchesReference(ComputationGraph graph, INDArray[] x, INDArray[] y,
      INDArray[] labelMasks, ClippingMode mode) {
    double clip = medianNorm(graph, x, y);
    ClippedGradientSum exact = ExactPerExampleGradients.clippedSum(graph, x, y, labelMasks, clip, mode);
    INDArray target = Nd4j.zeros(DataType.DOUBLE, 1, graph.numParams());
    ClippedGradientSum fast = GraphPerExampleClipper.of(graph, mode)
        .addClippedSum(x, y, null, labelMasks, clip, target);
    assertClose(fast, exact, TOLERANCE);
    return fast;
  }

  private static void assertClose(ClippedGradientSum fast, ClippedGradientSum exact, double tolerance) {
    double[] fastNorms = fast.perExampleNorms();
    double[] exactNorms = exact.perExampleNorms();
    assertThat(fastNorms).hasSameSizeAs(exactNorms);
    for (int i = 0; i < exactNorms.length; i++) {
      assertThat(exactNorms[i]).as("exact norm of example %s", i).isPositive();
      assertThat(fastNorms[i]).as("norm of example %s", i)
          .isCloseTo(exactNorms[i], Offset.offset(tolerance * exactNorms[i]));
    }
    double scale = exact.sum().amaxNumber().doubleValue();
    assertThat(scale).isPositive();
    double error = fast.sum().castTo(DataType.DOUBLE).sub(exact.sum()).amaxNumber().doubleValue();
    assertThat(error / scale).as("max relative error of the clipped sum").isLessThanOrEqualTo(tolerance);
    assertThat(fast.clippedCount()).isEqualTo(exact.clippedCount()).isPositive();
  }

  @ParameterizedTest
  @EnumSource(ClippingMode.class)
  void denseSkipConnectionWithEveryFeedForwardVertexAndTwoOutputsMatchesDl4j(ClippingMode mode) {
    ComputationGraph graph = TinyGraphs.denseSkip();
    assertMatchesReference(graph, denseSkipFeatures(), denseSkipLabels(), null, mode);
  }

  @ParameterizedTest
  @EnumSource(ClippingMode.class)
  void cnnWithBranchesPoolingLrnAndTwoOutputsMatchesDl4j(ClippingMode mode) {
    ComputationGraph graph = TinyGraphs.cnn();
    INDArray[] x = {TinyNetworks.features(5, N, 49)};
    INDArray[] y = {TinyNetworks.labels(6, N, 3, true), TinyNetworks.labels(7, N, 2, false)};
    assertMatchesReference(graph, x, y, null, mode);
  }

  @Test
  void convolutionNormFormsAgreeInAGraph() {
    ComputationGraph graph = TinyGraphs.cnn();
    INDArray[] x = {TinyNetworks.features(5, N, 49)};
    INDArray[] y = {TinyNetworks.labels(6, N, 3, true), TinyNetworks.labels(7, N, 2, false)};
    double clip = medianNorm(graph, x, y);
    ClippedGradientSum exact = ExactPerExampleGradients.clippedSum(graph, x, y, null, clip, ClippingMode.FLAT);
    for (ConvolutionNorms norms : ConvolutionNorms.values()) {
      // A chunk of 7 elements forces one example per chunk.
      GraphPerExampleClipper clipper = GraphPerExampleClipper.of(graph, ClippingMode.FLAT, 7, norms);
      assertClose(clipper.clippedSum(x, y, clip, Nd4j.create(DataType.DOUBLE, 1, graph.numParams())), exact,
          TOLERANCE);
    }
  }

  @ParameterizedTest
  @EnumSource(ClippingMode.class)
  void lastTimeStepAndDuplicateToTimeSeriesMatchDl4j(ClippingMode mode) {
    ComputationGraph graph = TinyGraphs.timeSeriesVertices();
    INDArray[] x = {TinyNetworks.features(8, N, 3, 4), TinyNetworks.features(9, N, 5)};
    INDArray[] y = {TinyNetworks.labels(10, N, 3, true)};
    assertMatchesReference(graph, x, y, null, mode);
  }

  @Test
  void labelMasksMatchDl4j() {
    ComputationGraph graph = TinyGraphs.denseSkip();
    // Per-output masks of the MSE output: some examples lose one or both of their regression targets.
    INDArray mask = Nd4j.ones(DataType.DOUBLE, N, 2);
    mask.putScalar(0, 1, 0.0);
    mask.putScalar(3, 0, 0.0);
    mask.putScalar(3, 1, 0.0);
    mask.putScalar(5, 0, 0.0);
    assertMatchesReference(graph, denseSkipFeatures(), denseSkipLabels(), new INDArray[] {null, mask},
        ClippingMode.FLAT);
  }

  @Test
  void floatGraphMatchesTheDoubleReferenceTo1em5() {
    ComputationGraph graph = TinyGraphs.cnn();
    INDArray[] x = {TinyNetworks.features(5, N, 49)};
    INDArray[] y = {TinyNetworks.labels(6, N, 3, true), TinyNetworks.labels(7, N, 2, false)};
    double clip = medianNorm(graph, x, y);
    ClippedGradientSum exact = ExactPerExampleGradients.clippedSum(graph, x, y, null, clip, ClippingMode.FLAT);
    ComputationGraph single = graph.convertDataType(DataType.FLOAT);
    ClippedGradientSum fast = GraphPerExampleClipper.of(single, ClippingMode.FLAT)
        .clippedSum(x, y, clip, Nd4j.create(DataType.FLOAT, 1, single.numParams()));
    assertThat(fast.sum().dataType()).isEqualTo(DataType.FLOAT);
    assertClose(fast, exact, 1e-5);

    ComputationGraph dense = TinyGraphs.denseSkip();
    double denseClip = medianNorm(dense, denseSkipFeatures(), denseSkipLabels());
    ClippedGradientSum denseExact = ExactPerExampleGradients.clippedSum(dense, denseSkipFeatures(),
        denseSkipLabels(), null, denseClip, ClippingMode.FLAT);
    ComputationGraph denseSingle = dense.convertDataType(DataType.FLOAT);
    assertClose(GraphPerExampleClipper.of(denseSingle, ClippingMode.FLAT).clippedSum(denseSkipFeatures(),
        denseSkipLabels(), denseClip, Nd4j.create(DataType.FLOAT, 1, denseSingle.numParams())), denseExact, 1e-5);
  }

  @Test
  void frozenLayerWithBackpropPassesErrorsButGetsNoGradient() {
    ComputationGraph graph = TinyGraphs.frozenInTheMiddle();
    assertThat(graph.getLayer("frozen")).isInstanceOf(org.deeplearning4j.nn.layers.FrozenLayerWithBackprop.class);
    INDArray[] x = {TinyNetworks.features(11, N, 6)};
    INDArray[] y = {TinyNetworks.labels(12, N, 3, true)};
    ClippedGradientSum fast = assertMatchesReference(graph, x, y, null, ClippingMode.PER_LAYER);
    INDArray frozen = graph.getLayer("frozen").getGradientsViewArray();
    long start = offsetOf(graph, "frozen");
    assertThat(fast.sum().get(NDArrayIndex.all(), NDArrayIndex.interval(start, start + frozen.length()))
        .amaxNumber().doubleValue()).isZero();
    // d1's gradient came through the frozen layer's backprop as well as through the merge.
    long d1 = offsetOf(graph, "d1");
    assertThat(fast.sum().get(NDArrayIndex.all(), NDArrayIndex.interval(d1, d1 + 35)).amaxNumber().doubleValue())
        .isPositive();
  }

  @ParameterizedTest
  @EnumSource(ClippingMode.class)
  void featureExtractorFrozenByTransferLearningGetsZerosAndNoNorm(ClippingMode mode) {
    // Freezes "add" (a FrozenVertex), d1 and d2 (FrozenLayer); d3, out and out2 stay trainable.
    ComputationGraph graph = new TransferLearning.GraphBuilder(TinyGraphs.denseSkip())
        .setFeatureExtractor("add").build().convertDataType(DataType.DOUBLE);
    assertThat(graph.getLayer("d1")).isInstanceOf(org.deeplearning4j.nn.layers.FrozenLayer.class);
    assertThat(graph.getVertex("add")).isInstanceOf(org.deeplearning4j.nn.graph.vertex.impl.FrozenVertex.class);
    assertThat(graph.getLayer("d3")).isNotInstanceOf(org.deeplearning4j.nn.layers.FrozenLayer.class);
    INDArray target = Nd4j.rand(DataType.DOUBLE, 1, graph.numParams());
    double clip = medianNorm(graph, denseSkipFeatures(), denseSkipLabels());
    ClippedGradientSum fast = GraphPerExampleClipper.of(graph, mode)
        .clippedSum(denseSkipFeatures(), denseSkipLabels(), clip, target);
    ClippedGradientSum exact = ExactPerExampleGradients.clippedSum(graph, denseSkipFeatures(), denseSkipLabels(),
        null, clip, mode);
    assertClose(fast, exact, TOLERANCE);
    for (String name : new String[] {"d1", "d2"}) {
      long start = offsetOf(graph, name);
      assertThat(target.get(NDArrayIndex.all(), NDArrayIndex.interval(start, start + 35)).amaxNumber()
          .doubleValue()).as("frozen %s", name).isZero();
    }
  }

  @ParameterizedTest
  @EnumSource(ClippingMode.class)
  void graphFromAMultiLayerNetworkGivesTheMlnClippersNormsAndSums(ClippingMode mode) {
    MultiLayerNetwork cnn = TinyNetworks.cnn(new int[] {1, 1}, new int[] {0, 0}, new int[] {1, 1},
        org.deeplearning4j.nn.conf.ConvolutionMode.Truncate);
    assertSameAsMln(cnn, TinyNetworks.features(13, N, 49), TinyNetworks.labels(14, N, 3, true), 0.05, mode);
    // Dense layers, a dropout layer with a fixed mask, dropout on a dense layer's input and an activation layer.
    MultiLayerNetwork mlp = TinyNetworks.mlp(LossFunction.MCXENT, Activation.SOFTMAX, new org.nd4j.linalg.learning
        .config.Sgd(0.1));
    assertSameAsMln(mlp, TinyNetworks.features(15, N, 6), TinyNetworks.labels(16, N, 3, true), 0.5, mode);
  }

  private static void assertSameAsMln(MultiLayerNetwork net, INDArray x, INDArray y, double clip, ClippingMode mode) {
    ComputationGraph graph = net.toComputationGraph();
    ClippedGradientSum mln = PerExampleClipper.of(net, mode).clippedSum(x, y, clip);
    ClippedGradientSum fromGraph = GraphPerExampleClipper.of(graph, mode)
        .clippedSum(new INDArray[] {x}, new INDArray[] {y}, clip, Nd4j.create(DataType.DOUBLE, 1, graph.numParams()));
    assertClose(fromGraph, mln, TOLERANCE);
  }

  @Test
  void addClippedSumAccumulatesMicroBatchesEvenIntoTheGraphsOwnGradientView() {
    ComputationGraph graph = TinyGraphs.cnn();
    INDArray[] x = {TinyNetworks.features(5, N, 49)};
    INDArray[] y = {TinyNetworks.labels(6, N, 3, true), TinyNetworks.labels(7, N, 2, false)};
    GraphPerExampleClipper clipper = GraphPerExampleClipper.of(graph, ClippingMode.FLAT);
    INDArray whole = Nd4j.create(DataType.DOUBLE, 1, graph.numParams());
    ClippedGradientSum all = clipper.clippedSum(x, y, 0.1, whole);
    INDArray view = graph.getFlattenedGradients();
    view.assign(0.0);
    for (int[] part : new int[][] {{0, 4}, {4, N}}) {
      clipper.addClippedSum(rows(x, part), rows(y, part), null, null, 0.1, view);
    }
    assertThat(view.sub(whole).amaxNumber().doubleValue())
        .isLessThanOrEqualTo(1e-12 * whole.amaxNumber().doubleValue());
    assertThat(all.batchSize()).isEqualTo(N);
  }

  @Test
  void emptyBatchGivesZeroSumAndAddsNothing() {
    ComputationGraph graph = TinyGraphs.denseSkip();
    GraphPerExampleClipper clipper = GraphPerExampleClipper.of(graph, ClippingMode.FLAT);
    INDArray[] x = {Nd4j.create(DataType.DOUBLE, 0, 6), Nd4j.create(DataType.DOUBLE, 0, 4)};
    INDArray[] y = {Nd4j.create(DataType.DOUBLE, 0, 3), Nd4j.create(DataType.DOUBLE, 0, 2)};
    INDArray target = Nd4j.ones(DataType.DOUBLE, 1, graph.numParams());
    assertThat(clipper.addClippedSum(x, y, null, null, 1.0, target).batchSize()).isZero();
    assertThat(target.minNumber().doubleValue()).isEqualTo(1.0);
    clipper.clippedSum(x, y, 1.0, target);
    assertThat(target.amaxNumber().doubleValue()).isZero();
  }

  private static INDArray[] rows(INDArray[] arrays, int[] range) {
    return Arrays.stream(arrays).map(a -> a.get(NDArrayIndex.interval(range[0], range[1]), NDArrayIndex.all()).dup())
        .toArray(INDArray[]::new);
  }

  /** Offset of a layer's parameters in the flattened vector (DL4J orders them by the topological order). */
  private static long offsetOf(ComputationGraph graph, String layer) {
    long offset = 0;
    for (int idx : graph.topologicalSortOrder()) {
      if (graph.getVertices()[idx].getVertexName().equals(layer)) {
        return offset;
      }
      offset += graph.getVertices()[idx].numParams();
    }
    throw new IllegalArgumentException(layer);
  }

  @Test
  void refusesWhatMixesExamplesOrIsNotSupportedNamingTheVertex() {
    assertThatThrownBy(() -> GraphPerExampleClipper.of(TinyGraphs.init(TinyGraphs.builder().addInputs("x")
        .addLayer("bn", new BatchNormalization.Builder().nIn(4).nOut(4).build(), "x")
        .addLayer("out", new OutputLayer.Builder(LossFunction.MSE).nIn(4).nOut(2).activation(Activation.IDENTITY)
            .build(), "bn")
        .setOutputs("out").build()), ClippingMode.FLAT))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'bn'")
        .hasMessageContaining("BatchNormalization mixes the examples");
    assertThatThrownBy(() -> GraphPerExampleClipper.of(TinyGraphs.init(TinyGraphs.builder().addInputs("x", "z")
        .addVertex("stack", new StackVertex(), "x", "z")
        .addLayer("out", new OutputLayer.Builder(LossFunction.MSE).nIn(4).nOut(2).activation(Activation.IDENTITY)
            .build(), "stack")
        .setOutputs("out").build()), ClippingMode.FLAT))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'stack'")
        .hasMessageContaining("MergeVertex instead");
    MergeVertex alongExamples = new MergeVertex();
    alongExamples.setMergeAxis(0);
    assertThatThrownBy(() -> GraphPerExampleClipper.of(TinyGraphs.init(TinyGraphs.builder().addInputs("x", "z")
        .addVertex("merge0", alongExamples, "x", "z")
        .addLayer("out", new OutputLayer.Builder(LossFunction.MSE).nIn(4).nOut(2).activation(Activation.IDENTITY)
            .build(), "merge0")
        .setOutputs("out").build()), ClippingMode.FLAT))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'merge0'")
        .hasMessageContaining("dimension 0");
    assertThatThrownBy(() -> GraphPerExampleClipper.of(TinyGraphs.init(TinyGraphs.builder().addInputs("x", "z")
        .addVertex("dist", new L2Vertex(), "x", "z")
        .addLayer("out", new OutputLayer.Builder(LossFunction.MSE).nIn(1).nOut(2).activation(Activation.IDENTITY)
            .build(), "dist")
        .setOutputs("out").build()), ClippingMode.FLAT))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'dist' (L2Vertex)")
        .hasMessageContaining("supported: MergeVertex");
    assertThatThrownBy(() -> GraphPerExampleClipper.of(TinyGraphs.init(TinyGraphs.builder().addInputs("x")
        .addLayer("hidden", new OutputLayer.Builder(LossFunction.MSE).nIn(4).nOut(4).build(), "x")
        .addLayer("out", new OutputLayer.Builder(LossFunction.MSE).nIn(4).nOut(2).build(), "hidden")
        .setOutputs("out").build()), ClippingMode.FLAT))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'hidden'")
        .hasMessageContaining("only supported as an output");
    assertThatThrownBy(() -> GraphPerExampleClipper.of(TinyGraphs.init(TinyGraphs.builder().addInputs("x")
        .addLayer("out", new OutputLayer.Builder(LossFunction.MSE).nIn(4).nOut(2).build(), "x")
        .addVertex("scaled", new ScaleVertex(2.0), "x")
        .setOutputs("out", "scaled").build()), ClippingMode.FLAT))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'scaled'")
        .hasMessageContaining("a network output must be an OutputLayer or a LossLayer");
    assertThatThrownBy(() -> GraphPerExampleClipper.of(TinyGraphs.init(TinyGraphs.builder().addInputs("x")
        .addVertex("fixedBatch", new ReshapeVertex(8, 4), "x")
        .addLayer("out", new OutputLayer.Builder(LossFunction.MSE).nIn(4).nOut(2).build(), "fixedBatch")
        .setOutputs("out").build()), ClippingMode.FLAT))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'fixedBatch'")
        .hasMessageContaining("use -1 as its first dimension");
    assertThatThrownBy(() -> GraphPerExampleClipper.of(TinyGraphs.init(TinyGraphs.builder().addInputs("x")
        .addVertex("l2", new L2NormalizeVertex(new int[] {0, 1}, 1e-8), "x")
        .addLayer("out", new OutputLayer.Builder(LossFunction.MSE).nIn(4).nOut(2).build(), "l2")
        .setOutputs("out").build()), ClippingMode.FLAT))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'l2'")
        .hasMessageContaining("mixes the examples");
  }

  @Test
  void refusesMismatchedArrays() {
    ComputationGraph graph = TinyGraphs.denseSkip();
    GraphPerExampleClipper clipper = GraphPerExampleClipper.of(graph, ClippingMode.FLAT);
    INDArray target = Nd4j.create(DataType.DOUBLE, 1, graph.numParams());
    INDArray[] masks = {Nd4j.ones(DataType.DOUBLE, N, 1)};
    assertThatThrownBy(() -> clipper.addClippedSum(denseSkipFeatures(), denseSkipLabels(), masks, null, 1.0, target))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("one entry per network input (2)");
    assertThatThrownBy(() -> clipper.clippedSum(new INDArray[] {denseSkipFeatures()[0]}, denseSkipLabels(), 1.0,
        target)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("one array per network input (2)");
    assertThatThrownBy(() -> clipper.clippedSum(denseSkipFeatures(), denseSkipLabels(), 1.0,
        Nd4j.create(DataType.DOUBLE, 1, 3))).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("target must be a row vector [1, " + graph.numParams() + "]");
    assertThatThrownBy(() -> clipper.clippedSum(denseSkipFeatures(), denseSkipLabels(), 0.0, target))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("clipNorm");
  }

  @Test
  void clippedSumWrittenInOnGradientCalculationIsWhatGraphFitApplies() {
    // How a private graph.fit uses the clipper: inside DL4J's own step (its workspaces open), overwrite the
    // gradient with the clipped sum; plain SGD then moves the parameters by lr · sum / n.
    ComputationGraph graph = TinyGraphs.cnn();
    INDArray[] x = {TinyNetworks.features(5, N, 49)};
    INDArray[] y = {TinyNetworks.labels(6, N, 3, true), TinyNetworks.labels(7, N, 2, false)};
    GraphPerExampleClipper clipper = GraphPerExampleClipper.of(graph, ClippingMode.FLAT);
    INDArray expected = Nd4j.create(DataType.DOUBLE, 1, graph.numParams());
    ClippedGradientSum sum = clipper.clippedSum(x, y, 0.1, expected);
    assertThat(sum.clippedCount()).isPositive();
    INDArray before = graph.params().dup();
    graph.setListeners(new org.deeplearning4j.optimize.api.BaseTrainingListener() {
      @Override
      public void onGradientCalculation(org.deeplearning4j.nn.api.Model model) {
        INDArray gradient = ((ComputationGraph) model).getFlattenedGradients();
        gradient.assign(0.0);
        clipper.addClippedSum(x, y, null, null, 0.1, gradient);
      }
    });
    graph.fit(new org.nd4j.linalg.dataset.MultiDataSet(x, y));
    INDArray step = before.sub(graph.params());
    INDArray sgdStep = expected.mul(0.1 / N);      // Sgd(0.1) on the batch mean
    assertThat(step.sub(sgdStep).amaxNumber().doubleValue())
        .isLessThanOrEqualTo(1e-12 * sgdStep.amaxNumber().doubleValue());
  }

  @Test
  void javadocExampleRuns() {
    ComputationGraph graph = TinyGraphs.denseSkip();
    org.nd4j.linalg.dataset.MultiDataSet batch =
        new org.nd4j.linalg.dataset.MultiDataSet(denseSkipFeatures(), denseSkipLabels());
    GraphPerExampleClipper clipper = GraphPerExampleClipper.of(graph, ClippingMode.FLAT);
    INDArray sum = Nd4j.create(graph.params().dataType(), 1, graph.numParams());
    ClippedGradientSum s = clipper.clippedSum(batch.getFeatures(), batch.getLabels(), 1.0, sum);  // a MultiDataSet
    int clipped = s.clippedCount();
    assertThat(clipped).isBetween(0, N);
    assertThat(sum.norm2Number().doubleValue()).isLessThanOrEqualTo(N * 1.0 * (1 + 1e-12)).isPositive();
  }
}
