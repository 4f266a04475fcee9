package org.dp4j.clipping;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.activations.IActivation;
import org.nd4j.linalg.activations.impl.ActivationReLU;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.BooleanIndexing;
import org.nd4j.linalg.indexing.conditions.Conditions;
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.lossfunctions.LossFunctions.LossFunction;

/**
 * The convolution → max-pooling fusion ({@link ConvolutionPoolingFusion}, {@link ActivatedMaxPooling}): every
 * example's gradient equals the one of the unfused rules (DL4J's order: activation, then pooling) and DL4J's own
 * batch-of-one gradient within rounding, over pooling geometries that take the fast path and ones that do not,
 * both data formats, ReLU and identity, with most pooling windows holding tied maxima. Pooling only selects
 * values, so the one difference from the unfused rules is the order in which the per-example weight gradients sum
 * over output positions (the window order of {@link PoolingWindows}): float32 rounding, 1e-6 of the largest entry
 * here, where an error sent to the wrong member of a tied window would move an entry by a whole error·input
 * product (checked: sending ties to the last member, or passing the error of a zero maximum, fails these tests).
 */
class ConvolutionPoolingFusionTest {
  /** float32 against DL4J's own (differently ordered) sums: relative to the largest gradient entry. */
  private static final double FLOAT_TOLERANCE = 2e-5;
  /** float32 against the unfused rules: the same products summed in another order. */
  private static final double REORDERED_SUMS = 1e-6;
  private static final double DOUBLE_TOLERANCE = 1e-10;

  record Pool(int[] kernel, int[] stride, int[] padding, ConvolutionMode mode, int height, int width,
      boolean fast) {
    @Override
    public String toString() {
      return "pool " + kernel[0] + "x" + kernel[1] + "/" + stride[0] + "x" + stride[1] + " pad " + padding[0] + ","
          + padding[1] + " " + mode + " on " + height + "x" + width + (fast ? " (fast)" : " (DL4J order)");
    }
  }

  private static Pool pool(int kh, int kw, int sh, int sw, int ph, ConvolutionMode mode, int h, int w,
      boolean fast) {
    return new Pool(new int[] {kh, kw}, new int[] {sh, sw}, new int[] {ph, ph}, mode, h, w, fast);
  }

  /** The first pooling layer's geometry and input (the first convolution is 3×3, so the input is 2 larger). */
  static Stream<Arguments> geometries() {
    List<Pool> pools = List.of(
        pool(2, 2, 2, 2, 0, ConvolutionMode.Truncate, 8, 8, true),       // the MNIST CNNs' pooling
        pool(2, 2, 2, 2, 0, ConvolutionMode.Truncate, 9, 7, true),       // a row and a column in no window
        pool(3, 3, 3, 3, 0, ConvolutionMode.Truncate, 9, 11, true),      // 3×3 windows, two columns in none
        pool(2, 2, 3, 3, 0, ConvolutionMode.Truncate, 9, 8, false),      // gaps between windows
        pool(3, 2, 3, 2, 0, ConvolutionMode.Truncate, 9, 8, true),       // non-square
        pool(2, 2, 2, 2, 0, ConvolutionMode.Same, 8, 6, true),           // Same mode that needs no padding
        pool(2, 2, 2, 2, 0, ConvolutionMode.Same, 7, 7, false),          // Same mode with bottom/right padding
        pool(3, 3, 2, 2, 0, ConvolutionMode.Truncate, 9, 9, false),      // overlapping windows
        pool(2, 2, 2, 2, 1, ConvolutionMode.Truncate, 8, 8, false));     // explicit padding
    List<Arguments> cases = new ArrayList<>();
    int i = 0;
    for (Pool p : pools) {
      for (CNN2DFormat format : CNN2DFormat.values()) {
        cases.add(Arguments.of(p, format, i++ % 3 == 2 ? Activation.IDENTITY : Activation.RELU));
      }
    }
    return cases.stream();
  }

