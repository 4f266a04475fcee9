package org.dp4j.clipping;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Random;
import org.deeplearning4j.nn.conf.CNN2DFormat;
import org.deeplearning4j.nn.conf.ConvolutionMode;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.BatchNormalization;
import org.deeplearning4j.nn.conf.layers.CenterLossOutputLayer;
import org.deeplearning4j.nn.conf.layers.Convolution1DLayer;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.Deconvolution2D;
import org.deeplearning4j.nn.conf.layers.DepthwiseConvolution2D;
import org.deeplearning4j.nn.conf.layers.EmbeddingLayer;
import org.deeplearning4j.nn.conf.layers.EmbeddingSequenceLayer;
import org.deeplearning4j.nn.conf.layers.GlobalPoolingLayer;
import org.deeplearning4j.nn.conf.layers.GravesLSTM;
import org.deeplearning4j.nn.conf.layers.PoolingType;
import org.deeplearning4j.nn.conf.layers.RecurrentAttentionLayer;
import org.deeplearning4j.nn.conf.layers.SeparableConvolution2D;
import org.deeplearning4j.nn.conf.layers.LSTM;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.conf.layers.PReLULayer;
import org.deeplearning4j.nn.conf.layers.RnnOutputLayer;
import org.deeplearning4j.nn.conf.layers.SelfAttentionLayer;
import org.deeplearning4j.nn.conf.layers.recurrent.Bidirectional;
import org.deeplearning4j.nn.conf.layers.recurrent.LastTimeStep;
import org.deeplearning4j.nn.conf.layers.recurrent.SimpleRnn;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.nn.weights.WeightInit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.lossfunctions.LossFunctions.LossFunction;

/**
 * The generic exact path against DL4J's own gradient of each example alone (the whole network run on a batch of
 * one, {@link RuleDriver#dl4jPerExample}): every example's full gradient, with and without feature masks, in double
 * to 1e-10 relative and in float to 1e-5; and against the vectorised dense and convolution rules.
 */
class GenericLayerGradientsTest {
  private static final int N = 5;
  private static final int T = 4;

  @BeforeAll
  static void doublePrecision() {
    Nd4j.setDefaultDataTypes(DataType.DOUBLE, DataType.DOUBLE);
  }

  @AfterEach
  void clearRegistry() {
    for (Class<? extends org.deeplearning4j.nn.conf.layers.Layer> c : java.util.List.of(DenseLayer.class,
        OutputLayer.class, ConvolutionLayer.class, LSTM.class, BatchNormalization.class)) {
      LayerRuleRegistry.unregister(c);
    }
  }

  private static NeuralNetConfiguration.ListBuilder base(DataType type) {
    return new NeuralNetConfiguration.Builder().seed(11).dataType(type).updater(new Sgd(0.1))
        .weightInit(WeightInit.XAVIER).list();
  }

  private static MultiLayerNetwork recurrent(org.deeplearning4j.nn.conf.layers.Layer hidden, DataType type) {
    return TinyNetworks.init(base(type).layer(hidden)
        .layer(new RnnOutputLayer.Builder(LossFunction.MSE).nOut(2).activation(Activation.TANH).build())
        .setInputType(InputType.recurrent(3, T)).build());
  }

  /** Examples of lengths T, T-1, ..., at least 1, padded at the end. */
  private static INDArray mask(DataType type) {
    INDArray m = Nd4j.zeros(type, N, T);
    for (int i = 0; i < N; i++) {
      for (int t = 0; t < Math.max(1, T - i); t++) {
        m.putScalar(i, t, 1.0);
      }
    }
    return m;
  }

  private static INDArray uniform(long seed, DataType type, long... shape) {
    Nd4j.getRandom().setSeed(seed);
    return Nd4j.rand(type, shape).subi(0.5).muli(2.0);
  }

