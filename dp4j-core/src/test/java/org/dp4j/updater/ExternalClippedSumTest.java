package org.dp4j.updater;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.nn.weights.WeightInit;
import org.dp4j.clipping.ClippingMode;
import org.dp4j.clipping.ExactPerExampleGradients;
import org.dp4j.clipping.TinyNetworks;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;
import org.nd4j.linalg.learning.config.Adam;
import org.nd4j.linalg.learning.config.IUpdater;
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.lossfunctions.LossFunctions.LossFunction;

/**
 * The external path of a DP-SGD step ({@link DpSgdStep#accumulateClippedSum}: clipped sums computed by other
 * processes on parts of the batch, noise and update on the driver) equals the local path ({@link DpSgdStep#apply})
 * given the same batch and the same noise draw, and both equal the update computed from DL4J's own per-example
 * gradients (independent reference).
 */
class ExternalClippedSumTest {
  private static final double LEARNING_RATE = 0.3;
  private static final double EXPECTED_BATCH = 10;
  private static final double CLIP = 0.5;

  @BeforeAll
  static void doublePrecision() {
    Nd4j.setDefaultDataTypes(DataType.DOUBLE, DataType.DOUBLE);
  }

  private static DpSgd dp(IUpdater base) {
    return DpSgd.builder().clipNorm(CLIP).noiseMultiplier(0.7).expectedBatchSize(EXPECTED_BATCH).baseUpdater(base)
        .build();
  }

  @Test
  void multiLayerNetworkExternalSumsEqualTheLocalStepAndDl4jsPerExampleGradients() {
    MultiLayerNetwork local = TinyNetworks.mlp(LossFunction.MCXENT, Activation.SOFTMAX, dp(new Sgd(LEARNING_RATE)));
    MultiLayerNetwork driver = local.clone();
    INDArray x = TinyNetworks.features(51, 7, 6);
    INDArray y = TinyNetworks.labels(52, 7, 3, true);
    INDArray before = local.params().dup();
    INDArray reference = ExactPerExampleGradients.clippedSum(local.clone(), x, y, CLIP, ClippingMode.FLAT).sum();

    RecordingNoise localNoise = new RecordingNoise(9);
    DpSgdStep.withInsecureNoise(local, localNoise).apply(x, y);

    // Two "executors" (copies of the network at the same parameters) clip rows 0..3 and 4..6.
    INDArray total = Nd4j.zeros(DataType.DOUBLE, 1, driver.numParams());
    for (long[] part : new long[][] {{0, 4}, {4, 7}}) {
      ClippableModel executor = ClippableModel.of(driver.clone());
      INDArray partial = executor.gradientView().ulike();
      executor.clippedSum(new INDArray[] {rows(x, part)}, new INDArray[] {rows(y, part)}, null, null, CLIP, partial);
      total.addi(partial);
    }
    RecordingNoise driverNoise = new RecordingNoise(9);
    DpSgdStep step = DpSgdStep.withInsecureNoise(driver, driverNoise);
    step.accumulateClippedSum(total);
    step.step();

    assertClose(driverNoise.last(), localNoise.last(), 1e-12);   // the same draw (recorded as a difference)
    assertClose(driver.params(), local.params(), 1e-12);
    INDArray expected = before.sub(reference.add(localNoise.last()).muli(LEARNING_RATE / EXPECTED_BATCH));
    assertClose(driver.params(), expected, 1e-10);
    assertThat(driver.getIterationCount()).isEqualTo(1);
  }

