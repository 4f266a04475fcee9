package org.dp4j.mbcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.util.Random;
import org.deeplearning4j.nn.conf.ConvolutionMode;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.BatchNormalization;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.Layer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.conf.layers.SubsamplingLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.util.ModelSerializer;
import org.dp4j.accounting.hiddenstate.NoiseTemperatureSchedule;
import org.dp4j.noise.GaussianNoise;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.lossfunctions.LossFunctions.LossFunction;

/** Lifting DL4J CNNs: forward pass and export against DL4J itself, refusals, and DP-MBCD training. */
class LiftedCnnTest {

  @BeforeAll
  static void doublePrecision() {
    Nd4j.setDefaultDataTypes(DataType.DOUBLE, DataType.DOUBLE);
  }

  private static MultiLayerNetwork net(int h, int w, int c, Layer... layers) {
    var list = new NeuralNetConfiguration.Builder().seed(4).dataType(DataType.DOUBLE).list();
    for (Layer l : layers) {
      list.layer(l);
    }
    MultiLayerNetwork net = new MultiLayerNetwork(list.setInputType(InputType.convolutionalFlat(h, w, c))
        .build());
    net.init();
    return net;
  }

  private static ConvolutionLayer conv(int k, int s, int out, ConvolutionMode mode) {
    return new ConvolutionLayer.Builder(k, k).stride(s, s).nOut(out).convolutionMode(mode)
        .activation(Activation.RELU).build();
  }

  private static SubsamplingLayer pool(SubsamplingLayer.PoolingType type, int k, int s,
      ConvolutionMode mode) {
    return new SubsamplingLayer.Builder(type).kernelSize(k, k).stride(s, s).convolutionMode(mode)
        .build();
  }

  private static DenseLayer dense(int out) {
    return new DenseLayer.Builder().nOut(out).activation(Activation.RELU).build();
  }

  private static OutputLayer output(int out) {
    return new OutputLayer.Builder(LossFunction.MSE).nOut(out).activation(Activation.IDENTITY).build();
  }

  /** conv 3×3 (4) – avg pool 2 – dense 16 – output 3 on 8×8 grey images. */
  static MultiLayerNetwork smallCnn() {
    return net(8, 8, 1, conv(3, 1, 4, ConvolutionMode.Truncate),
        pool(SubsamplingLayer.PoolingType.AVG, 2, 2, ConvolutionMode.Truncate), dense(16), output(3));
  }

  @Test
  void forwardPassEqualsDl4jOnTheSameWeights() {
    MultiLayerNetwork[] nets = {
        smallCnn(),
        // two channels in, Same-mode strided conv (asymmetric padding), overlapping Same pooling,
        // conv after pooling, conv straight into dense
        net(9, 7, 2, conv(4, 2, 3, ConvolutionMode.Same),
            new SubsamplingLayer.Builder(SubsamplingLayer.PoolingType.AVG).kernelSize(3, 3).stride(1, 1)
                .convolutionMode(ConvolutionMode.Same).avgPoolIncludePadInDivisor(true).build(),
            conv(2, 1, 2, ConvolutionMode.Truncate), dense(5), output(4))};
    for (MultiLayerNetwork net : nets) {
      // non-zero biases, so the bias layout is exercised too
      net.setParams(Nd4j.randn(new long[] {1, net.numParams()}).muli(0.5));
      LiftedNetwork lifted = LiftedNetwork.from(net);
      assertThat(lifted).isInstanceOf(LiftedCnn.class);
      INDArray x = Nd4j.rand(new long[] {5, net.getLayerWiseConfigurations().getInputPreProcess(0)
          instanceof org.deeplearning4j.nn.conf.preprocessor.FeedForwardToCnnPreProcessor p
          ? p.getInputHeight() * p.getInputWidth() * p.getNumChannels() : 0});
      INDArray expected = net.output(x);
      assertThat(lifted.output(x).reshape(expected.length()).toDoubleVector())
          .containsExactly(expected.reshape(expected.length()).toDoubleVector(), within(1e-12));
    }
    LiftedNetwork small = LiftedNetwork.from(nets[0]);
    assertThat(small.widths()).containsExactly(64, 4 * 6 * 6, 16, 3);
    assertThat(small.blockParameterCount(0)).isEqualTo(4 * 9 + 4);
    assertThat(small.blockParameterCount(1)).isEqualTo(36 * 16 + 16);
  }

