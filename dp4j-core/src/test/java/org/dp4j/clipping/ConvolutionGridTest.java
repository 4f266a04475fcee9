package org.dp4j.clipping;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.CNN2DFormat;
import org.deeplearning4j.nn.conf.ConvolutionMode;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.conf.layers.PoolingType;
import org.deeplearning4j.nn.conf.layers.SubsamplingLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.nn.params.ConvolutionParamInitializer;
import org.deeplearning4j.nn.weights.WeightInit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.lossfunctions.LossFunctions.LossFunction;

/**
 * The im2col/GEMM convolution rule ({@link ConvolutionGradients} on {@link UnfoldedConvolution}) and the pooling
 * rule ({@link PoolingGradients}) against DL4J's own gradients one example at a time
 * ({@link ExactPerExampleGradients}: DL4J's layers, an independent code path) over a grid of kernels, strides,
 * paddings, dilations, convolution modes, data formats, bias on/off and pooling types (double, 1e-10 relative), with
 * ties in max pooling, in float32, across passes of different batch sizes on the same reused buffers, and against
 * the rule dp4j used before ({@link PreviousConvolutionGradients}).
 */
class ConvolutionGridTest {
  private static final double TOLERANCE = 1e-10;

  @BeforeAll
  static void doublePrecision() {
    Nd4j.setDefaultDataTypes(DataType.DOUBLE, DataType.DOUBLE);
  }

  /** One grid point: the second convolution's geometry, plus format, bias and the pooling type before it. */
  record Geometry(int[] kernel, int[] stride, int[] padding, int[] dilation, ConvolutionMode mode) {
    @Override
    public String toString() {
      return "k" + Arrays.toString(kernel) + " s" + Arrays.toString(stride) + " p" + Arrays.toString(padding)
          + " d" + Arrays.toString(dilation) + " " + mode;
    }
  }

  private static Geometry g(int[] kernel, int[] stride, int[] padding, int[] dilation, ConvolutionMode mode) {
    return new Geometry(kernel, stride, padding, dilation, mode);
  }

  /** The second convolution sees an 8×7 input (after a 2×2 stride-1 pooling of the first conv's 9×8 output). */
  static Stream<Arguments> grid() {
    int[] one = {1, 1};
    List<Geometry> geometries = List.of(
        g(new int[] {3, 3}, one, new int[] {0, 0}, one, ConvolutionMode.Truncate),
        g(new int[] {3, 2}, new int[] {2, 1}, new int[] {1, 0}, one, ConvolutionMode.Truncate),
        g(new int[] {2, 3}, new int[] {2, 2}, new int[] {0, 1}, new int[] {2, 1}, ConvolutionMode.Truncate),
        g(new int[] {2, 2}, one, new int[] {1, 1}, new int[] {1, 2}, ConvolutionMode.Truncate),
        g(new int[] {3, 3}, new int[] {2, 2}, new int[] {0, 0}, one, ConvolutionMode.Same),
        g(new int[] {2, 2}, new int[] {1, 2}, new int[] {0, 0}, new int[] {2, 2}, ConvolutionMode.Same),
        g(new int[] {4, 3}, new int[] {3, 2}, new int[] {0, 0}, one, ConvolutionMode.Same),
        // Strict: (8 + 2 − 3) / 1 and (7 + 2 − 3) / 2 are exact.
        g(new int[] {3, 3}, new int[] {1, 2}, new int[] {1, 1}, one, ConvolutionMode.Strict),
        g(new int[] {2, 2}, one, new int[] {0, 0}, new int[] {2, 1}, ConvolutionMode.Strict),
        g(one, one, new int[] {0, 0}, one, ConvolutionMode.Truncate));
    PoolingType[] pooling = {PoolingType.MAX, PoolingType.AVG, PoolingType.PNORM};
    List<Arguments> cases = new ArrayList<>();
    int i = 0;
    for (Geometry geometry : geometries) {
      for (CNN2DFormat format : CNN2DFormat.values()) {
        cases.add(Arguments.of(geometry, format, i % 2 == 0, pooling[i % 3]));
        i++;
      }
    }
    return cases.stream();
  }

