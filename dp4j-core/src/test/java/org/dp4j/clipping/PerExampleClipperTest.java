package org.dp4j.clipping;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import org.deeplearning4j.nn.conf.ConvolutionMode;
import org.deeplearning4j.nn.conf.GradientNormalization;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.BatchNormalization;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.DropoutLayer;
import org.deeplearning4j.nn.conf.layers.GravesBidirectionalLSTM;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.conf.layers.PoolingType;
import org.deeplearning4j.nn.conf.layers.RnnOutputLayer;
import org.deeplearning4j.nn.conf.layers.misc.FrozenLayerWithBackprop;
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
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.lossfunctions.LossFunctions.LossFunction;

/**
 * The vectorised clipper against DL4J's own gradients computed one example at a time
 * ({@link ExactPerExampleGradients}, an independent code path), in double precision to 1e-10 relative.
 */
class PerExampleClipperTest {
  private static final double TOLERANCE = 1e-10;

  @BeforeAll
  static void doublePrecision() {
    Nd4j.setDefaultDataTypes(DataType.DOUBLE, DataType.DOUBLE);
  }

  /** Clip norm halfway between two middle exact norms: about half of the examples are clipped, none ties. */
  private static double medianNorm(MultiLayerNetwork net, INDArray x, INDArray y) {
    double[] norms = ExactPerExampleGradients.clippedSum(net, x, y, 1.0, ClippingMode.FLAT).perExampleNorms();
    Arrays.sort(norms);
    return (norms[norms.length / 2 - 1] + norms[norms.length / 2]) / 2;
  }

  private static void assertMatchesReference(MultiLayerNetwork net, INDArray x, INDArray y, ClippingMode mode) {
    assertMatchesReference(PerExampleClipper.of(net, mode), net, x, y, mode);
  }

  private static void assertMatchesReference(PerExampleClipper clipper, MultiLayerNetwork net, INDArray x,
      INDArray y, ClippingMode mode) {
    double clip = medianNorm(net, x, y);
    ClippedGradientSum fast = clipper.clippedSum(x, y, clip);
    ClippedGradientSum exact = ExactPerExampleGradients.clippedSum(net, x, y, clip, mode);
    double[] fastNorms = fast.perExampleNorms();
    double[] exactNorms = exact.perExampleNorms();
    for (int i = 0; i < exactNorms.length; i++) {
      assertThat(fastNorms[i]).as("norm of example %s", i).isCloseTo(exactNorms[i],
          org.assertj.core.data.Offset.offset(TOLERANCE * exactNorms[i]));
    }
    double scale = exact.sum().amaxNumber().doubleValue();
    assertThat(scale).isPositive();
    double error = fast.sum().sub(exact.sum()).amaxNumber().doubleValue();
    assertThat(error / scale).as("max relative error of the clipped sum").isLessThanOrEqualTo(TOLERANCE);
    assertThat(fast.clippedCount()).isEqualTo(exact.clippedCount()).isPositive();
  }

  /** Dense – frozen dense (errors pass back through it) – output; the frozen layer's DL4J gradient is zero. */
  private static MultiLayerNetwork withFrozenMiddle() {
    MultiLayerNetwork net = new MultiLayerNetwork(TinyNetworks.base(new Sgd(0.1))
        .layer(new org.deeplearning4j.nn.conf.layers.DenseLayer.Builder().nIn(6).nOut(5)
            .activation(Activation.TANH).build())
        .layer(new org.deeplearning4j.nn.conf.layers.misc.FrozenLayerWithBackprop(
            new org.deeplearning4j.nn.conf.layers.DenseLayer.Builder().nIn(5).nOut(4)
                .activation(Activation.SIGMOID).build()))
        .layer(new org.deeplearning4j.nn.conf.layers.OutputLayer.Builder(LossFunction.MCXENT).nIn(4).nOut(3)
            .activation(Activation.SOFTMAX).build())
        .build());
    net.init();
    return net;
  }

  @org.junit.jupiter.api.Test
  void frozenLayerWithBackpropPassesErrorsAndTakesNoPartInTheNorms() {
    MultiLayerNetwork net = withFrozenMiddle();
    assertMatchesReference(net, TinyNetworks.features(11, 9, 6), TinyNetworks.labels(12, 9, 3, true),
        ClippingMode.FLAT);
    ClippedGradientSum s = PerExampleClipper.of(net).clippedSum(TinyNetworks.features(11, 9, 6),
        TinyNetworks.labels(12, 9, 3, true), 1e-3);
    long[] bounds = ExactPerExampleGradients.layerBounds(net);
    INDArray frozenPart = s.sum().get(org.nd4j.linalg.indexing.NDArrayIndex.all(),
        org.nd4j.linalg.indexing.NDArrayIndex.interval(bounds[1], bounds[2]));
    assertThat(frozenPart.amaxNumber().doubleValue()).isZero();
  }

