package org.dp4j.clipping;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.RnnOutputLayer;
import org.deeplearning4j.nn.conf.layers.SelfAttentionLayer;
import org.deeplearning4j.nn.conf.layers.recurrent.SimpleRnn;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.nn.weights.WeightInit;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.lossfunctions.LossFunctions.LossFunction;

/**
 * The vectorised {@code SelfAttentionLayer} rule against DL4J's own batch-of-one backprop (an independent
 * computation: SameDiff's multi-head attention and its gradient), in double, 1 and 2 heads, with and without a
 * feature mask; and against dp4j's generic path.
 */
class SelfAttentionGradientsTest {
  private static final int N = 5;
  private static final int T = 4;
  private static final double TOLERANCE = 1e-10;

  private static MultiLayerNetwork network(int heads, boolean projectInput) {
    return TinyNetworks.init(new NeuralNetConfiguration.Builder().seed(11).dataType(DataType.DOUBLE)
        .updater(new Sgd(0.1)).weightInit(WeightInit.XAVIER).list()
        .layer(new SelfAttentionLayer.Builder().nIn(3).nOut(projectInput ? 4 : 3).nHeads(heads).projectInput(projectInput).build())
        .layer(new RnnOutputLayer.Builder(LossFunction.MSE).nOut(2).activation(Activation.TANH).build())
        .setInputType(InputType.recurrent(3, T)).build());
  }

  private static INDArray uniform(long seed, long... shape) {
    Nd4j.getRandom().setSeed(seed);
    return Nd4j.rand(DataType.DOUBLE, shape).subi(0.5).muli(2.0);
  }

  /** Lengths T, T-1, ..., padded at the end, and one example with a masked step in the middle. */
  private static INDArray mask() {
    INDArray m = Nd4j.zeros(DataType.DOUBLE, N, T);
    for (int i = 0; i < N; i++) {
      for (int t = 0; t < Math.max(1, T - i); t++) {
        m.putScalar(i, t, 1.0);
      }
    }
    return m.putScalar(0, 1, 0.0);
  }

  private static double maxRelative(INDArray actual, INDArray expected) {
    double scale = expected.amaxNumber().doubleValue();
    assertThat(scale).isPositive();
    return actual.sub(expected).amaxNumber().doubleValue() / scale;
  }

  /** The rule's squared norms of layer 0, from one batched pass in the order the clippers drive the rules. */
  private static INDArray ruleSquaredNorms(MultiLayerNetwork net, INDArray x, INDArray y, INDArray mask) {
    List<PerExampleLayer> rules = LayerRules.forNetwork(net, ConvolutionGradients.CHUNK_ELEMENTS,
        ConvolutionNorms.BY_COST);
    assertThat(rules.get(0)).isInstanceOf(SelfAttentionGradients.class);
    rules.get(0).setInputMask(mask);
    INDArray hidden = rules.get(0).forward(x);
    rules.get(1).setInputMask(mask);
    rules.get(1).forward(hidden);
    INDArray error = rules.get(1).backwardFromLabels(y, mask, true);
    rules.get(0).backward(error, false);
    return rules.get(0).squaredNorms();
  }

  private static void assertExact(int heads, INDArray mask) {
    MultiLayerNetwork net = network(heads, true);
    INDArray x = uniform(1, N, 3, T);
    INDArray y = uniform(2, N, 2, T);
    INDArray expected = RuleDriver.dl4jPerExample(net, x, y, mask);
    assertThat(maxRelative(RuleDriver.perExample(net, x, y, mask), expected)).as("gradients, %s heads", heads)
        .isLessThanOrEqualTo(TOLERANCE);

    long attentionParams = net.getLayer(0).numParams();
    INDArray block = expected.get(NDArrayIndex.all(), NDArrayIndex.interval(0, attentionParams));
    INDArray expectedNorms = block.mul(block).sum(1).reshape(N, 1);
    assertThat(maxRelative(ruleSquaredNorms(net, x, y, mask).reshape(N, 1), expectedNorms)).as("squared norms")
        .isLessThanOrEqualTo(TOLERANCE);

    LayerRuleRegistry.register(SelfAttentionLayer.class, LayerRuleRegistry.generic());
    try {
      assertThat(maxRelative(RuleDriver.perExample(net, x, y, mask), expected)).as("generic path")
          .isLessThanOrEqualTo(TOLERANCE);
    } finally {
      LayerRuleRegistry.unregister(SelfAttentionLayer.class);
    }
    if (mask != null) {
      // The mask matters: without it the same batch has other gradients.
      assertThat(maxRelative(RuleDriver.dl4jPerExample(net, x, y, null), expected)).isGreaterThan(1e-3);
    }
  }

