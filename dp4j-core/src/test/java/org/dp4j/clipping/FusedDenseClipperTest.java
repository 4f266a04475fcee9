package org.dp4j.clipping;

import static org.assertj.core.api.Assertions.assertThat;

import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
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
import org.nd4j.linalg.indexing.NDArrayIndex;
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.lossfunctions.LossFunctions.LossFunction;

/**
 * The fused dense path against DL4J's own per-example gradients ({@link ExactPerExampleGradients}, one example at a
 * time through DL4J's layers: an independent code path) and against the layer-by-layer path: double precision to
 * 1e-10 relative, float32 to 1e-4 relative.
 */
class FusedDenseClipperTest {

  @BeforeAll
  static void doublePrecision() {
    Nd4j.setDefaultDataTypes(DataType.DOUBLE, DataType.DOUBLE);
  }

  /** 6 → 5 (ReLU) → 4 (tanh, no bias) → 3 output. */
  static MultiLayerNetwork denseStack(DataType type, LossFunction loss, Activation output) {
    return TinyNetworks.init(new NeuralNetConfiguration.Builder().seed(11).dataType(type).updater(new Sgd(0.1))
        .weightInit(WeightInit.XAVIER).list()
        .layer(new DenseLayer.Builder().nIn(6).nOut(5).activation(Activation.RELU).build())
        .layer(new DenseLayer.Builder().nOut(4).activation(Activation.TANH).hasBias(false).build())
        .layer(new OutputLayer.Builder(loss).nOut(3).activation(output).build())
        .setInputType(InputType.feedForward(6)).build());
  }

  private static double maxRelativeError(INDArray actual, INDArray expected) {
    return actual.castTo(DataType.DOUBLE).sub(expected.castTo(DataType.DOUBLE)).amaxNumber().doubleValue()
        / expected.amaxNumber().doubleValue();
  }

  private static void assertSameSum(ClippedGradientSum actual, ClippedGradientSum expected, double tolerance) {
    assertThat(maxRelativeError(actual.sum(), expected.sum())).isLessThanOrEqualTo(tolerance);
    double[] a = actual.perExampleNorms();
    double[] e = expected.perExampleNorms();
    for (int i = 0; i < e.length; i++) {
      assertThat(Math.abs(a[i] - e[i])).as("norm of example %s", i).isLessThanOrEqualTo(tolerance * e[i]);
    }
    assertThat(actual.clippedCount()).isEqualTo(expected.clippedCount());
  }

  @ParameterizedTest
  @EnumSource(ClippingMode.class)
  void matchesExactReferenceAndGenericPathInDouble(ClippingMode mode) {
    MultiLayerNetwork net = denseStack(DataType.DOUBLE, LossFunction.MCXENT, Activation.SOFTMAX);
    INDArray x = TinyNetworks.features(1, 12, 6);
    INDArray y = TinyNetworks.labels(2, 12, 3, true);
    // Clip at the median exact norm: about half of the examples are clipped.
    double[] norms = ExactPerExampleGradients.clippedSum(net, x, y, 1.0, ClippingMode.FLAT).perExampleNorms();
    java.util.Arrays.sort(norms);
    double clip = (norms[5] + norms[6]) / 2;
    PerExampleClipper fused = PerExampleClipper.of(net, mode);
    assertThat(fused.isFused()).isTrue();
    assertThat(PerExampleClipper.generic(net, mode).isFused()).isFalse();
    ClippedGradientSum exact = ExactPerExampleGradients.clippedSum(net, x, y, clip, mode);
    assertThat(exact.clippedCount()).isBetween(1, 11);
    assertSameSum(fused.clippedSum(x, y, clip), exact, 1e-10);
    assertSameSum(PerExampleClipper.generic(net, mode).clippedSum(x, y, clip), exact, 1e-10);
  }

  @ParameterizedTest
  @EnumSource(value = LossFunction.class, names = {"MSE", "XENT", "L1"})
  void matchesExactReferenceForOtherLosses(LossFunction loss) {
    Activation output = loss == LossFunction.XENT ? Activation.SIGMOID : Activation.IDENTITY;
    MultiLayerNetwork net = denseStack(DataType.DOUBLE, loss, output);
    INDArray x = TinyNetworks.features(3, 9, 6);
    INDArray y = TinyNetworks.labels(4, 9, 3, false);
    ClippedGradientSum exact = ExactPerExampleGradients.clippedSum(net, x, y, 0.3, ClippingMode.FLAT);
    assertSameSum(PerExampleClipper.of(net).clippedSum(x, y, 0.3), exact, 1e-10);
  }