  /**
   * conv 2×2×3 (format, bias as given, tanh) on a 10×9×2 input – pooling 2×2 stride 1 – conv (the grid's geometry,
   * 4 channels, ELU) – dense output (softmax, cross-entropy) after DL4J's CnnToFeedForward preprocessor.
   */
  static MultiLayerNetwork network(Geometry geometry, CNN2DFormat format, boolean bias, PoolingType pooling,
      DataType type) {
    return TinyNetworks.init(new NeuralNetConfiguration.Builder().seed(7).dataType(type).updater(new Sgd(0.1))
        .weightInit(WeightInit.XAVIER).list()
        .layer(new ConvolutionLayer.Builder(2, 2).nOut(3).dataFormat(format).hasBias(bias)
            .activation(Activation.TANH).build())
        .layer(new SubsamplingLayer.Builder(pooling).kernelSize(2, 2).stride(1, 1).pnorm(2).dataFormat(format)
            .build())
        .layer(new ConvolutionLayer.Builder(geometry.kernel()).stride(geometry.stride()).padding(geometry.padding())
            .dilation(geometry.dilation()).convolutionMode(geometry.mode()).nOut(4).dataFormat(format)
            .hasBias(!bias).activation(Activation.ELU).build())
        .layer(new OutputLayer.Builder(LossFunction.MCXENT).nOut(3).activation(Activation.SOFTMAX).build())
        .setInputType(InputType.convolutional(10, 9, 2, format)).build());
  }

  private static INDArray input(long seed, int n, CNN2DFormat format) {
    return format == CNN2DFormat.NCHW ? TinyNetworks.features(seed, n, 2, 10, 9)
        : TinyNetworks.features(seed, n, 10, 9, 2);
  }

  @ParameterizedTest(name = "{0} {1} bias={2} {3}")
  @MethodSource("grid")
  void matchesDl4jOneExampleAtATime(Geometry geometry, CNN2DFormat format, boolean bias, PoolingType pooling) {
    MultiLayerNetwork net = network(geometry, format, bias, pooling, DataType.DOUBLE);
    INDArray x = input(31, 6, format);
    INDArray y = TinyNetworks.labels(32, 6, 3, true);
    for (ClippingMode mode : ClippingMode.values()) {
      double clip = medianNorm(net, x, y);
      assertSameSum(PerExampleClipper.of(net, mode).clippedSum(x, y, clip),
          ExactPerExampleGradients.clippedSum(net, x, y, clip, mode), TOLERANCE);
    }
  }

  @Test
  void tiesInMaxPoolingGoWhereDl4jSendsThem() {
    // Integer weights (identity activation) on inputs in {0, 1, 2}: the first convolution's outputs are small
    // integers, so most 2×2 pooling windows hold ties, and which input gets the error changes the weight gradient.
    for (CNN2DFormat format : CNN2DFormat.values()) {
      MultiLayerNetwork net = TinyNetworks.init(TinyNetworks.base(new Sgd(0.1))
          .layer(new ConvolutionLayer.Builder(2, 2).nOut(2).dataFormat(format).activation(Activation.IDENTITY)
              .build())
          .layer(new SubsamplingLayer.Builder(PoolingType.MAX).kernelSize(2, 2).stride(1, 1).dataFormat(format)
              .build())
          .layer(new ConvolutionLayer.Builder(2, 2).nOut(2).stride(2, 2).dataFormat(format)
              .activation(Activation.TANH).build())
          .layer(new OutputLayer.Builder(LossFunction.MCXENT).nOut(3).activation(Activation.SOFTMAX).build())
          .setInputType(InputType.convolutional(7, 7, 1, format)).build());
      INDArray w = net.getLayer(0).getParam(ConvolutionParamInitializer.WEIGHT_KEY);
      w.assign(Nd4j.createFromArray(new double[] {1, 0, 0, 1, 0, 1, 1, -1}).reshape(w.shape()));
      net.getLayer(0).getParam(ConvolutionParamInitializer.BIAS_KEY).assign(0);
      Nd4j.getRandom().setSeed(41);
      INDArray x = Nd4j.rand(DataType.DOUBLE, 8, 1, 7, 7).muli(3).castTo(DataType.INT32).castTo(DataType.DOUBLE);
      if (format == CNN2DFormat.NHWC) {
        x = x.permute(0, 2, 3, 1).dup('c');
      }
      INDArray y = TinyNetworks.labels(42, 8, 3, true);
      INDArray pooledInput = net.feedForwardToLayer(0, x, true).get(1);
      assertThat(countTiedWindows(pooledInput, format)).as("windows with a tied maximum").isGreaterThan(20);
      double clip = medianNorm(net, x, y);
      assertSameSum(PerExampleClipper.of(net).clippedSum(x, y, clip),
          ExactPerExampleGradients.clippedSum(net, x, y, clip, ClippingMode.FLAT), TOLERANCE);
    }
  }

