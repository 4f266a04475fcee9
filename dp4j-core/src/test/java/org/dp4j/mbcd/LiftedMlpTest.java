package org.dp4j.mbcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.lossfunctions.LossFunctions.LossFunction;

class LiftedMlpTest {

  @BeforeAll
  static void doublePrecision() {
    Nd4j.setDefaultDataTypes(DataType.DOUBLE, DataType.DOUBLE);
  }

  /** A DL4J MLP: dense ReLU layers of the given widths, then an identity/MSE output layer. */
  static MultiLayerNetwork mlp(long seed, int... widths) {
    return mlp(DataType.DOUBLE, seed, widths);
  }

  static MultiLayerNetwork mlp(DataType type, long seed, int... widths) {
    var list = new NeuralNetConfiguration.Builder().seed(seed).dataType(type).list();
    int last = widths.length - 2;
    for (int i = 0; i < last; i++) {
      list.layer(new DenseLayer.Builder().nIn(widths[i]).nOut(widths[i + 1])
          .activation(Activation.RELU).build());
    }
    list.layer(new OutputLayer.Builder(LossFunction.MSE).nIn(widths[last]).nOut(widths[last + 1])
        .activation(Activation.IDENTITY).build());
    MultiLayerNetwork net = new MultiLayerNetwork(list.build());
    net.init();
    return net;
  }

  @Test
  void forwardPassEqualsDl4jOnTheSameWeights() {
    MultiLayerNetwork net = mlp(42, 5, 7, 6, 3);
    // non-zero biases, so the bias layout is exercised too
    net.setParams(Nd4j.randn(new long[] {1, net.numParams()}).muli(0.5));
    LiftedMlp lifted = LiftedMlp.from(net);
    INDArray x = Nd4j.randn(new long[] {11, 5});
    assertThat(lifted.depth()).isEqualTo(2);
    assertThat(lifted.widths()).containsExactly(5, 7, 6, 3);
    assertThat(lifted.blockParameterCount(0)).isEqualTo(5 * 7 + 7);
    assertThat(lifted.output(x).reshape(33).toDoubleVector())
        .containsExactly(net.output(x).reshape(33).toDoubleVector(), within(1e-13));
  }

  @Test
  void writtenBackNetworkPredictsWhatTheLiftedOnePredicts() {
    MultiLayerNetwork net = mlp(3, 4, 8, 2);
    LiftedMlp lifted = LiftedMlp.from(net);
    lifted.block(0).weights().addi(0.25);   // change the blocks as training would
    lifted.block(1).bias().addi(-1.0);
    INDArray x = Nd4j.randn(new long[] {6, 4});
    MultiLayerNetwork released = lifted.toNetwork();
    assertThat(released.output(x).reshape(12).toDoubleVector())
        .containsExactly(lifted.output(x).reshape(12).toDoubleVector(), within(1e-13));
    assertThat(net.output(x).reshape(12).toDoubleVector()).as("the source net is untouched")
        .doesNotContain(lifted.output(x).getDouble(0, 0));
  }

  @Test
  void rejectsArchitecturesWithoutClosedForms() {
    var tanh = new NeuralNetConfiguration.Builder().dataType(DataType.DOUBLE).list()
        .layer(new DenseLayer.Builder().nIn(3).nOut(4).activation(Activation.TANH).build())
        .layer(new OutputLayer.Builder(LossFunction.MSE).nIn(4).nOut(2)
            .activation(Activation.IDENTITY).build()).build();
    assertThatThrownBy(() -> LiftedMlp.from(init(tanh)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ReLU");
    var softmax = new NeuralNetConfiguration.Builder().dataType(DataType.DOUBLE).list()
        .layer(new DenseLayer.Builder().nIn(3).nOut(4).activation(Activation.RELU).build())
        .layer(new OutputLayer.Builder(LossFunction.MSE).nIn(4).nOut(2)
            .activation(Activation.SOFTMAX).build()).build();
    assertThatThrownBy(() -> LiftedMlp.from(init(softmax)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("identity + MSE")
        .hasMessageContaining("softmax + MCXENT");
    var weighted = new NeuralNetConfiguration.Builder().dataType(DataType.DOUBLE).list()
        .layer(new DenseLayer.Builder().nIn(3).nOut(4).activation(Activation.RELU).build())
        .layer(new OutputLayer.Builder(new org.nd4j.linalg.lossfunctions.impl.LossMSE(Nd4j.createFromArray(1.0, 2.0)))
            .nIn(4).nOut(2).activation(Activation.IDENTITY).build()).build();
    assertThatThrownBy(() -> LiftedMlp.from(init(weighted)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("per-output weights");
    var l2 = new NeuralNetConfiguration.Builder().dataType(DataType.DOUBLE).l2(1e-4).list()
        .layer(new DenseLayer.Builder().nIn(3).nOut(4).activation(Activation.RELU).build())
        .layer(new OutputLayer.Builder(LossFunction.MSE).nIn(4).nOut(2)
            .activation(Activation.IDENTITY).build()).build();
    assertThatThrownBy(() -> LiftedMlp.from(init(l2)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ProximalOperator");
  }

  /** As {@link #mlp(long, int...)} with a softmax cross-entropy output layer. */
  static MultiLayerNetwork softmaxMlp(long seed, int... widths) {
    var list = new NeuralNetConfiguration.Builder().seed(seed).dataType(DataType.DOUBLE).list();
    int last = widths.length - 2;
    for (int i = 0; i < last; i++) {
      list.layer(new DenseLayer.Builder().nIn(widths[i]).nOut(widths[i + 1])
          .activation(Activation.RELU).build());
    }
    list.layer(new OutputLayer.Builder(LossFunction.MCXENT).nIn(widths[last]).nOut(widths[last + 1])
        .activation(Activation.SOFTMAX).build());
    return init(list.build());
  }

  @Test
  void softmaxCrossEntropyOutputForwardAndExportEqualDl4j() {
    MultiLayerNetwork net = softmaxMlp(8, 5, 7, 4);
    net.setParams(Nd4j.randn(new long[] {1, net.numParams()}).muli(0.5));
    LiftedMlp lifted = LiftedMlp.from(net);
    assertThat(lifted.outputLoss()).isEqualTo(OutputLoss.SOFTMAX_CROSS_ENTROPY);
    assertThat(LiftedMlp.from(mlp(1, 3, 2)).outputLoss()).isEqualTo(OutputLoss.SQUARED);
    INDArray x = Nd4j.randn(new long[] {9, 5});
    double[] expected = net.output(x).reshape(36).toDoubleVector();
    assertThat(lifted.output(x).reshape(36).toDoubleVector()).containsExactly(expected, within(1e-13));
    assertThat(lifted.toNetwork().output(x).reshape(36).toDoubleVector()).containsExactly(expected, within(1e-13));
  }

  private static MultiLayerNetwork init(MultiLayerConfiguration conf) {
    MultiLayerNetwork net = new MultiLayerNetwork(conf);
    net.init();
    return net;
  }
}