  /** Every example's gradient from the rules equals DL4J's batch-of-one gradient to {@code tolerance} relative. */
  private static void assertExact(MultiLayerNetwork net, INDArray x, INDArray y, INDArray mask, double tolerance) {
    INDArray expected = RuleDriver.dl4jPerExample(net, x, y, mask);
    INDArray actual = RuleDriver.perExample(net, x, y, mask);
    double scale = expected.amaxNumber().doubleValue();
    assertThat(scale).isPositive();
    assertThat(actual.sub(expected).amaxNumber().doubleValue() / scale).as("max relative error")
        .isLessThanOrEqualTo(tolerance);
    if (mask != null) {
      // The masks matter: the same batch without them gives other gradients.
      INDArray unmasked = RuleDriver.dl4jPerExample(net, x, y, null);
      assertThat(unmasked.sub(expected).amaxNumber().doubleValue() / scale).isGreaterThan(1e-3);
    }
  }

  private static void assertRecurrentExact(org.deeplearning4j.nn.conf.layers.Layer hidden) {
    assertRecurrentExact(hidden, true);
  }

  /**
   * The generic path (forced through the registry: recurrent layers have vectorised rules, which mask padded steps
   * exactly where DL4J's own backprop of some layers does not) equals DL4J's batch-of-one gradients.
   */
  private static void assertRecurrentExact(org.deeplearning4j.nn.conf.layers.Layer hidden, boolean masked) {
    MultiLayerNetwork net = recurrent(hidden, DataType.DOUBLE);
    INDArray x = uniform(1, DataType.DOUBLE, N, 3, T);
    INDArray y = uniform(2, DataType.DOUBLE, N, 2, T);
    LayerRuleRegistry.register(hidden.getClass(), LayerRuleRegistry.generic());
    try {
      assertExact(net, x, y, null, 1e-10);
      if (masked) {
        assertExact(net, x, y, mask(DataType.DOUBLE), 1e-10);
      }
    } finally {
      LayerRuleRegistry.unregister(hidden.getClass());
    }
  }

  @Test
  void lstmMatchesDl4jWithAndWithoutMask() {
    assertRecurrentExact(new LSTM.Builder().nOut(4).activation(Activation.TANH).build());
  }

  @Test
  void simpleRnnMatchesDl4jWithAndWithoutMask() {
    assertRecurrentExact(new SimpleRnn.Builder().nOut(4).activation(Activation.TANH).build());
  }

  @Test
  void bidirectionalLstmMatchesDl4jWithAndWithoutMask() {
    assertRecurrentExact(new Bidirectional(Bidirectional.Mode.ADD,
        new LSTM.Builder().nOut(4).activation(Activation.TANH).build()));
  }

  @Test
  void selfAttentionMatchesDl4jWithAndWithoutMask() {
    assertRecurrentExact(new SelfAttentionLayer.Builder().nOut(4).nHeads(2).projectInput(true).build());
  }

  @Test
  void convolution1dMatchesDl4jWithAndWithoutMask() {
    assertRecurrentExact(new Convolution1DLayer.Builder().kernelSize(2).nOut(3)
        .convolutionMode(ConvolutionMode.Same).activation(Activation.TANH).build());
  }

  @Test
  void otherRecurrentLayersMatchDl4j() {
    assertRecurrentExact(new GravesLSTM.Builder().nOut(3).activation(Activation.TANH).build());
    assertRecurrentExact(new RecurrentAttentionLayer.Builder().nIn(3).nOut(3).nHeads(1).projectInput(false)
        .activation(Activation.TANH).build());
  }