  /**
   * conv 3×3×4 (activation, integer weights, zero bias) – max pool (the case's geometry) – conv 2×2×3 (ReLU) – max
   * pool 2×2/2 – dense softmax output. The first convolution's outputs are small integers on integer inputs, so
   * most pooling windows hold ties, many of them at 0.
   */
  static MultiLayerNetwork network(Pool p, CNN2DFormat format, Activation activation, DataType type) {
    MultiLayerNetwork net = TinyNetworks.init(new NeuralNetConfiguration.Builder().seed(11).dataType(type)
        .updater(new Sgd(0.1)).weightInit(WeightInit.XAVIER).list()
        .layer(new ConvolutionLayer.Builder(3, 3).nOut(4).dataFormat(format).activation(activation).build())
        .layer(new SubsamplingLayer.Builder(PoolingType.MAX).kernelSize(p.kernel()).stride(p.stride())
            .padding(p.padding()).convolutionMode(p.mode()).dataFormat(format).build())
        .layer(new ConvolutionLayer.Builder(2, 2).nOut(3).dataFormat(format).activation(Activation.RELU).build())
        .layer(new SubsamplingLayer.Builder(PoolingType.MAX).kernelSize(2, 2).stride(2, 2).dataFormat(format)
            .convolutionMode(ConvolutionMode.Truncate).build())
        .layer(new OutputLayer.Builder(LossFunction.MCXENT).nOut(3).activation(Activation.SOFTMAX).build())
        .setInputType(InputType.convolutional(p.height() + 2, p.width() + 2, 2, format)).build());
    INDArray w = net.getLayer(0).getParam(ConvolutionParamInitializer.WEIGHT_KEY);
    Nd4j.getRandom().setSeed(12);
    w.assign(Nd4j.rand(DataType.DOUBLE, w.shape()).muli(3).castTo(DataType.INT32).subi(1).castTo(type));
    net.getLayer(0).getParam(ConvolutionParamInitializer.BIAS_KEY).assign(0);
    return net;
  }

  /** Integers in {0, 1, 2}, [n, 2, H, W] or [n, H, W, 2]. */
  static INDArray integerImages(long seed, int n, Pool p, CNN2DFormat format, DataType type) {
    Nd4j.getRandom().setSeed(seed);
    INDArray x = Nd4j.rand(DataType.DOUBLE, n, 2, p.height() + 2, p.width() + 2).muli(3).castTo(DataType.INT32)
        .castTo(type);
    return format == CNN2DFormat.NHWC ? x.permute(0, 2, 3, 1).dup('c') : x;
  }

  @ParameterizedTest(name = "{0} {1} {2}")
  @MethodSource("geometries")
  void float32EqualsTheUnfusedRules(Pool p, CNN2DFormat format, Activation activation) {
    MultiLayerNetwork net = network(p, format, activation, DataType.FLOAT);
    INDArray x = integerImages(21, 6, p, format, DataType.FLOAT);
    INDArray y = TinyNetworks.labels(22, 6, 3, true).castTo(DataType.FLOAT);
    List<PerExampleLayer> fused = fusedRules(net);
    assertThat(fused.get(1)).isInstanceOf(ActivatedMaxPooling.class);
    assertThat(fused.get(3)).isInstanceOf(ActivatedMaxPooling.class);
    INDArray withFusion = RuleDriver.perExample(net, x, y, null, null, fused);
    assertThat(((ActivatedMaxPooling) fused.get(1)).lastPassWasFast()).as("fast path").isEqualTo(p.fast());
    assertThat(((ActivatedMaxPooling) fused.get(3)).lastPassWasFast()).isTrue();
    INDArray without = RuleDriver.perExample(net, x, y, null, null, unfused(net, fused));
    assertThat(tiedWindows(net, x, format)).as("first pooling windows with a tied maximum").isGreaterThan(30);
    assertClose(withFusion, without, REORDERED_SUMS);
  }