  @Test
  void oneHeadMatchesDl4jWithAndWithoutMask() {
    assertExact(1, null);
    assertExact(1, mask());
  }

  @Test
  void twoHeadsMatchDl4jWithAndWithoutMask() {
    assertExact(2, null);
    assertExact(2, mask());
  }

  /** A head size other than nOut / nHeads (Wq [2, 3, nIn], Wo [6, nOut]), with the mask. */
  @Test
  void explicitHeadSizeMatchesDl4j() {
    MultiLayerNetwork net = TinyNetworks.init(new NeuralNetConfiguration.Builder().seed(11).dataType(DataType.DOUBLE)
        .updater(new Sgd(0.1)).weightInit(WeightInit.XAVIER).list()
        .layer(new SelfAttentionLayer.Builder().nOut(4).nHeads(2).headSize(3).projectInput(true).build())
        .layer(new RnnOutputLayer.Builder(LossFunction.MSE).nOut(2).activation(Activation.TANH).build())
        .setInputType(InputType.recurrent(3, T)).build());
    assertThat(net.getLayer(0).getParam("Wo").shape()).containsExactly(6, 4);
    INDArray x = uniform(1, N, 3, T);
    INDArray y = uniform(2, N, 2, T);
    assertThat(maxRelative(RuleDriver.perExample(net, x, y, mask()), RuleDriver.dl4jPerExample(net, x, y, mask())))
        .isLessThanOrEqualTo(TOLERANCE);
  }

  /** The input error too: a SimpleRnn below the attention layer gets DL4J's gradients. */
  @Test
  void layerBelowMatchesDl4jWithAndWithoutMask() {
    MultiLayerNetwork net = TinyNetworks.init(new NeuralNetConfiguration.Builder().seed(11).dataType(DataType.DOUBLE)
        .updater(new Sgd(0.1)).weightInit(WeightInit.XAVIER).list()
        .layer(new SimpleRnn.Builder().nOut(3).activation(Activation.TANH).build())
        .layer(new SelfAttentionLayer.Builder().nOut(4).nHeads(2).projectInput(true).build())
        .layer(new RnnOutputLayer.Builder(LossFunction.MSE).nOut(2).activation(Activation.TANH).build())
        .setInputType(InputType.recurrent(3, T)).build());
    INDArray x = uniform(1, N, 3, T);
    INDArray y = uniform(2, N, 2, T);
    for (INDArray mask : java.util.Arrays.asList(null, mask())) {
      assertThat(maxRelative(RuleDriver.perExample(net, x, y, mask), RuleDriver.dl4jPerExample(net, x, y, mask)))
          .isLessThanOrEqualTo(TOLERANCE);
    }
  }

  /**
   * Central differences of example 0's loss (independent of both backprops) show DL4J's gradient of the attention
   * layer, and the error it passes down, to be {@link SelfAttentionGradients#DL4J_FACTOR} = 2 times the derivative;
   * the output layer's gradient is the derivative itself. The rule reproduces DL4J (the gradient DL4J's own fit
   * applies); should a DL4J release fix the factor, this test fails.
   */
  @Test
  void dl4jAttentionGradientIsTwiceTheDerivative() {
    MultiLayerNetwork net = network(2, true);
    INDArray x = RuleDriver.row(uniform(1, N, 3, T), 0);
    INDArray y = RuleDriver.row(uniform(2, N, 2, T), 0);
    INDArray gradient = RuleDriver.dl4jPerExample(net, x, y, null).getRow(0);
    long attention = net.getLayer(0).numParams();
    DataSet example = new DataSet(x, y);
    INDArray params = net.params().dup();
    double h = 1e-6;
    for (long j = 0; j < net.numParams(); j++) {
      net.setParams(params.dup().putScalar(j, params.getDouble(j) + h));
      double up = net.score(example);
      net.setParams(params.dup().putScalar(j, params.getDouble(j) - h));
      double derivative = (up - net.score(example)) / (2 * h);
      double factor = j < attention ? SelfAttentionGradients.DL4J_FACTOR : 1.0;
      assertThat(gradient.getDouble(j)).as("parameter %s", j).isCloseTo(factor * derivative, within(1e-7));
    }
    net.setParams(params);
  }

  @Test
  void withoutInputProjectionTheGenericPathIsUsed() {
    List<PerExampleLayer> rules = LayerRules.forNetwork(network(1, false), ConvolutionGradients.CHUNK_ELEMENTS,
        ConvolutionNorms.BY_COST);
    assertThat(rules.get(0)).isNotInstanceOf(SelfAttentionGradients.class);
  }
}