  @Test
  void convolutionVariantsMatchDl4j() {
    for (org.deeplearning4j.nn.conf.layers.Layer layer : java.util.List.of(
        new Deconvolution2D.Builder(2, 2).nOut(3).stride(2, 2).activation(Activation.TANH).build(),
        new DepthwiseConvolution2D.Builder(2, 2).depthMultiplier(2).activation(Activation.TANH).build(),
        new SeparableConvolution2D.Builder(2, 2).nOut(3).depthMultiplier(2).activation(Activation.TANH).build(),
        new ConvolutionLayer.Builder(2, 2).nOut(3).dataFormat(CNN2DFormat.NHWC).activation(Activation.TANH)
            .build())) {
      MultiLayerNetwork net = TinyNetworks.init(base(DataType.DOUBLE).layer(layer)
          .layer(new GlobalPoolingLayer.Builder(PoolingType.AVG).build())
          .layer(new OutputLayer.Builder(LossFunction.MCXENT).nOut(3).activation(Activation.SOFTMAX).build())
          .setInputType(InputType.convolutional(5, 5, 2)).build());
      assertExact(net, TinyNetworks.features(3, N, 2, 5, 5), TinyNetworks.labels(4, N, 3, true), null, 1e-10);
    }
  }

  @Test
  void embeddingLayerMatchesDl4j() {
    MultiLayerNetwork net = TinyNetworks.init(base(DataType.DOUBLE)
        .layer(new EmbeddingLayer.Builder().nIn(7).nOut(3).build())
        .layer(new OutputLayer.Builder(LossFunction.MCXENT).nOut(3).activation(Activation.SOFTMAX).build())
        .setInputType(InputType.feedForward(7)).build());
    INDArray x = Nd4j.create(new double[][] {{1}, {4}, {1}, {6}, {0}});
    assertExact(net, x, TinyNetworks.labels(4, N, 3, true), null, 1e-10);
  }

  @Test
  void lstmInFloatMatchesDl4j() {
    MultiLayerNetwork net = recurrent(new LSTM.Builder().nOut(4).activation(Activation.TANH).build(),
        DataType.FLOAT);
    INDArray x = uniform(1, DataType.FLOAT, N, 3, T);
    INDArray y = uniform(2, DataType.FLOAT, N, 2, T);
    assertExact(net, x, y, mask(DataType.FLOAT), 1e-5);
  }

  @Test
  void lastTimeStepLstmIntoOutputLayerMatchesDl4jWithMask() {
    MultiLayerNetwork net = TinyNetworks.init(base(DataType.DOUBLE)
        .layer(new LastTimeStep(new LSTM.Builder().nOut(4).activation(Activation.TANH).build()))
        .layer(new OutputLayer.Builder(LossFunction.MCXENT).nOut(3).activation(Activation.SOFTMAX).build())
        .setInputType(InputType.recurrent(3, T)).build());
    INDArray x = uniform(1, DataType.DOUBLE, N, 3, T);
    INDArray y = TinyNetworks.labels(3, N, 3, true);
    assertExact(net, x, y, null, 1e-10);
    // With a feature mask the last step is each example's last unmasked one; the 2-D output has no label mask.
    INDArray expected = RuleDriver.dl4jPerExample(net, x, y, mask(DataType.DOUBLE), null);
    INDArray actual = RuleDriver.perExample(net, x, y, mask(DataType.DOUBLE), null);
    double scale = expected.amaxNumber().doubleValue();
    assertThat(actual.sub(expected).amaxNumber().doubleValue() / scale).isLessThanOrEqualTo(1e-10);
    assertThat(RuleDriver.dl4jPerExample(net, x, y, null).sub(expected).amaxNumber().doubleValue() / scale)
        .isGreaterThan(1e-3);
  }