  @ParameterizedTest(name = "{0} {1} {2}")
  @MethodSource("geometries")
  void matchesDl4jOneExampleAtATime(Pool p, CNN2DFormat format, Activation activation) {
    for (DataType type : new DataType[] {DataType.FLOAT, DataType.DOUBLE}) {
      MultiLayerNetwork net = network(p, format, activation, type);
      INDArray x = integerImages(31, 5, p, format, type);
      INDArray y = TinyNetworks.labels(32, 5, 3, true).castTo(type);
      INDArray rules = RuleDriver.perExample(net, x, y, null);
      INDArray dl4j = RuleDriver.dl4jPerExample(net, x, y, null);
      assertClose(rules, dl4j, type == DataType.FLOAT ? FLOAT_TOLERANCE : DOUBLE_TOLERANCE);
    }
  }

  /**
   * More examples than one chunk of the forward im2col + GEMM and of the input error's GEMM + fold (16 examples,
   * {@code UnfoldedConvolution}): 37 = 16 + 16 + 5, against DL4J's batch-of-one gradients, with non-zero biases
   * (float32 carries them as a column of ones in the patches).
   */
  @Test
  void severalChunksMatchDl4j() {
    Pool p = pool(2, 2, 2, 2, 0, ConvolutionMode.Truncate, 8, 8, true);
    for (CNN2DFormat format : CNN2DFormat.values()) {
      MultiLayerNetwork net = network(p, format, Activation.RELU, DataType.FLOAT);
      randomBiases(net, 70);
      INDArray x = integerImages(71, 37, p, format, DataType.FLOAT);
      INDArray y = TinyNetworks.labels(72, 37, 3, true).castTo(DataType.FLOAT);
      assertClose(RuleDriver.perExample(net, x, y, null), RuleDriver.dl4jPerExample(net, x, y, null),
          FLOAT_TOLERANCE);
    }
    // Not fused, padded (Same mode) and strided, both precisions: the forward im2col + GEMM chunks too.
    for (DataType type : new DataType[] {DataType.FLOAT, DataType.DOUBLE}) {
      MultiLayerNetwork net = TinyNetworks.init(new NeuralNetConfiguration.Builder().seed(5).dataType(type)
          .updater(new Sgd(0.1)).weightInit(WeightInit.XAVIER).list()
          .layer(new ConvolutionLayer.Builder(3, 3).stride(2, 2).convolutionMode(ConvolutionMode.Same).nOut(3)
              .activation(Activation.TANH).build())
          .layer(new ConvolutionLayer.Builder(2, 2).nOut(2).activation(Activation.SIGMOID).build())
          .layer(new OutputLayer.Builder(LossFunction.MCXENT).nOut(3).activation(Activation.SOFTMAX).build())
          .setInputType(InputType.convolutional(9, 8, 2)).build());
      randomBiases(net, 72);
      Nd4j.getRandom().setSeed(73);
      INDArray x = Nd4j.rand(type, 37, 2, 9, 8);
      INDArray y = TinyNetworks.labels(74, 37, 3, true).castTo(type);
      assertClose(RuleDriver.perExample(net, x, y, null), RuleDriver.dl4jPerExample(net, x, y, null),
          type == DataType.FLOAT ? FLOAT_TOLERANCE : DOUBLE_TOLERANCE);
    }
  }

  /**
   * Convolution biases uniform in [−0.5, 0.5) (DL4J initialises them to zero, which would hide a bias that is
   * dropped from the forward pass).
   */
  private static void randomBiases(MultiLayerNetwork net, long seed) {
    Nd4j.getRandom().setSeed(seed);
    for (org.deeplearning4j.nn.api.Layer layer : net.getLayers()) {
      if (layer.conf().getLayer() instanceof ConvolutionLayer) {
        INDArray b = layer.getParam(ConvolutionParamInitializer.BIAS_KEY);
        b.assign(Nd4j.rand(DataType.DOUBLE, b.shape()).subi(0.5).castTo(b.dataType()));
      }
    }
  }