  @Test
  void float32MatchesExactReferenceToFloatTolerance() {
    MultiLayerNetwork net = denseStack(DataType.FLOAT, LossFunction.MCXENT, Activation.SOFTMAX);
    INDArray x = TinyNetworks.features(5, 40, 6).castTo(DataType.FLOAT);
    INDArray y = TinyNetworks.labels(6, 40, 3, true).castTo(DataType.FLOAT);
    ClippedGradientSum exact = ExactPerExampleGradients.clippedSum(net, x, y, 0.4, ClippingMode.FLAT);
    ClippedGradientSum fused = PerExampleClipper.of(net).clippedSum(x, y, 0.4);
    assertThat(fused.sum().dataType()).isEqualTo(DataType.FLOAT);
    assertSameSum(fused, exact, 1e-4);
  }

  @Test
  void everyExampleAloneIsClippedToAtMostC() {
    MultiLayerNetwork net = denseStack(DataType.FLOAT, LossFunction.MCXENT, Activation.SOFTMAX);
    INDArray x = TinyNetworks.features(7, 16, 6).castTo(DataType.FLOAT).muli(20);
    INDArray y = TinyNetworks.labels(8, 16, 3, true).castTo(DataType.FLOAT);
    PerExampleClipper clipper = PerExampleClipper.of(net);
    double clip = 0.25;
    for (int i = 0; i < 16; i++) {
      ClippedGradientSum one = clipper.clippedSum(x.get(NDArrayIndex.interval(i, i + 1)),
          y.get(NDArrayIndex.interval(i, i + 1)), clip);
      double norm = one.sum().castTo(DataType.DOUBLE).norm2Number().doubleValue();
      // float32 rounding of the scale factor and the sums: 1e-5 relative.
      assertThat(norm).as("example %s", i).isLessThanOrEqualTo(clip * (1 + 1e-5));
      assertThat(one.clippedCount()).isEqualTo(one.perExampleNorms()[0] > clip ? 1 : 0);
    }
  }

  @ParameterizedTest
  @EnumSource(ClippingMode.class)
  void microBatchesAddUpToTheWholeBatchOnBothPaths(ClippingMode mode) {
    MultiLayerNetwork net = denseStack(DataType.DOUBLE, LossFunction.MCXENT, Activation.SOFTMAX);
    INDArray x = TinyNetworks.features(9, 23, 6);
    INDArray y = TinyNetworks.labels(10, 23, 3, true);
    ClippedGradientSum whole = ExactPerExampleGradients.clippedSum(net, x, y, 0.4, mode);
    for (PerExampleClipper clipper : new PerExampleClipper[] {PerExampleClipper.of(net, mode),
        PerExampleClipper.generic(net, mode)}) {
      INDArray sum = Nd4j.zeros(DataType.DOUBLE, 1, net.numParams());
      // Uneven sizes, growing and shrinking (the fused path's buffers are reused across sizes), one empty.
      int[] bounds = {0, 3, 3, 14, 16, 23};
      for (int b = 0; b + 1 < bounds.length; b++) {
        clipper.addClippedSum(x.get(NDArrayIndex.interval(bounds[b], bounds[b + 1])),
            y.get(NDArrayIndex.interval(bounds[b], bounds[b + 1])), 0.4, sum);
      }
      assertThat(maxRelativeError(sum, whole.sum())).isLessThanOrEqualTo(1e-10);
    }
  }

  @Test
  void dropoutOrOtherLayersFallBackToTheGenericPath() {
    MultiLayerNetwork withDropout = TinyNetworks.mlp(LossFunction.MCXENT, Activation.SOFTMAX, new Sgd(0.1));
    assertThat(PerExampleClipper.of(withDropout).isFused()).isFalse();
    assertThat(PerExampleClipper.of(TinyNetworks.cnnIntoDense()).isFused()).isFalse();
    assertThat(PerExampleClipper.of(TinyNetworks.denseIntoLossLayer(LossFunction.MSE, Activation.IDENTITY))
        .isFused()).isFalse();
  }
}