  private static int countTiedWindows(INDArray activations, CNN2DFormat format) {
    INDArray a = format == CNN2DFormat.NCHW ? activations : activations.permute(0, 3, 1, 2);
    int ties = 0;
    for (int i = 0; i < a.size(0); i++) {
      for (int c = 0; c < a.size(1); c++) {
        for (int h = 0; h + 1 < a.size(2); h++) {
          for (int w = 0; w + 1 < a.size(3); w++) {
            double[] v = {a.getDouble(i, c, h, w), a.getDouble(i, c, h, w + 1), a.getDouble(i, c, h + 1, w),
                a.getDouble(i, c, h + 1, w + 1)};
            double max = Arrays.stream(v).max().orElseThrow();
            ties += Arrays.stream(v).filter(e -> e == max).count() > 1 ? 1 : 0;
          }
        }
      }
    }
    return ties;
  }

  /**
   * The whole grid in float32 (Java im2col, the bias as a column of ones in the patches) with non-zero biases,
   * against DL4J's double-precision gradients of the same parameters; every clipping mode.
   */
  @ParameterizedTest(name = "{0} {1} bias={2} {3}")
  @MethodSource("grid")
  void float32WithBiasesMatchesDl4jInDouble(Geometry geometry, CNN2DFormat format, boolean bias,
      PoolingType pooling) {
    MultiLayerNetwork doubles = network(geometry, format, bias, pooling, DataType.DOUBLE);
    Nd4j.getRandom().setSeed(53);
    for (org.deeplearning4j.nn.api.Layer layer : doubles.getLayers()) {
      INDArray b = layer.paramTable().get("b");
      if (b != null) {
        b.assign(Nd4j.rand(DataType.DOUBLE, b.shape()).subi(0.5));
      }
    }
    MultiLayerNetwork floats = network(geometry, format, bias, pooling, DataType.FLOAT);
    floats.params().assign(doubles.params());
    INDArray x = input(54, 6, format);
    INDArray y = TinyNetworks.labels(55, 6, 3, true);
    for (ClippingMode mode : ClippingMode.values()) {
      double clip = medianNorm(doubles, x, y);
      assertSameSum(PerExampleClipper.of(floats, mode).clippedSum(x.castTo(DataType.FLOAT),
          y.castTo(DataType.FLOAT), clip), ExactPerExampleGradients.clippedSum(doubles, x, y, clip, mode), 1e-5);
    }
  }

  @Test
  void float32MatchesTheDoubleReference() {
    // Same mode with stride 2, as in the tanh CNN of `dp4j train --model cnn`.
    Geometry papernot = g(new int[] {4, 4}, new int[] {2, 2}, new int[] {0, 0}, new int[] {1, 1},
        ConvolutionMode.Same);
    MultiLayerNetwork doubles = network(papernot, CNN2DFormat.NCHW, true, PoolingType.MAX, DataType.DOUBLE);
    MultiLayerNetwork floats = network(papernot, CNN2DFormat.NCHW, true, PoolingType.MAX, DataType.FLOAT);
    floats.params().assign(doubles.params());
    INDArray x = input(51, 16, CNN2DFormat.NCHW);
    INDArray y = TinyNetworks.labels(52, 16, 3, true);
    double clip = medianNorm(doubles, x, y);
    ClippedGradientSum single = PerExampleClipper.of(floats).clippedSum(x.castTo(DataType.FLOAT),
        y.castTo(DataType.FLOAT), clip);
    assertThat(single.sum().dataType()).isEqualTo(DataType.FLOAT);
    // float32 has 24 bits (6e-8 relative); sums of a few hundred products: 1e-5 relative to the largest entry.
    assertSameSum(single, ExactPerExampleGradients.clippedSum(doubles, x, y, clip, ClippingMode.FLAT), 1e-5);
  }