  @Test
  void embeddingSequenceMatchesDl4j() {
    MultiLayerNetwork net = TinyNetworks.init(base(DataType.DOUBLE)
        .layer(new EmbeddingSequenceLayer.Builder().nIn(6).nOut(3).inputLength(T).build())
        .layer(new RnnOutputLayer.Builder(LossFunction.MSE).nOut(2).activation(Activation.TANH).build())
        .setInputType(InputType.recurrent(6, T)).build());
    Random random = new Random(5);
    INDArray x = Nd4j.zeros(DataType.DOUBLE, N, T);
    for (int i = 0; i < N; i++) {
      for (int t = 0; t < T; t++) {
        x.putScalar(i, t, random.nextInt(6));   // repeated tokens within an example included
      }
    }
    INDArray y = uniform(2, DataType.DOUBLE, N, 2, T);
    assertExact(net, x, y, null, 1e-10);
    assertExact(net, x, y, mask(DataType.DOUBLE), 1e-10);
  }

  @Test
  void preluMatchesDl4j() {
    MultiLayerNetwork net = TinyNetworks.init(base(DataType.DOUBLE)
        .layer(new DenseLayer.Builder().nOut(5).activation(Activation.IDENTITY).build())
        .layer(new PReLULayer.Builder().inputShape(5).build())
        .layer(new OutputLayer.Builder(LossFunction.MCXENT).nOut(3).activation(Activation.SOFTMAX).build())
        .setInputType(InputType.feedForward(6)).build());
    // PReLU's slopes start at 0: make them differ from 0 and 1 so both branches carry gradient.
    net.getLayer(1).getParam("W").assign(uniform(9, DataType.DOUBLE, 1, 5));
    assertExact(net, TinyNetworks.features(1, N, 6), TinyNetworks.labels(2, N, 3, true), null, 1e-10);
  }

  @Test
  void genericDenseAndOutputEqualDl4jAndTheVectorisedRule() {
    MultiLayerNetwork net = TinyNetworks.init(base(DataType.DOUBLE)
        .layer(new DenseLayer.Builder().nOut(5).activation(Activation.TANH).build())
        .layer(new OutputLayer.Builder(LossFunction.MCXENT).nOut(3).activation(Activation.SOFTMAX).build())
        .setInputType(InputType.feedForward(6)).build());
    INDArray x = TinyNetworks.features(1, N, 6);
    INDArray y = TinyNetworks.labels(2, N, 3, true);
    INDArray vectorised = RuleDriver.perExample(net, x, y, null);
    LayerRuleRegistry.register(DenseLayer.class, LayerRuleRegistry.generic());
    LayerRuleRegistry.register(OutputLayer.class, LayerRuleRegistry.generic());
    assertThat(RuleDriver.perExample(net, x, y, null).sub(vectorised).amaxNumber().doubleValue()
        / vectorised.amaxNumber().doubleValue()).isLessThanOrEqualTo(1e-12);
    assertExact(net, x, y, null, 1e-10);
    // The fused dense path would bypass the registered rules.
    assertThat(PerExampleClipper.of(net).isFused()).isFalse();
  }

  @Test
  void genericConvolutionEqualsDl4jAndTheVectorisedRule() {
    MultiLayerNetwork net = TinyNetworks.cnn(new int[] {2, 1}, new int[] {1, 0}, new int[] {1, 1},
        ConvolutionMode.Truncate);
    INDArray x = TinyNetworks.features(3, N, 49);
    INDArray y = TinyNetworks.labels(4, N, 3, true);
    INDArray vectorised = RuleDriver.perExample(net, x, y, null);
    LayerRuleRegistry.register(ConvolutionLayer.class, LayerRuleRegistry.generic());
    assertThat(RuleDriver.perExample(net, x, y, null).sub(vectorised).amaxNumber().doubleValue()
        / vectorised.amaxNumber().doubleValue()).isLessThanOrEqualTo(1e-12);
    assertExact(net, x, y, null, 1e-10);
  }

