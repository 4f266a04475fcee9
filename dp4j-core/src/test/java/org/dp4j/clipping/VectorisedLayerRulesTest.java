package org.dp4j.clipping;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.Random;
import org.deeplearning4j.nn.conf.CNN2DFormat;
import org.deeplearning4j.nn.conf.ConvolutionMode;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.RNNFormat;
import org.deeplearning4j.nn.conf.distribution.UniformDistribution;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.Convolution1DLayer;
import org.deeplearning4j.nn.conf.layers.Convolution3D;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.conf.layers.Deconvolution2D;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.DepthwiseConvolution2D;
import org.deeplearning4j.nn.conf.layers.EmbeddingLayer;
import org.deeplearning4j.nn.conf.layers.EmbeddingSequenceLayer;
import org.deeplearning4j.nn.conf.layers.GlobalPoolingLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.conf.layers.PReLULayer;
import org.deeplearning4j.nn.conf.layers.PoolingType;
import org.deeplearning4j.nn.conf.layers.SeparableConvolution2D;
import org.deeplearning4j.nn.conf.layers.Subsampling1DLayer;
import org.deeplearning4j.nn.conf.layers.Subsampling3DLayer;
import org.deeplearning4j.nn.conf.layers.Upsampling1D;
import org.deeplearning4j.nn.conf.layers.Upsampling2D;
import org.deeplearning4j.nn.conf.layers.ZeroPadding1DLayer;
import org.deeplearning4j.nn.conf.layers.ZeroPaddingLayer;
import org.deeplearning4j.nn.conf.layers.convolutional.Cropping1D;
import org.deeplearning4j.nn.conf.layers.convolutional.Cropping2D;
import org.deeplearning4j.nn.conf.layers.misc.FrozenLayerWithBackprop;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.nn.weights.WeightInit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.lossfunctions.LossFunctions.LossFunction;

/**
 * The vectorised rules for embeddings, PReLU, layer norm and the convolution variants against DL4J's own gradients
 * computed one example at a time ({@link ExactPerExampleGradients}, an independent code path): per-example norms,
 * the clipped sum at a clip norm that clips about half of the examples, and the unclipped sum, to 1e-10 relative in
 * double precision (1e-6 in float).
 */
class VectorisedLayerRulesTest {
  private static final double DOUBLE_TOLERANCE = 1e-10;
  private static final double FLOAT_TOLERANCE = 1e-6;

  @BeforeAll
  static void doublePrecision() {
    Nd4j.setDefaultDataTypes(DataType.DOUBLE, DataType.DOUBLE);
  }

  static NeuralNetConfiguration.ListBuilder base(DataType type) {
    return new NeuralNetConfiguration.Builder().seed(11).dataType(type).updater(new Sgd(0.1))
        .weightInit(WeightInit.XAVIER).list();
  }

  /** Integer indices in [0, vocabulary) stored as floating point, [n, steps] (duplicates within a row likely). */
  static INDArray indices(long seed, int n, int steps, int vocabulary, DataType type) {
    Random random = new Random(seed);
    INDArray x = Nd4j.create(type, n, steps);
    for (int i = 0; i < n; i++) {
      for (int t = 0; t < steps; t++) {
        x.putScalar(i, t, random.nextInt(vocabulary));
      }
    }
    return x;
  }

  static void assertMatchesDl4j(MultiLayerNetwork net, INDArray x, INDArray y, double tolerance) {
    assertMatchesDl4j(net, x, y, tolerance, mode -> PerExampleClipper.of(net, mode));
  }

  static void assertMatchesDl4j(MultiLayerNetwork net, INDArray x, INDArray y, double tolerance,
      java.util.function.Function<ClippingMode, PerExampleClipper> clippers) {
    for (ClippingMode mode : ClippingMode.values()) {
      PerExampleClipper clipper = clippers.apply(mode);
      double[] exactNorms = ExactPerExampleGradients.clippedSum(net, x, y, 1.0, ClippingMode.FLAT)
          .perExampleNorms();
      double clip = median(exactNorms);
      assertSame(clipper.clippedSum(x, y, clip), ExactPerExampleGradients.clippedSum(net, x, y, clip, mode),
          tolerance);
      assertSame(clipper.clippedSum(x, y, 1e30), ExactPerExampleGradients.clippedSum(net, x, y, 1e30, mode),
          tolerance);
    }
  }