  @Test
  void reusedBuffersAcrossBatchSizes() {
    Pool p = pool(2, 2, 2, 2, 0, ConvolutionMode.Truncate, 9, 7, true);
    for (CNN2DFormat format : CNN2DFormat.values()) {
      MultiLayerNetwork net = network(p, format, Activation.RELU, DataType.FLOAT);
      List<PerExampleLayer> fused = fusedRules(net);
      List<PerExampleLayer> plain = unfused(net, fused);
      for (int n : new int[] {5, 2, 7, 5}) {
        INDArray x = integerImages(40 + n, n, p, format, DataType.FLOAT);
        INDArray y = TinyNetworks.labels(50 + n, n, 3, true).castTo(DataType.FLOAT);
        INDArray a = RuleDriver.perExample(net, x, y, null, null, fused);
        INDArray b = RuleDriver.perExample(net, x, y, null, null, plain);
        assertClose(a, b, REORDERED_SUMS);
      }
    }
  }

  @Test
  void nonFiniteValuesTakeDl4jsOrder() {
    Pool p = pool(2, 2, 2, 2, 0, ConvolutionMode.Truncate, 8, 8, true);
    MultiLayerNetwork net = network(p, CNN2DFormat.NCHW, Activation.RELU, DataType.FLOAT);
    INDArray x = integerImages(61, 4, p, CNN2DFormat.NCHW, DataType.FLOAT);
    x.putScalar(new long[] {1, 0, 3, 4}, Float.POSITIVE_INFINITY);
    INDArray y = TinyNetworks.labels(62, 4, 3, true).castTo(DataType.FLOAT);
    List<PerExampleLayer> fused = fusedRules(net);
    INDArray a = RuleDriver.perExample(net, x, y, null, null, fused);
    assertThat(((ActivatedMaxPooling) fused.get(1)).lastPassWasFast()).isFalse();
    INDArray b = RuleDriver.perExample(net, x, y, null, null, unfused(net, fused));
    // The infinite pixel makes example 1's gradient NaN in places (∞ − ∞, ∞ · 0), and a unit scale of another
    // example multiplies it by 0 (NaN), so the NaN entries are the same in every row.
    assertThat(a.isNaN().castTo(DataType.INT32).sumNumber().intValue()).as("NaN gradient entries")
        .isGreaterThan(0);
    // Same values, NaN where NaN (NaN ≠ NaN, so compare the NaN masks and the rest separately).
    assertThat(a.isNaN().neq(b.isNaN()).castTo(DataType.INT32).sumNumber().intValue()).isZero();
    INDArray finiteA = a.dup();
    INDArray finiteB = b.dup();
    BooleanIndexing.replaceWhere(finiteA, 0.0, Conditions.isNan());
    BooleanIndexing.replaceWhere(finiteB, 0.0, Conditions.isNan());
    assertThat(finiteA.neq(0).castTo(DataType.INT32).sumNumber().intValue()).as("finite entries").isGreaterThan(0);
    assertClose(finiteA, finiteB, REORDERED_SUMS);
  }