  @Test
  void recomputingInsteadOfStoringGivesTheSameGradients() {
    MultiLayerNetwork net = recurrent(new LSTM.Builder().nOut(4).activation(Activation.TANH).build(),
        DataType.DOUBLE);
    INDArray x = uniform(1, DataType.DOUBLE, N, 3, T);
    INDArray y = uniform(2, DataType.DOUBLE, N, 2, T);
    INDArray stored = RuleDriver.perExample(net, x, y, mask(DataType.DOUBLE));
    LayerRuleRegistry.register(LSTM.class, layer -> GenericLayerGradients.of(layer, 0));
    INDArray recomputed = RuleDriver.perExample(net, x, y, mask(DataType.DOUBLE));
    assertThat(recomputed.sub(stored).amaxNumber().doubleValue()).isLessThanOrEqualTo(
        1e-14 * stored.amaxNumber().doubleValue());
  }

  @Test
  void clipperOnLstmMatchesClippingOfDl4jBatchOfOneGradients() {
    MultiLayerNetwork net = recurrent(new LSTM.Builder().nOut(4).activation(Activation.TANH).build(),
        DataType.DOUBLE);
    INDArray x = uniform(1, DataType.DOUBLE, 9, 3, T);
    INDArray y = uniform(2, DataType.DOUBLE, 9, 2, T);
    for (ClippingMode mode : ClippingMode.values()) {
      ClippedGradientSum exact = ExactPerExampleGradients.clippedSum(net, x, y, 0.05, mode);
      ClippedGradientSum fast = PerExampleClipper.of(net, mode).clippedSum(x, y, 0.05);
      assertThat(fast.perExampleNorms()).containsExactly(exact.perExampleNorms(),
          org.assertj.core.data.Offset.offset(1e-10 * exact.perExampleNorms()[0]));
      assertThat(exact.clippedCount()).isPositive();
      assertThat(fast.sum().sub(exact.sum()).amaxNumber().doubleValue()
          / exact.sum().amaxNumber().doubleValue()).isLessThanOrEqualTo(1e-10);
    }
  }

  @Test
  void aLayerThatMixesExamplesIsCaughtAtRunTime() {
    MultiLayerNetwork net = TinyNetworks.init(base(DataType.DOUBLE)
        .layer(new DenseLayer.Builder().nOut(4).build())
        .layer(new BatchNormalization.Builder().build())
        .layer(new OutputLayer.Builder(LossFunction.MSE).nOut(2).build())
        .setInputType(InputType.feedForward(6)).build());
    // Forced past the refusal: the batch-versus-alone comparison must still catch the batch statistics.
    LayerRuleRegistry.register(BatchNormalization.class, LayerRuleRegistry.generic());
    assertThatThrownBy(() -> PerExampleClipper.of(net).clippedSum(TinyNetworks.features(1, N, 6),
        TinyNetworks.labels(2, N, 2, false), 1.0)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("depends on the other examples");
  }

  @Test
  void refusesLayersThatMixExamplesAndRandomnessInsideTheLayer() {
    MultiLayerNetwork centre = TinyNetworks.init(base(DataType.DOUBLE)
        .layer(new DenseLayer.Builder().nOut(4).build())
        .layer(new CenterLossOutputLayer.Builder().nOut(2).activation(Activation.SOFTMAX).build())
        .setInputType(InputType.feedForward(6)).build());
    assertThatThrownBy(() -> PerExampleClipper.of(centre)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("layer 1 'layer1' (CenterLossOutputLayer)").hasMessageContaining("use an OutputLayer");
    MultiLayerNetwork dropout = recurrent(new LSTM.Builder().nOut(4).dropOut(0.5).build(), DataType.DOUBLE);
    assertThatThrownBy(() -> PerExampleClipper.of(dropout)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("layer 0 'layer0' (LSTM)").hasMessageContaining("put a DropoutLayer before it");
    MultiLayerNetwork wrapped = recurrent(new Bidirectional(new LSTM.Builder().nOut(4).dropOut(0.5).build()),
        DataType.DOUBLE);
    assertThatThrownBy(() -> PerExampleClipper.of(wrapped)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("(Bidirectional)").hasMessageContaining("dropout on a recurrent layer's input");
  }
}