  static void assertMatchesDl4j(ComputationGraph graph, INDArray x, INDArray y, double tolerance) {
    GraphPerExampleClipper clipper = GraphPerExampleClipper.of(graph, ClippingMode.FLAT);
    INDArray[] xs = {x};
    INDArray[] ys = {y};
    double clip = median(ExactPerExampleGradients.clippedSum(graph, xs, ys, null, 1.0, ClippingMode.FLAT)
        .perExampleNorms());
    INDArray target = Nd4j.create(graph.params().dataType(), 1, graph.numParams());
    assertSame(clipper.clippedSum(xs, ys, clip, target),
        ExactPerExampleGradients.clippedSum(graph, xs, ys, null, clip, ClippingMode.FLAT), tolerance);
  }

  private static double median(double[] norms) {
    double[] sorted = norms.clone();
    Arrays.sort(sorted);
    return (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
  }

  private static void assertSame(ClippedGradientSum fast, ClippedGradientSum exact, double tolerance) {
    double[] fastNorms = fast.perExampleNorms();
    double[] exactNorms = exact.perExampleNorms();
    for (int i = 0; i < exactNorms.length; i++) {
      assertThat(exactNorms[i]).as("norm of example %s", i).isPositive();
      assertThat(Math.abs(fastNorms[i] - exactNorms[i]) / exactNorms[i]).as("relative error of norm %s", i)
          .isLessThanOrEqualTo(tolerance);
    }
    double scale = exact.sum().amaxNumber().doubleValue();
    double error = fast.sum().castTo(DataType.DOUBLE).sub(exact.sum().castTo(DataType.DOUBLE))
        .amaxNumber().doubleValue();
    assertThat(error / scale).as("max relative error of the sum").isLessThanOrEqualTo(tolerance);
    assertThat(fast.clippedCount()).isEqualTo(exact.clippedCount());
  }

  private static INDArray labels(long seed, int n, int classes) {
    return TinyNetworks.labels(seed, n, classes, true);
  }

  @Test
  void embeddingLayerWithRepeatedIndicesMatchesDl4j() {
    for (boolean bias : new boolean[] {true, false}) {
      MultiLayerNetwork net = TinyNetworks.init(base(DataType.DOUBLE)
          .layer(new EmbeddingLayer.Builder().nIn(5).nOut(4).hasBias(bias).activation(Activation.TANH).build())
          .layer(new DenseLayer.Builder().nIn(4).nOut(3).activation(Activation.SIGMOID).build())
          .layer(new OutputLayer.Builder(LossFunction.MCXENT).nIn(3).nOut(2).activation(Activation.SOFTMAX).build())
          .build());
      assertMatchesDl4j(net, indices(1, 12, 1, 5, DataType.DOUBLE), labels(2, 12, 2), DOUBLE_TOLERANCE);
    }
  }

  @ParameterizedTest
  @EnumSource(RNNFormat.class)
  void embeddingSequenceMatchesDl4j(RNNFormat format) {
    // Pooling over time: dimension 2 for NCW, 1 for NWC.
    MultiLayerNetwork net = TinyNetworks.init(base(DataType.DOUBLE)
        .layer(new EmbeddingSequenceLayer.Builder().nIn(6).nOut(3).inputLength(7).outputDataFormat(format)
            .activation(Activation.TANH).build())
        .layer(new GlobalPoolingLayer.Builder(PoolingType.PNORM).pnorm(3)
            .poolingDimensions(format == RNNFormat.NCW ? 2 : 1).build())
        .layer(new OutputLayer.Builder(LossFunction.MCXENT).nIn(3).nOut(3).activation(Activation.SOFTMAX).build())
        .build());
    assertMatchesDl4j(net, indices(3, 10, 7, 6, DataType.DOUBLE), labels(4, 10, 3), DOUBLE_TOLERANCE);
  }

  @Test
  void embeddingSequenceIntoConvolution1DMatchesDl4j() {
    MultiLayerNetwork net = TinyNetworks.init(base(DataType.DOUBLE)
        .layer(new EmbeddingSequenceLayer.Builder().nIn(6).nOut(3).inputLength(7).hasBias(true)
            .activation(Activation.IDENTITY).build())
        .layer(new Convolution1DLayer.Builder(3).nIn(3).nOut(4).activation(Activation.TANH)
            .convolutionMode(ConvolutionMode.Same).build())
        .layer(new GlobalPoolingLayer.Builder(PoolingType.AVG).build())
        .layer(new OutputLayer.Builder(LossFunction.MCXENT).nIn(4).nOut(3).activation(Activation.SOFTMAX).build())
        .build());
    assertMatchesDl4j(net, indices(3, 10, 7, 6, DataType.DOUBLE), labels(4, 10, 3), DOUBLE_TOLERANCE);
  }

  @ParameterizedTest
  @EnumSource(value = ConvolutionMode.class, names = {"Same", "Truncate", "Causal"})
  void convolution1DStridesDilationsPaddingAndParameterFreeLayersMatchDl4j(ConvolutionMode mode) {
    MultiLayerNetwork net = TinyNetworks.init(base(DataType.DOUBLE)
        .layer(new Convolution1DLayer.Builder(3).nIn(2).nOut(3).dilation(2)
            .padding(mode == ConvolutionMode.Truncate ? 1 : 0).convolutionMode(mode).activation(Activation.ELU)
            .build())
        .layer(new Subsampling1DLayer.Builder(PoolingType.MAX).kernelSize(2).stride(1).build())
        .layer(new ZeroPadding1DLayer.Builder(1, 2).build())
        .layer(new Cropping1D.Builder(1, 0).build())
        .layer(new Upsampling1D.Builder(2).build())
        .layer(new Convolution1DLayer.Builder(2).nIn(3).nOut(4).stride(2).hasBias(false).convolutionMode(
            mode == ConvolutionMode.Causal ? ConvolutionMode.Causal : ConvolutionMode.Truncate)
            .activation(Activation.TANH).build())
        .layer(new GlobalPoolingLayer.Builder(PoolingType.MAX).build())
        .layer(new OutputLayer.Builder(LossFunction.MCXENT).nIn(4).nOut(3).activation(Activation.SOFTMAX).build())
        .build());
    assertMatchesDl4j(net, TinyNetworks.features(5, 9, 2, 11), labels(6, 9, 3), DOUBLE_TOLERANCE);
  }

  static MultiLayerNetwork convolution3D(Convolution3D.DataFormat format) {
    boolean ncdhw = format == Convolution3D.DataFormat.NCDHW;
    return TinyNetworks.init(base(DataType.DOUBLE)
        .layer(new Convolution3D.Builder().kernelSize(2, 2, 2).nIn(2).nOut(3).dataFormat(format)
            .convolutionMode(ConvolutionMode.Same).activation(Activation.TANH).build())
        .layer(new Convolution3D.Builder().kernelSize(2, 1, 2).stride(2, 1, 1).dilation(1, 2, 1).padding(1, 0, 0)
            .nIn(3).nOut(2).dataFormat(format).convolutionMode(ConvolutionMode.Truncate)
            .activation(Activation.SOFTPLUS).build())
        .layer(new GlobalPoolingLayer.Builder(PoolingType.AVG).poolingDimensions(ncdhw ? new int[] {2, 3, 4}
            : new int[] {1, 2, 3}).build())
        .layer(new OutputLayer.Builder(LossFunction.MCXENT).nIn(2).nOut(2).activation(Activation.SOFTMAX).build())
        .build());
  }

  private static INDArray volumes(Convolution3D.DataFormat format) {
    return format == Convolution3D.DataFormat.NCDHW ? TinyNetworks.features(7, 8, 2, 4, 5, 3)
        : TinyNetworks.features(7, 8, 4, 5, 3, 2);
  }

  @ParameterizedTest
  @EnumSource(Convolution3D.DataFormat.class)
  void convolution3DMatchesDl4j(Convolution3D.DataFormat format) {
    assertMatchesDl4j(convolution3D(format), volumes(format), labels(8, 8, 2), DOUBLE_TOLERANCE);
  }

  @Test
  void convolution3DWithSubsamplingMatchesDl4j() {
    MultiLayerNetwork net = TinyNetworks.init(base(DataType.DOUBLE)
        .layer(new Convolution3D.Builder().kernelSize(2, 2, 2).nOut(3).activation(Activation.TANH).build())
        .layer(new Subsampling3DLayer.Builder(PoolingType.MAX).kernelSize(2, 2, 1).stride(1, 1, 1).build())
        .layer(new GlobalPoolingLayer.Builder(PoolingType.AVG).build())
        .layer(new OutputLayer.Builder(LossFunction.MCXENT).nOut(2).activation(Activation.SOFTMAX).build())
        .setInputType(InputType.convolutional3D(4, 4, 3, 2)).build());
    assertMatchesDl4j(net, TinyNetworks.features(9, 8, 2, 4, 4, 3), labels(10, 8, 2), DOUBLE_TOLERANCE);
  }

  /** Depthwise → separable → transposed convolution → upsampling → zero padding → cropping → pooling → softmax. */
  static MultiLayerNetwork depthwiseSeparableTransposed(CNN2DFormat format, ConvolutionMode mode) {
    return TinyNetworks.init(base(DataType.DOUBLE)
        .layer(new DepthwiseConvolution2D.Builder(3, 2).depthMultiplier(2).nOut(4).stride(1, 2).dilation(1, 1)
            .padding(mode == ConvolutionMode.Same ? 0 : 1, 0).convolutionMode(mode)
            .dataFormat(format).activation(Activation.TANH).build())
        .layer(new SeparableConvolution2D.Builder(2, 2).depthMultiplier(2).nOut(3).dilation(2, 1)
            .convolutionMode(mode).dataFormat(format).activation(Activation.ELU).build())
        .layer(new Deconvolution2D.Builder(2, 3).nOut(2).stride(2, 1)
            .padding(0, mode == ConvolutionMode.Same ? 0 : 1).convolutionMode(mode)
            .dataFormat(format).activation(Activation.SIGMOID).build())
        .layer(new Upsampling2D.Builder(2).build())
        .layer(new ZeroPaddingLayer.Builder(1, 0, 0, 1).dataFormat(format).build())
        .layer(new Cropping2D.Builder(0, 1, 1, 0).dataFormat(format).build())
        .layer(new GlobalPoolingLayer.Builder(PoolingType.AVG).poolingDimensions(
            format == CNN2DFormat.NCHW ? new int[] {2, 3} : new int[] {1, 2}).build())
        .layer(new OutputLayer.Builder(LossFunction.MCXENT).nIn(2).nOut(2).activation(Activation.SOFTMAX).build())
        .setInputType(InputType.convolutional(7, 6, 2, format)).build());
  }

  private static INDArray images(CNN2DFormat format) {
    return format == CNN2DFormat.NCHW ? TinyNetworks.features(11, 8, 2, 7, 6) : TinyNetworks.features(11, 8, 7, 6, 2);
  }

  @ParameterizedTest
  @EnumSource(CNN2DFormat.class)
  void depthwiseSeparableAndTransposedConvolutionsMatchDl4j(CNN2DFormat format) {
    for (ConvolutionMode mode : new ConvolutionMode[] {ConvolutionMode.Truncate, ConvolutionMode.Same}) {
      assertMatchesDl4j(depthwiseSeparableTransposed(format, mode), images(format), labels(12, 8, 2),
          DOUBLE_TOLERANCE);
    }
  }

  /** Both norm forms (per-example gradients and Gram matrices), in chunks of the whole batch and of one example. */
  @ParameterizedTest
  @EnumSource(ConvolutionNorms.class)
  void everyNormFormAndChunkSizeMatchesDl4j(ConvolutionNorms norms) {
    MultiLayerNetwork net = depthwiseSeparableTransposed(CNN2DFormat.NCHW, ConvolutionMode.Truncate);
    MultiLayerNetwork conv3d = convolution3D(Convolution3D.DataFormat.NCDHW);
    for (long chunk : new long[] {ConvolutionGradients.CHUNK_ELEMENTS, 1}) {
      assertMatchesDl4j(net, images(CNN2DFormat.NCHW), labels(12, 8, 2), DOUBLE_TOLERANCE,
          mode -> PerExampleClipper.of(net, mode, chunk, norms));
      assertMatchesDl4j(conv3d, volumes(Convolution3D.DataFormat.NCDHW), labels(8, 8, 2), DOUBLE_TOLERANCE,
          mode -> PerExampleClipper.of(conv3d, mode, chunk, norms));
    }
  }

  @Test
  void preluAfterDenseAndConvolutionMatchesDl4j() {
    MultiLayerNetwork dense = TinyNetworks.init(base(DataType.DOUBLE)
        .layer(new DenseLayer.Builder().nOut(5).activation(Activation.IDENTITY).build())
        .layer(new PReLULayer.Builder().inputShape(5).weightInit(new UniformDistribution(0.1, 0.4)).build())
        .layer(new OutputLayer.Builder(LossFunction.MSE).nOut(2).activation(Activation.IDENTITY).build())
        .setInputType(InputType.feedForward(4)).build());
    assertMatchesDl4j(dense, TinyNetworks.features(13, 9, 4), TinyNetworks.labels(14, 9, 2, false),
        DOUBLE_TOLERANCE);
    MultiLayerNetwork conv = TinyNetworks.init(base(DataType.DOUBLE)
        .layer(new ConvolutionLayer.Builder(2, 2).nOut(3).activation(Activation.IDENTITY).build())
        .layer(new PReLULayer.Builder().inputShape(3, 4, 4).weightInit(new UniformDistribution(0.1, 0.4)).build())
        .layer(new GlobalPoolingLayer.Builder(PoolingType.MAX).build())
        .layer(new OutputLayer.Builder(LossFunction.MCXENT).nOut(2).activation(Activation.SOFTMAX).build())
        .setInputType(InputType.convolutional(5, 5, 2)).build());
    assertMatchesDl4j(conv, TinyNetworks.features(15, 9, 2, 5, 5), labels(16, 9, 2), DOUBLE_TOLERANCE);
  }

  @Test
  void denseWithLayerNormMatchesDl4jAndLeavesTheFusedPath() {
    MultiLayerNetwork net = TinyNetworks.init(base(DataType.DOUBLE)
        .layer(new DenseLayer.Builder().nOut(5).hasLayerNorm(true).activation(Activation.TANH).build())
        .layer(new DenseLayer.Builder().nOut(4).hasLayerNorm(true).hasBias(false).activation(Activation.RELU)
            .build())
        .layer(new OutputLayer.Builder(LossFunction.MCXENT).nOut(3).activation(Activation.SOFTMAX).build())
        .setInputType(InputType.feedForward(6)).build());
    assertThat(PerExampleClipper.of(net).isFused()).isFalse();
    assertMatchesDl4j(net, TinyNetworks.features(17, 10, 6), labels(18, 10, 3), DOUBLE_TOLERANCE);
  }

  @Test
  void frozenConvolutionVariantsPassErrorsBack() {
    MultiLayerNetwork net = TinyNetworks.init(base(DataType.DOUBLE)
        .layer(new Convolution1DLayer.Builder(2).nIn(2).nOut(3).activation(Activation.TANH).build())
        .layer(new FrozenLayerWithBackprop(new Convolution1DLayer.Builder(2).nIn(3).nOut(3)
            .activation(Activation.SIGMOID).build()))
        .layer(new FrozenLayerWithBackprop(new PReLULayer.Builder().inputShape(3, 7).build()))
        .layer(new GlobalPoolingLayer.Builder(PoolingType.AVG).build())
        .layer(new OutputLayer.Builder(LossFunction.MCXENT).nIn(3).nOut(2).activation(Activation.SOFTMAX).build())
        .build());
    assertMatchesDl4j(net, TinyNetworks.features(19, 8, 2, 9), labels(20, 8, 2), DOUBLE_TOLERANCE);
  }

  @Test
  void floatEmbeddingAndConvolution1DMatchDl4j() {
    MultiLayerNetwork net = TinyNetworks.init(base(DataType.FLOAT)
        .layer(new EmbeddingSequenceLayer.Builder().nIn(8).nOut(4).inputLength(9).build())
        .layer(new Convolution1DLayer.Builder(3).nIn(4).nOut(5).activation(Activation.RELU).build())
        .layer(new GlobalPoolingLayer.Builder(PoolingType.MAX).build())
        .layer(new OutputLayer.Builder(LossFunction.MCXENT).nIn(5).nOut(3).activation(Activation.SOFTMAX).build())
        .build());
    assertMatchesDl4j(net, indices(21, 12, 9, 8, DataType.FLOAT), labels(22, 12, 3).castTo(DataType.FLOAT),
        FLOAT_TOLERANCE);
  }

  @Test
  void embeddingConvolution1DAndDepthwiseBranchesInAComputationGraphMatchDl4j() {
    ComputationGraph graph = TinyGraphs.init(TinyGraphs.builder().addInputs("tokens")
        .addLayer("embed", new EmbeddingSequenceLayer.Builder().nIn(7).nOut(3).inputLength(8)
            .activation(Activation.IDENTITY).build(), "tokens")
        .addLayer("conv", new Convolution1DLayer.Builder(3).nIn(3).nOut(4).dilation(2)
            .convolutionMode(ConvolutionMode.Causal).activation(Activation.TANH).build(), "embed")
        .addLayer("prelu", new PReLULayer.Builder().inputShape(4, 8)
            .weightInit(new UniformDistribution(0.1, 0.4)).build(), "conv")
        .addLayer("pool", new GlobalPoolingLayer.Builder(PoolingType.AVG).build(), "prelu")
        .addLayer("dense", new DenseLayer.Builder().nIn(4).nOut(4).hasLayerNorm(true)
            .activation(Activation.SOFTPLUS).build(), "pool")
        .addLayer("out", new OutputLayer.Builder(LossFunction.MCXENT).nIn(4).nOut(3)
            .activation(Activation.SOFTMAX).build(), "dense")
        .setOutputs("out").build());
    assertMatchesDl4j(graph, indices(23, 10, 8, 7, DataType.DOUBLE), labels(24, 10, 3), DOUBLE_TOLERANCE);
  }

  /**
   * A padded batch: the feature mask of an embedding sequence (and of the 1-D convolution above it), set through
   * {@link PerExampleLayer#setInputMask}, zeroes the padded steps' outputs and errors, as DL4J's masked batch-of-one
   * gradients do (sum pooling above them reads zeros at padded steps either way).
   */
  @Test
  void maskedEmbeddingSequenceAndConvolution1DMatchDl4jWithTheFeatureMask() {
    MultiLayerNetwork embeddingOnly = TinyNetworks.init(base(DataType.DOUBLE)
        .layer(new EmbeddingSequenceLayer.Builder().nIn(5).nOut(3).inputLength(6).activation(Activation.TANH)
            .build())
        .layer(new GlobalPoolingLayer.Builder(PoolingType.SUM).build())
        .layer(new OutputLayer.Builder(LossFunction.MCXENT).nIn(3).nOut(2).activation(Activation.SOFTMAX).build())
        .build());
    assertMaskedMatchesDl4j(embeddingOnly, 1);
    MultiLayerNetwork withConvolution = TinyNetworks.init(base(DataType.DOUBLE)
        .layer(new EmbeddingSequenceLayer.Builder().nIn(5).nOut(3).inputLength(6).activation(Activation.TANH)
            .build())
        .layer(new Convolution1DLayer.Builder(3).nIn(3).nOut(4).convolutionMode(ConvolutionMode.Same)
            .activation(Activation.SOFTPLUS).build())
        .layer(new GlobalPoolingLayer.Builder(PoolingType.SUM).build())
        .layer(new OutputLayer.Builder(LossFunction.MCXENT).nIn(4).nOut(2).activation(Activation.SOFTMAX).build())
        .build());
    assertMaskedMatchesDl4j(withConvolution, 2);
  }

  /** Layers [0, masked) get the feature mask; the rules run by hand, as the clipper runs them. */
  private static void assertMaskedMatchesDl4j(MultiLayerNetwork net, int masked) {
    int n = 7;
    INDArray x = indices(25, n, 6, 5, DataType.DOUBLE);
    INDArray y = labels(26, n, 2);
    INDArray mask = Nd4j.ones(DataType.DOUBLE, n, 6);
    for (int i = 0; i < n; i++) {
      for (int t = 6 - i % 4; t < 6; t++) {
        mask.putScalar(i, t, 0.0);     // example i has 6 − (i mod 4) real steps
      }
    }
    INDArray exact = Nd4j.create(DataType.DOUBLE, n, net.numParams());
    for (int i = 0; i < n; i++) {
      net.setInput(x.getRow(i, true).dup());
      net.setLabels(y.getRow(i, true).dup());
      net.setLayerMaskArrays(mask.getRow(i, true).dup(), null);
      net.computeGradientAndScore();
      exact.getRow(i).assign(net.gradient().gradient().reshape(net.numParams()));
    }
    net.clearLayerMaskArrays();

    java.util.List<PerExampleLayer> rules = LayerRules.forNetwork(net, ConvolutionGradients.CHUNK_ELEMENTS,
        ConvolutionNorms.BY_COST);
    INDArray activation = x;
    for (int l = 0; l < rules.size(); l++) {
      if (l < masked) {
        rules.get(l).setInputMask(mask);
      }
      activation = rules.get(l).forward(activation);
    }
    int last = rules.size() - 1;
    INDArray error = rules.get(last).backwardFromLabels(y, null, true);
    for (int l = last - 1; l >= 0; l--) {
      error = rules.get(l).backward(error, l > 0);
    }
    // Norms, and the sum with per-example weights c_i = i + 1 against Σ_i c_i g_i from DL4J.
    INDArray squaredNorms = Nd4j.zeros(DataType.DOUBLE, n, 1);
    INDArray scale = Nd4j.arange(1, n + 1).castTo(DataType.DOUBLE).reshape(n, 1);
    INDArray sum = Nd4j.create(DataType.DOUBLE, 1, net.numParams());
    long[] bounds = ExactPerExampleGradients.layerBounds(net);
    for (int l = 0; l <= last; l++) {
      if (rules.get(l).hasParams()) {
        squaredNorms.addi(rules.get(l).squaredNorms());
        INDArray slice = sum.get(org.nd4j.linalg.indexing.NDArrayIndex.all(),
            org.nd4j.linalg.indexing.NDArrayIndex.interval(bounds[l], bounds[l + 1]));
        rules.get(l).writeScaledSum(scale, net.getLayer(l).conf().getLayer().initializer()
            .getGradientsFromFlattened(net.getLayer(l).conf(), slice));
      }
    }
    INDArray exactSquaredNorms = exact.mul(exact).sum(1).reshape(n, 1);
    assertThat(squaredNorms.sub(exactSquaredNorms).amaxNumber().doubleValue()
        / exactSquaredNorms.amaxNumber().doubleValue()).isLessThanOrEqualTo(DOUBLE_TOLERANCE);
    INDArray exactSum = exact.mulColumnVector(scale).sum(true, 0);
    assertThat(sum.sub(exactSum).amaxNumber().doubleValue() / exactSum.amaxNumber().doubleValue())
        .isLessThanOrEqualTo(DOUBLE_TOLERANCE);
    // Padding changes the gradients: the mask is not a no-op here.
    assertThat(exact.getRow(1).sub(ExactPerExampleGradients.perExample(net, x, y).getRow(1))
        .amaxNumber().doubleValue()).isGreaterThan(1e-6);
  }
}