  /**
   * −0 and +0 compare equal as floats, so DL4J's pooling backward (the first member strictly above a running
   * maximum) sends the error of a window {−0, +0, …} with maximum 0 to the −0: the fast path, which compares the
   * bits of the values, must treat them as one value. Identity activation (ReLU would zero these errors anyway);
   * the expected positions are those of DL4J's own pooling ops ({@link PoolingGradients}) and, by hand, the first
   * zero of each window.
   */
  @Test
  void signedZerosAreOneValue() {
    ConvolutionLayer conv = new ConvolutionLayer.Builder(1, 1).nIn(1).nOut(2).activation(Activation.IDENTITY)
        .dataFormat(CNN2DFormat.NHWC).build();
    SubsamplingLayer poolConf = new SubsamplingLayer.Builder(PoolingType.MAX).kernelSize(2, 2).stride(2, 2)
        .dataFormat(CNN2DFormat.NHWC).build();
    // One 2×2 window per example and channel, members in row-major order (for one window the window order is the
    // natural one); channel 1 holds the same windows in reverse example order.
    float[][] windows = {{-0f, 0f, -1f, -2f}, {-3f, -0f, 0f, -1f}, {0f, -0f, -5f, -0f}, {-1f, -0f, -0f, 0f}};
    int[] firstZero = {0, 1, 0, 1};
    int n = windows.length;
    INDArray z = Nd4j.create(DataType.FLOAT, n, 2, 2, 2);
    INDArray error = Nd4j.create(DataType.FLOAT, n, 1, 1, 2);
    for (int i = 0; i < n; i++) {
      for (int c = 0; c < 2; c++) {
        for (int m = 0; m < 4; m++) {
          z.putScalar(new long[] {i, m / 2, m % 2, c}, windows[c == 0 ? i : n - 1 - i][m]);
        }
        error.putScalar(new long[] {i, 0, 0, c}, 1 + i + 10 * c);
      }
    }
    ActivatedMaxPooling fused = new ActivatedMaxPooling(poolConf, conv);
    INDArray pooled = fused.forward(z.dup());
    assertThat(fused.lastPassWasFast()).isTrue();
    INDArray got = fused.backward(error.dup(), true);
    PoolingGradients dl4j = new PoolingGradients(poolConf);
    assertThat(pooled.neq(dl4j.forward(z.dup())).castTo(DataType.INT32).sumNumber().intValue()).isZero();
    INDArray expected = dl4j.backward(error.dup(), true);
    for (int i = 0; i < n; i++) {
      for (int c = 0; c < 2; c++) {
        for (int m = 0; m < 4; m++) {
          float want = m == firstZero[c == 0 ? i : n - 1 - i] ? error.getFloat(i, 0, 0, c) : 0f;
          long[] at = {i, m / 2, m % 2, c};
          assertThat(expected.getFloat(at)).as("DL4J, example %d channel %d member %d", i, c, m).isEqualTo(want);
          assertThat(got.getFloat(at)).as("fused, example %d channel %d member %d", i, c, m).isEqualTo(want);
        }
      }
    }
  }

  @Test
  void fusesOnlyWhereTheOrderDoesNotMatter() {
    Pool p = pool(2, 2, 2, 2, 0, ConvolutionMode.Truncate, 8, 8, true);
    List<PerExampleLayer> rules = fusedRules(network(p, CNN2DFormat.NCHW, Activation.RELU, DataType.FLOAT));
    assertThat(rules.get(1)).isInstanceOf(ActivatedMaxPooling.class);
    assertThat(rules.get(3)).isInstanceOf(ActivatedMaxPooling.class);
    // The first pooling layer feeds a convolution (which reads its channels-last buffer), the second the output layer.
    assertThat(((ActivatedMaxPooling) rules.get(1)).handsOverChannelsLast()).isTrue();
    assertThat(((ActivatedMaxPooling) rules.get(3)).handsOverChannelsLast()).isFalse();
    // ... and that convolution hands its input error back the same way; the first one has nothing below.
    assertThat(((ConvolutionGradients) rules.get(2)).handsOverChannelsLastError()).isTrue();
    assertThat(((ConvolutionGradients) rules.get(0)).handsOverChannelsLastError()).isFalse();
    for (IActivation other : new IActivation[] {Activation.TANH.getActivationFunction(),
        Activation.LEAKYRELU.getActivationFunction(), new ActivationReLU(6.0, null, null),
        new ActivationReLU(null, 0.5, null), new ActivationReLU(null, null, 0.1)}) {
      MultiLayerNetwork net = TinyNetworks.init(new NeuralNetConfiguration.Builder().seed(3).dataType(DataType.FLOAT)
          .list()
          .layer(new ConvolutionLayer.Builder(3, 3).nOut(2).activation(other).build())
          .layer(new SubsamplingLayer.Builder(PoolingType.MAX).kernelSize(2, 2).stride(2, 2).build())
          .layer(new OutputLayer.Builder(LossFunction.MCXENT).nOut(3).activation(Activation.SOFTMAX).build())
          .setInputType(InputType.convolutional(10, 10, 1)).build());
      assertThat(fusedRules(net).get(1)).as(other.toString()).isInstanceOf(PoolingGradients.class);
    }
    MultiLayerNetwork average = TinyNetworks.init(new NeuralNetConfiguration.Builder().seed(3)
        .dataType(DataType.FLOAT).list()
        .layer(new ConvolutionLayer.Builder(3, 3).nOut(2).activation(Activation.RELU).build())
        .layer(new SubsamplingLayer.Builder(PoolingType.AVG).kernelSize(2, 2).stride(2, 2).build())
        .layer(new OutputLayer.Builder(LossFunction.MCXENT).nOut(3).activation(Activation.SOFTMAX).build())
        .setInputType(InputType.convolutional(10, 10, 1)).build());
    assertThat(fusedRules(average).get(1)).isInstanceOf(PoolingGradients.class);
  }