  @org.junit.jupiter.api.Test
  void aFrozenLayerThatStopsBackpropAboveATrainableLayerIsRefused() {
    MultiLayerNetwork net = new MultiLayerNetwork(TinyNetworks.base(new Sgd(0.1))
        .layer(new org.deeplearning4j.nn.conf.layers.DenseLayer.Builder().nIn(6).nOut(5).build())
        .layer(new org.deeplearning4j.nn.conf.layers.misc.FrozenLayer(
            new org.deeplearning4j.nn.conf.layers.DenseLayer.Builder().nIn(5).nOut(4).build()))
        .layer(new org.deeplearning4j.nn.conf.layers.OutputLayer.Builder(LossFunction.MCXENT).nIn(4).nOut(3)
            .activation(Activation.SOFTMAX).build())
        .build());
    net.init();
    assertThatThrownBy(() -> PerExampleClipper.of(net)).hasMessageContaining("stops back-propagation")
        .hasMessageContaining("FrozenLayerWithBackprop");
  }

  @ParameterizedTest
  @EnumSource(ClippingMode.class)
  void mlpWithDropoutAndActivationLayersMatchesReference(ClippingMode mode) {
    MultiLayerNetwork net = TinyNetworks.mlp(LossFunction.MCXENT, Activation.SOFTMAX, new Sgd(0.1));
    assertMatchesReference(net, TinyNetworks.features(1, 9, 6), TinyNetworks.labels(2, 9, 3, true), mode);
  }

  @ParameterizedTest
  @EnumSource(value = LossFunction.class, names = {"MSE", "L1", "XENT", "HINGE", "SQUARED_HINGE",
      "COSINE_PROXIMITY", "KL_DIVERGENCE", "MEAN_ABSOLUTE_PERCENTAGE_ERROR", "POISSON", "WASSERSTEIN"})
  void outputLayerMatchesReferenceForLoss(LossFunction loss) {
    Activation activation = loss == LossFunction.XENT || loss == LossFunction.KL_DIVERGENCE
        ? Activation.SIGMOID : loss == LossFunction.POISSON ? Activation.SOFTPLUS : Activation.TANH;
    MultiLayerNetwork net = TinyNetworks.mlp(loss, activation, new Sgd(0.1));
    boolean oneHot = loss == LossFunction.HINGE || loss == LossFunction.SQUARED_HINGE;
    assertMatchesReference(net, TinyNetworks.features(3, 8, 6), TinyNetworks.labels(4, 8, 3, oneHot),
        ClippingMode.FLAT);
  }

  @ParameterizedTest
  @EnumSource(value = LossFunction.class, names = {"MCXENT", "NEGATIVELOGLIKELIHOOD", "MSE"})
  void lossLayerAndBiasFreeDenseMatchReference(LossFunction loss) {
    Activation activation = loss == LossFunction.MSE ? Activation.IDENTITY : Activation.SOFTMAX;
    MultiLayerNetwork net = TinyNetworks.denseIntoLossLayer(loss, activation);
    assertMatchesReference(net, TinyNetworks.features(5, 8, 6), TinyNetworks.labels(6, 8, 3, true),
        ClippingMode.FLAT);
  }

  @Test
  void convolutionPoolingAndPreprocessorsMatchReference() {
    INDArray x = TinyNetworks.features(7, 8, 49);
    INDArray y = TinyNetworks.labels(8, 8, 3, true);
    assertMatchesReference(TinyNetworks.cnn(new int[] {1, 1}, new int[] {0, 0}, new int[] {1, 1},
        ConvolutionMode.Truncate), x, y, ClippingMode.FLAT);
    assertMatchesReference(TinyNetworks.cnn(new int[] {2, 1}, new int[] {1, 2}, new int[] {1, 2},
        ConvolutionMode.Truncate), x, y, ClippingMode.PER_LAYER);
    assertMatchesReference(TinyNetworks.cnn(new int[] {2, 2}, new int[] {0, 0}, new int[] {2, 1},
        ConvolutionMode.Same), x, y, ClippingMode.FLAT);
    assertMatchesReference(TinyNetworks.cnnIntoDense(), TinyNetworks.features(9, 8, 2, 6, 6),
        TinyNetworks.labels(10, 8, 2, false), ClippingMode.FLAT);
  }