  @Test
  void refusesMaxPoolingAndOtherLayersItCannotLift() {
    assertThatThrownBy(() -> LiftedNetwork.from(net(8, 8, 1, conv(3, 1, 4, ConvolutionMode.Truncate),
        pool(SubsamplingLayer.PoolingType.MAX, 2, 2, ConvolutionMode.Truncate), dense(8), output(3))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("layer 1: MAX pooling is refused: max pooling is not linear; use AVG "
            + "pooling or a strided convolution");
    assertThatThrownBy(() -> LiftedNetwork.from(net(8, 8, 1, conv(3, 1, 4, ConvolutionMode.Truncate),
        new BatchNormalization.Builder().build(), dense(8), output(3))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("layer 1: BatchNormalization is not supported");
    assertThatThrownBy(() -> LiftedNetwork.from(net(8, 8, 1,
        new ConvolutionLayer.Builder(3, 3).nOut(2).activation(Activation.TANH).build(), dense(8),
        output(3))))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("layer 0 must use ReLU");
    assertThatThrownBy(() -> LiftedNetwork.from(net(8, 8, 1, conv(3, 1, 4, ConvolutionMode.Truncate),
        pool(SubsamplingLayer.PoolingType.AVG, 2, 2, ConvolutionMode.Truncate), output(3))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("cannot follow a pooling layer");
    assertThatThrownBy(() -> LiftedNetwork.from(net(8, 8, 1, conv(3, 1, 4, ConvolutionMode.Truncate),
        pool(SubsamplingLayer.PoolingType.AVG, 3, 1, ConvolutionMode.Same), dense(8), output(3))))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("avgPoolIncludePadInDivisor");
  }

  /** 8×8 images of a horizontal, vertical or diagonal bar at a random offset, plus noise; one-hot labels. */
  static INDArray[] bars(int n, long seed) {
    Random rnd = new Random(seed);
    double[][] x = new double[n][64];
    double[][] y = new double[n][3];
    for (int i = 0; i < n; i++) {
      int c = i % 3;
      int at = 1 + rnd.nextInt(6);
      for (int k = 0; k < 8; k++) {
        int r = c == 0 ? at : k;
        int col = c == 1 ? at : k;
        x[i][r * 8 + col] = 1.0;
      }
      for (int p = 0; p < 64; p++) {
        x[i][p] += 0.1 * rnd.nextGaussian();
      }
      y[i][c] = 1;
    }
    return new INDArray[] {Nd4j.createFromArray(x), Nd4j.createFromArray(y)};
  }

  @Test
  void dpMbcdTrainsALiftedCnnAndTheExportedNetworkPredictsTheSame() throws Exception {
    INDArray[] train = bars(600, 1);
    INDArray[] test = bars(300, 2);
    MultiLayerNetwork net = smallCnn();
    DpMbcdTrainer t = DpMbcdTrainer.builder(net, train[0], train[1]).batchSize(50).epochs(12)
        .learningRate(0.5).clipNorm(1.0).activationNormBound(1.0).inputNormBound(3.0)
        .noiseSchedule(NoiseTemperatureSchedule.constant(1e-6)).noise(GaussianNoise.insecureFixedSeed(1))
        .partitionSeed(7).build();
    // auxiliaries: 600 examples × 2 × (144 + 16) doubles
    assertThat(t.auxiliaryBytes()).isEqualTo(600L * 2 * (144 + 16) * 8)
        .isEqualTo(DpMbcdTrainer.auxiliaryBytesRequired(net, 600));
    assertThat(t.mechanism().numReleasedBlocks()).isEqualTo(3);
    assertThat(t.mechanism().blockParameterCount(0)).isEqualTo(40);
    // conv block in step coordinates: the dense bound γ(ρ_0² + 1) (see ConvolutionBlock), so safe L_F = 1 at μ = 0
    assertThat(t.mechanism().smoothnessBound(0)).isEqualTo(10.0);
    double lossBefore = t.trainingLoss();
    t.train();
    assertThat(t.trainingLoss()).isLessThan(0.5 * lossBefore);
    INDArray testX = test[0].dup();
    RowNormClip.clipInPlace(testX, 3.0);
    MultiLayerNetwork released = t.releasedNetwork();
    INDArray lifted = t.model().output(testX);
    assertThat(released.output(testX).reshape(900).toDoubleVector()).as("written-back blocks")
        .containsExactly(lifted.reshape(900).toDoubleVector(), within(1e-12));
    assertThat(DpMbcdTrainerTest.accuracy(released.output(testX), test[1])).isGreaterThan(0.9);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    ModelSerializer.writeModel(released, bytes, false);
    MultiLayerNetwork restored = ModelSerializer.restoreMultiLayerNetwork(
        new ByteArrayInputStream(bytes.toByteArray()));
    assertThat(restored.output(testX).reshape(900).toDoubleVector())
        .containsExactly(lifted.reshape(900).toDoubleVector(), within(1e-12));
  }

  @Test
  void theProximalPointVariantTrainsALiftedCnnInPaperMode() {
    INDArray[] train = bars(600, 1);
    INDArray[] test = bars(300, 2);
    DpMbcdTrainer t = DpMbcdTrainer.builder(smallCnn(), train[0], train[1]).batchSize(50).epochs(4)
        .learningRate(10).clipNorm(1.0).activationNormBound(1.0).inputNormBound(3.0)
        .noiseSchedule(NoiseTemperatureSchedule.constant(1e-8)).noise(GaussianNoise.insecureFixedSeed(1))
        .partitionSeed(7).blockStepRule(BlockStepRule.PROXIMAL_POINT)
        .accounting(DpMbcdAccounting.builder().mode(org.dp4j.accounting.hiddenstate.DpMbcdMode.PAPER).build())
        .build();
    double lossBefore = t.trainingLoss();
    t.train();
    assertThat(t.trainingLoss()).isLessThan(0.5 * lossBefore);
    INDArray testX = test[0].dup();
    RowNormClip.clipInPlace(testX, 3.0);
    assertThat(DpMbcdTrainerTest.accuracy(t.releasedNetwork().output(testX), test[1])).isGreaterThan(0.9);
  }
}