  /** max |actual − expected| ≤ tolerance · max |expected|, with a nonzero expected gradient. */
  private static void assertClose(INDArray actual, INDArray expected, double tolerance) {
    double scale = expected.amaxNumber().doubleValue();
    assertThat(scale).as("a gradient to compare").isGreaterThan(0);
    assertThat(actual.sub(expected).amaxNumber().doubleValue() / scale).isLessThanOrEqualTo(tolerance);
  }

  private static List<PerExampleLayer> fusedRules(MultiLayerNetwork net) {
    if (net.getFlattenedGradients() == null) {
      net.initGradientsView();
    }
    return LayerRules.forNetwork(net, ConvolutionGradients.CHUNK_ELEMENTS, ConvolutionNorms.BY_COST);
  }

  /** The same rules with each fused pair replaced by the plain convolution and pooling rules. */
  private static List<PerExampleLayer> unfused(MultiLayerNetwork net, List<PerExampleLayer> fused) {
    List<PerExampleLayer> rules = new ArrayList<>(fused);
    for (int i = 1; i < rules.size(); i++) {
      if (rules.get(i) instanceof ActivatedMaxPooling) {
        rules.set(i - 1, new ConvolutionGradients(net.getLayer(i - 1), ConvolutionGradients.CHUNK_ELEMENTS,
            ConvolutionNorms.BY_COST));
        rules.set(i, new PoolingGradients((SubsamplingLayer) net.getLayer(i).conf().getLayer()));
      }
    }
    return rules;
  }

  /** Windows of the first pooling layer (DL4J's own forward pass) whose maximum occurs more than once. */
  private static int tiedWindows(MultiLayerNetwork net, INDArray x, CNN2DFormat format) {
    INDArray a = net.feedForwardToLayer(0, x, true).get(1);
    INDArray nchw = format == CNN2DFormat.NCHW ? a : a.permute(0, 3, 1, 2);
    SubsamplingLayer conf = (SubsamplingLayer) net.getLayer(1).conf().getLayer();
    int[] k = conf.getKernelSize();
    int[] s = conf.getStride();
    int ties = 0;
    for (int i = 0; i < nchw.size(0); i++) {
      for (int c = 0; c < nchw.size(1); c++) {
        for (int top = 0; top + k[0] <= nchw.size(2); top += s[0]) {
          for (int left = 0; left + k[1] <= nchw.size(3); left += s[1]) {
            double max = Double.NEGATIVE_INFINITY;
            int count = 0;
            for (int dh = 0; dh < k[0]; dh++) {
              for (int dw = 0; dw < k[1]; dw++) {
                double v = nchw.getDouble(i, c, top + dh, left + dw);
                count = v > max ? 1 : v == max ? count + 1 : count;
                max = Math.max(max, v);
              }
            }
            ties += count > 1 ? 1 : 0;
          }
        }
      }
    }
    return ties;
  }
}