  @ParameterizedTest
  @EnumSource(ConvolutionNorms.class)
  void convolutionNormsByGramOrMaterialisedGradientsMatchReference(ConvolutionNorms norms) {
    INDArray x = TinyNetworks.features(15, 6, 49);
    INDArray y = TinyNetworks.labels(16, 6, 3, true);
    for (ClippingMode mode : ClippingMode.values()) {
      MultiLayerNetwork net = TinyNetworks.cnn(new int[] {1, 2}, new int[] {1, 0}, new int[] {2, 1},
          ConvolutionMode.Truncate);
      assertMatchesReference(PerExampleClipper.of(net, mode, ConvolutionGradients.CHUNK_ELEMENTS, norms), net, x,
          y, mode);
      // Chunks of one example for either form.
      assertMatchesReference(PerExampleClipper.of(net, mode, 1, norms), net, x, y, mode);
    }
  }

  @Test
  void costRulePicksTheGramFormOnlyWhereItIsCheaper() {
    // MNIST-shaped layers: 24x24 positions, 5x5x1 patches, 16 channels; 8x8, 5x5x16, 32: materialise both.
    assertThat(ConvolutionNorms.BY_COST.useGram(576, 25, 16)).isFalse();
    assertThat(ConvolutionNorms.BY_COST.useGram(64, 400, 32)).isFalse();
    // A late layer of a deep network: 4x4 positions, 3x3x256 patches, 256 channels: Gram (16·2560 < 2304·256).
    assertThat(ConvolutionNorms.BY_COST.useGram(16, 2304, 256)).isTrue();
    assertThat(ConvolutionNorms.GRAM.useGram(576, 25, 16)).isTrue();
    assertThat(ConvolutionNorms.MATERIALISED.useGram(16, 2304, 256)).isFalse();
  }

  @Test
  void otherPoolingTypesAndOneExamplePerConvolutionChunkMatchReference() {
    INDArray x = TinyNetworks.features(13, 7, 49);
    INDArray y = TinyNetworks.labels(14, 7, 3, true);
    MultiLayerNetwork net = TinyNetworks.cnn(new int[] {1, 2}, new int[] {1, 0}, new int[] {1, 1},
        ConvolutionMode.Truncate, PoolingType.AVG, PoolingType.MAX);
    assertMatchesReference(net, x, y, ClippingMode.FLAT);
    // A bound of one element forces chunks of a single example.
    assertMatchesReference(PerExampleClipper.of(net, ClippingMode.FLAT, 1), net, x, y, ClippingMode.FLAT);
    assertMatchesReference(TinyNetworks.cnn(new int[] {1, 1}, new int[] {0, 0}, new int[] {1, 1},
        ConvolutionMode.Same, PoolingType.PNORM, PoolingType.SUM), x, y, ClippingMode.FLAT);
  }

  @Test
  void stochasticDropoutStillBoundsEveryExample() {
    // DL4J's own random dropout: the reference cannot replay the masks, but every clipped example must obey C.
    MultiLayerNetwork net = TinyNetworks.init(TinyNetworks.base(new Sgd(0.1))
        .layer(new DenseLayer.Builder().nIn(6).nOut(8).activation(Activation.RELU).dropOut(0.8).build())
        .layer(new DropoutLayer.Builder(0.5).build())
        .layer(new OutputLayer.Builder(LossFunction.MCXENT).nOut(3).activation(Activation.SOFTMAX).build())
        .setInputType(InputType.feedForward(6)).build());
    PerExampleClipper clipper = PerExampleClipper.of(net);
    INDArray x = TinyNetworks.features(15, 12, 6);
    INDArray y = TinyNetworks.labels(16, 12, 3, true);
    ClippedGradientSum batch = clipper.clippedSum(x, y, 0.05);
    assertThat(batch.sum().norm2Number().doubleValue()).isLessThanOrEqualTo(12 * 0.05 * (1 + 1e-12));
    for (int i = 0; i < 12; i++) {
      assertThat(clipper.clippedSum(x.getRow(i, true), y.getRow(i, true), 0.05).sum().norm2Number().doubleValue())
          .isLessThanOrEqualTo(0.05 * (1 + 1e-12));
    }
  }