  @Test
  void computationGraphExternalSumEqualsTheLocalStepWithDl4jsUpdater() {
    ComputationGraph local = graph(new Adam(0.05));
    ComputationGraph driver = local.clone();
    INDArray x = TinyNetworks.features(61, 9, 6);
    INDArray y = TinyNetworks.labels(62, 9, 3, true);

    DpSgdStep.withInsecureNoise(local, new RecordingNoise(10)).apply(x, y);

    ClippableModel executor = ClippableModel.of(driver.clone());
    INDArray sum = executor.gradientView().ulike();
    executor.clippedSum(new INDArray[] {x}, new INDArray[] {y}, null, null, CLIP, sum);
    DpSgdStep step = DpSgdStep.withInsecureNoise(driver, new RecordingNoise(10));
    step.accumulateClippedSum(sum);
    step.step();

    assertClose(driver.params(), local.params(), 1e-12);
    assertThat(driver.getIterationCount()).isEqualTo(1);
  }

  @Test
  void computationGraphPlainSgdStepIsTheDpSgdUpdateOfDl4jsPerExampleGradients() {
    ComputationGraph graph = graph(new Sgd(LEARNING_RATE));
    INDArray x = TinyNetworks.features(71, 5, 6);
    INDArray y = TinyNetworks.labels(72, 5, 3, true);
    INDArray before = graph.params().dup();
    INDArray reference = ExactPerExampleGradients.clippedSum(graph.clone(), new INDArray[] {x}, new INDArray[] {y},
        null, CLIP, ClippingMode.FLAT).sum();
    RecordingNoise noise = new RecordingNoise(11);

    DpSgdStep.withInsecureNoise(graph, noise).apply(x, y);

    INDArray expected = before.sub(reference.add(noise.last()).muli(LEARNING_RATE / EXPECTED_BATCH));
    assertClose(graph.params(), expected, 1e-10);
  }

  @Test
  void refusesASumOfTheWrongLength() {
    MultiLayerNetwork net = TinyNetworks.mlp(LossFunction.MCXENT, Activation.SOFTMAX, dp(new Sgd(LEARNING_RATE)));
    DpSgdStep step = DpSgdStep.withInsecureNoise(net, new RecordingNoise(12));
    assertThatThrownBy(() -> step.accumulateClippedSum(Nd4j.zeros(DataType.DOUBLE, 1, net.numParams() + 1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("has " + (net.numParams() + 1));
  }

  /** Several views per example are a MultiLayerNetwork's (fused dense path); a graph takes one view only. */
  @Test
  void aGraphStepRefusesSeveralViewsPerExample() {
    DpSgdStep step = DpSgdStep.withInsecureNoise(graph(new Sgd(LEARNING_RATE)), new RecordingNoise(14));
    step.requireViews(1);
    assertThatThrownBy(() -> step.requireViews(2)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("need a MultiLayerNetwork on the fused dense path");
    assertThatThrownBy(() -> step.accumulate(TinyNetworks.features(73, 4, 6), TinyNetworks.labels(74, 4, 3, true), 2))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("2 views");
  }

  @Test
  void aGraphStepRefusesInsecureNoiseUnlessAskedFor() {
    assertThatThrownBy(() -> DpSgdStep.of(graph(new Sgd(0.1)), new RecordingNoise(13)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not cryptographically secure");
  }

  private static ComputationGraph graph(IUpdater base) {
    ComputationGraph graph = new ComputationGraph(new NeuralNetConfiguration.Builder().seed(5)
        .dataType(DataType.DOUBLE).updater(dp(base)).weightInit(WeightInit.XAVIER).graphBuilder()
        .addInputs("in")
        .addLayer("hidden", new DenseLayer.Builder().nIn(6).nOut(5).activation(Activation.TANH).build(), "in")
        .addLayer("out", new OutputLayer.Builder(LossFunction.MCXENT).nIn(5).nOut(3)
            .activation(Activation.SOFTMAX).build(), "hidden")
        .setOutputs("out").build());
    graph.init();
    return graph;
  }

  private static INDArray rows(INDArray a, long[] range) {
    return a.get(NDArrayIndex.interval(range[0], range[1]), NDArrayIndex.all()).dup();
  }

  private static void assertClose(INDArray actual, INDArray expected, double relative) {
    assertThat(actual.sub(expected).amaxNumber().doubleValue())
        .isLessThanOrEqualTo(relative * expected.amaxNumber().doubleValue());
  }
}