  @Test
  void reusedBuffersGiveTheSameSumsAcrossBatchSizes() {
    Geometry padded = g(new int[] {3, 3}, new int[] {2, 1}, new int[] {1, 1}, new int[] {1, 1},
        ConvolutionMode.Truncate);
    for (CNN2DFormat format : CNN2DFormat.values()) {
      MultiLayerNetwork net = network(padded, format, true, PoolingType.MAX, DataType.DOUBLE);
      PerExampleClipper reused = PerExampleClipper.of(net);
      for (int n : new int[] {5, 2, 7, 5}) {
        INDArray x = input(60 + n, n, format);
        INDArray y = TinyNetworks.labels(70 + n, n, 3, true);
        ClippedGradientSum again = reused.clippedSum(x, y, 0.5);
        assertSameSum(again, ExactPerExampleGradients.clippedSum(net, x, y, 0.5, ClippingMode.FLAT), TOLERANCE);
      }
    }
  }

  @ParameterizedTest(name = "{0} {1} bias={2} {3}")
  @MethodSource("grid")
  void equalsThePreviousRuleLayerByLayer(Geometry geometry, CNN2DFormat format, boolean bias, PoolingType pooling) {
    if (format == CNN2DFormat.NHWC) {
      return;    // the previous rule refused NHWC
    }
    MultiLayerNetwork net = network(geometry, format, bias, pooling, DataType.DOUBLE);
    net.initGradientsView();    // DL4J's backpropGradient (the previous rule's input error) writes into it
    Layer conv = net.getLayer(2);
    INDArray input = net.feedForwardToLayer(1, input(81, 5, format), true).get(2);
    PerExampleLayer now = new ConvolutionGradients(conv, ConvolutionGradients.CHUNK_ELEMENTS,
        ConvolutionNorms.BY_COST);
    PerExampleLayer before = new PreviousConvolutionGradients(conv, ConvolutionGradients.CHUNK_ELEMENTS,
        ConvolutionNorms.BY_COST);
    INDArray outNow = now.forward(input);
    INDArray outBefore = before.forward(input);
    assertClose(outNow, outBefore);
    INDArray error = TinyNetworks.features(82, outNow.shape());
    assertClose(now.backward(error.dup(), true), before.backward(error.dup(), true));
    assertClose(now.squaredNorms(), before.squaredNorms());
    INDArray scale = TinyNetworks.features(83, 5, 1);
    Map<String, INDArray> sumNow = scaledSum(now, conv, scale);
    Map<String, INDArray> sumBefore = scaledSum(before, conv, scale);
    assertThat(sumNow.keySet()).isEqualTo(sumBefore.keySet());
    sumNow.forEach((key, value) -> assertClose(value, sumBefore.get(key)));
  }

  private static Map<String, INDArray> scaledSum(PerExampleLayer rule, Layer layer, INDArray scale) {
    Map<String, INDArray> views = new HashMap<>();
    layer.paramTable().forEach((key, value) -> views.put(key, value.ulike()));
    rule.writeScaledSum(scale, views);
    return views;
  }

  private static void assertClose(INDArray actual, INDArray expected) {
    assertThat(actual.shape()).isEqualTo(expected.shape());
    double scale = Math.max(expected.amaxNumber().doubleValue(), 1e-300);
    assertThat(actual.sub(expected).amaxNumber().doubleValue() / scale).isLessThanOrEqualTo(1e-12);
  }

  /** Clip norm halfway between two middle exact norms: about half of the examples are clipped. */
  private static double medianNorm(MultiLayerNetwork net, INDArray x, INDArray y) {
    double[] norms = ExactPerExampleGradients.clippedSum(net, x, y, 1.0, ClippingMode.FLAT).perExampleNorms();
    Arrays.sort(norms);
    return (norms[norms.length / 2 - 1] + norms[norms.length / 2]) / 2;
  }

  private static void assertSameSum(ClippedGradientSum actual, ClippedGradientSum expected, double tolerance) {
    INDArray a = actual.sum().castTo(DataType.DOUBLE);
    INDArray e = expected.sum().castTo(DataType.DOUBLE);
    assertThat(a.sub(e).amaxNumber().doubleValue() / e.amaxNumber().doubleValue()).as("sum")
        .isLessThanOrEqualTo(tolerance);
    double[] an = actual.perExampleNorms();
    double[] en = expected.perExampleNorms();
    assertThat(an).hasSameSizeAs(en);
    for (int i = 0; i < en.length; i++) {
      assertThat(Math.abs(an[i] - en[i])).as("norm of example %s", i).isLessThanOrEqualTo(tolerance * en[i]);
    }
    assertThat(actual.clippedCount()).isEqualTo(expected.clippedCount());
  }
}