  /**
   * A layer's output is the next layer's input, and the rules read their own outputs again in the backward pass
   * (tanh's derivative, {@link ActivationBackprop}): a DL4J {@code DropoutLayer} allowed to modify its input (DL4J's
   * own forward loops leave the flag set) would overwrite it with the masked values.
   */
  @Test
  void parameterFreeLayersNeverOverwriteTheirInput() {
    MultiLayerNetwork net = TinyNetworks.init(TinyNetworks.base(new Sgd(0.1))
        .layer(new DenseLayer.Builder().nIn(6).nOut(8).activation(Activation.TANH).build())
        .layer(new DropoutLayer.Builder(0.5).build())
        .layer(new OutputLayer.Builder(LossFunction.MCXENT).nOut(3).activation(Activation.SOFTMAX).build())
        .setInputType(InputType.feedForward(6)).build());
    net.getLayer(1).allowInputModification(true);
    INDArray in = TinyNetworks.features(17, 12, 8);
    INDArray before = in.dup();
    INDArray out = new NoParameterLayer(net.getLayer(1)).forward(in);
    assertThat(out.equals(in)).as("dropout ran").isFalse();
    assertThat(in.equals(before)).as("input untouched").isTrue();
  }

  @ParameterizedTest
  @EnumSource(ClippingMode.class)
  void everyClippedExampleHasNormAtMostC(ClippingMode mode) {
    MultiLayerNetwork net = TinyNetworks.mlp(LossFunction.MCXENT, Activation.SOFTMAX, new Sgd(0.1));
    INDArray x = TinyNetworks.features(11, 10, 6);
    INDArray y = TinyNetworks.labels(12, 10, 3, true);
    double clip = medianNorm(net, x, y);
    PerExampleClipper clipper = PerExampleClipper.of(net, mode);
    long[] bounds = ExactPerExampleGradients.layerBounds(net);
    for (int i = 0; i < 10; i++) {
      ClippedGradientSum one = clipper.clippedSum(x.getRow(i, true), y.getRow(i, true), clip);
      double norm = one.sum().norm2Number().doubleValue();
      double unclipped = one.perExampleNorms()[0];
      assertThat(norm).isLessThanOrEqualTo(clip * (1 + 1e-12));
      if (mode == ClippingMode.FLAT) {
        // Clipping scales to exactly C, or leaves the gradient alone.
        assertThat(norm).isCloseTo(Math.min(clip, unclipped), org.assertj.core.data.Offset.offset(1e-12 * clip));
      } else {
        for (int l = 0; l + 1 < bounds.length; l++) {
          if (bounds[l + 1] > bounds[l]) {
            double part = one.sum().get(NDArrayIndex.all(), NDArrayIndex.interval(bounds[l], bounds[l + 1]))
                .norm2Number().doubleValue();
            assertThat(part).isLessThanOrEqualTo(clip / Math.sqrt(3) * (1 + 1e-12));
          }
        }
      }
    }
  }

  @Test
  void refusesBatchNormalizationNamingLayerAndAlternative() {
    MultiLayerNetwork net = TinyNetworks.init(TinyNetworks.base(new Sgd(0.1))
        .layer(new DenseLayer.Builder().nIn(4).nOut(3).build())
        .layer(new BatchNormalization.Builder().name("bn").build())
        .layer(new OutputLayer.Builder(LossFunction.MSE).nOut(2).build())
        .setInputType(InputType.feedForward(4)).build());
    assertThatThrownBy(() -> PerExampleClipper.of(net)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("layer 1 'bn' (BatchNormalization)")
        .hasMessageContaining("mixes the examples").hasMessageContaining("normalise the inputs");
  }

  @Test
  void refusesUnsupportedLayersAndBatchGradientNormalisation() {
    MultiLayerNetwork rnn = TinyNetworks.init(TinyNetworks.base(new Sgd(0.1))
        .layer(new GravesBidirectionalLSTM.Builder().nIn(3).nOut(3).build())
        .layer(new RnnOutputLayer.Builder(LossFunction.MSE).nOut(2).build())
        .layer(new OutputLayer.Builder(LossFunction.MSE).nOut(2).build())
        .setInputType(InputType.recurrent(3)).build());
    assertThatThrownBy(() -> PerExampleClipper.of(rnn)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("layer 0 'layer0' (GravesBidirectionalLSTM)")
        .hasMessageContaining("use Bidirectional(GravesLSTM)");
    MultiLayerNetwork normalised = TinyNetworks.init(TinyNetworks.base(new Sgd(0.1))
        .layer(new DenseLayer.Builder().nIn(4).nOut(3)
            .gradientNormalization(GradientNormalization.ClipL2PerLayer).build())
        .layer(new OutputLayer.Builder(LossFunction.MSE).nOut(2).build())
        .setInputType(InputType.feedForward(4)).build());
    assertThatThrownBy(() -> PerExampleClipper.of(normalised)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("layer 0 'layer0' (DenseLayer)").hasMessageContaining("ClipL2PerLayer");
  }

  @Test
  void refusesToClipNonFiniteGradients() {
    MultiLayerNetwork net = TinyNetworks.denseIntoLossLayer(LossFunction.MSE, Activation.IDENTITY);
    INDArray huge = Nd4j.ones(DataType.DOUBLE, 2, 6).muli(1e200);
    assertThatThrownBy(() -> PerExampleClipper.of(net).clippedSum(huge, Nd4j.zeros(DataType.DOUBLE, 2, 3), 1.0))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("NaN or infinite");
  }

  @Test
  void rejectsNonPositiveClipNorm() {
    MultiLayerNetwork net = TinyNetworks.denseIntoLossLayer(LossFunction.MSE, Activation.IDENTITY);
    PerExampleClipper clipper = PerExampleClipper.of(net);
    assertThatThrownBy(() -> clipper.clippedSum(Nd4j.zeros(2, 6), Nd4j.zeros(2, 3), 0.0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("clipNorm must be finite and > 0, was 0.0");
  }

  @ParameterizedTest
  @EnumSource(ClippingMode.class)
  void frozenLayersGetZerosAndNoNormInAMultiLayerNetwork(ClippingMode mode) {
    // A frozen layer between trainable ones (errors pass through it), and a feature extractor frozen by
    // TransferLearning (no errors pass): both match DL4J's own gradients, whose frozen entries are zero.
    MultiLayerNetwork middle = TinyNetworks.init(TinyNetworks.base(new Sgd(0.1))
        .layer(new DenseLayer.Builder().nIn(6).nOut(5).activation(Activation.TANH).build())
        .layer(new FrozenLayerWithBackprop(new DenseLayer.Builder().nIn(5).nOut(4).activation(Activation.SIGMOID)
            .build()))
        .layer(new OutputLayer.Builder(LossFunction.MCXENT).nIn(4).nOut(3).activation(Activation.SOFTMAX).build())
        .build());
    MultiLayerNetwork extractor = new TransferLearning.Builder(
        TinyNetworks.mlp(LossFunction.MCXENT, Activation.SOFTMAX, new Sgd(0.1))).setFeatureExtractor(1).build();
    assertThat(extractor.getLayer(0)).isInstanceOf(org.deeplearning4j.nn.layers.FrozenLayer.class);
    for (MultiLayerNetwork net : new MultiLayerNetwork[] {middle, extractor}) {
      INDArray x = TinyNetworks.features(21, 9, 6);
      INDArray y = TinyNetworks.labels(22, 9, 3, true);
      PerExampleClipper clipper = PerExampleClipper.of(net, mode);
      assertThat(clipper.isFused()).isFalse();
      assertMatchesReference(clipper, net, x, y, mode);
      INDArray target = Nd4j.ones(DataType.DOUBLE, 1, net.numParams());
      clipper.clippedSum(x, y, 0.1, target);
      long frozenParams = net == middle ? 24 : 35;
      long start = net == middle ? 35 : 0;
      assertThat(target.get(NDArrayIndex.all(), NDArrayIndex.interval(start, start + frozenParams)).amaxNumber()
          .doubleValue()).isZero();
    }
  }

  @Test
  void addClippedSumAccumulatesIntoTheNetworksOwnGradientView() {
    // DL4J's backprop of the second convolution writes into the network's gradient view during the pass; what
    // was added there before must survive.
    MultiLayerNetwork net = TinyNetworks.cnn(new int[] {1, 1}, new int[] {0, 0}, new int[] {1, 1},
        ConvolutionMode.Truncate);
    INDArray x = TinyNetworks.features(31, 8, 49);
    INDArray y = TinyNetworks.labels(32, 8, 3, true);
    PerExampleClipper clipper = PerExampleClipper.of(net);
    INDArray whole = clipper.clippedSum(x, y, 0.1).sum().dup();
    INDArray view = net.getFlattenedGradients();
    view.assign(0.0);
    clipper.addClippedSum(x.get(NDArrayIndex.interval(0, 3)), y.get(NDArrayIndex.interval(0, 3)), 0.1, view);
    clipper.addClippedSum(x.get(NDArrayIndex.interval(3, 8)), y.get(NDArrayIndex.interval(3, 8)), 0.1, view);
    assertThat(view.sub(whole).amaxNumber().doubleValue())
        .isLessThanOrEqualTo(1e-12 * whole.amaxNumber().doubleValue());
  }
}
