package org.dp4j.clipping;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.lossfunctions.LossFunctions.LossFunction;

/**
 * Several views per example ({@link PerExampleClipper#clippedSumOfViews}) against a reference built here from DL4J's
 * own gradient of each row alone ({@link ExactPerExampleGradients#perExample}): the K rows of an example averaged,
 * the mean clipped once (flat, or per layer at C/√L), the clipped means summed. Double precision, 1e-10 relative.
 */
class AugmentationMultiplicityTest {

  @BeforeAll
  static void doublePrecision() {
    Nd4j.setDefaultDataTypes(DataType.DOUBLE, DataType.DOUBLE);
  }

  /** Σ_e clip(mean of rows e·K … e·K + K − 1 of the per-row gradients g), with each example's norm. */
  private static INDArray[] reference(MultiLayerNetwork net, INDArray g, int views, double clip, ClippingMode mode) {
    int examples = (int) g.size(0) / views;
    long[] bounds = ExactPerExampleGradients.layerBounds(net);
    INDArray sum = Nd4j.zeros(DataType.DOUBLE, 1, g.size(1));
    INDArray norms = Nd4j.zeros(DataType.DOUBLE, examples);
    for (int e = 0; e < examples; e++) {
      INDArray mean = g.get(NDArrayIndex.interval(e * views, (e + 1) * views), NDArrayIndex.all()).mean(0);
      double norm = mean.norm2Number().doubleValue();
      norms.putScalar(e, norm);
      if (mode == ClippingMode.FLAT) {
        mean.muli(Math.min(1.0, clip / norm));
      } else {
        double layerClip = clip / Math.sqrt(bounds.length - 1);
        for (int l = 0; l + 1 < bounds.length; l++) {
          INDArray part = mean.get(NDArrayIndex.interval(bounds[l], bounds[l + 1]));
          part.muli(Math.min(1.0, layerClip / part.norm2Number().doubleValue()));
        }
      }
      sum.addi(mean.reshape(1, mean.length()));
    }
    return new INDArray[] {sum, norms};
  }

  private static double relativeError(INDArray actual, INDArray expected) {
    return actual.sub(expected).amaxNumber().doubleValue() / expected.amaxNumber().doubleValue();
  }

  @ParameterizedTest
  @CsvSource({"2, FLAT", "3, FLAT", "2, PER_LAYER", "4, PER_LAYER"})
  void equalsTheClippedMeanOfDl4jsGradientsOfTheViews(int views, ClippingMode mode) {
    MultiLayerNetwork net = FusedDenseClipperTest.denseStack(DataType.DOUBLE, LossFunction.MCXENT,
        Activation.SOFTMAX);
    int examples = 10;
    INDArray x = TinyNetworks.features(21, examples * views, 6);
    // Labels repeated for the views of each example, as the trainer lays them out.
    INDArray perExample = TinyNetworks.labels(22, examples, 3, true);
    INDArray y = Nd4j.zeros(DataType.DOUBLE, examples * views, 3);
    for (int r = 0; r < examples * views; r++) {
      y.getRow(r).assign(perExample.getRow(r / views));
    }
    INDArray g = ExactPerExampleGradients.perExample(net, x, y);
    double[] norms = reference(net, g, views, 1e9, ClippingMode.FLAT)[1].toDoubleVector();
    double[] sorted = norms.clone();
    Arrays.sort(sorted);
    double clip = (sorted[4] + sorted[5]) / 2;     // about half of the examples clipped
    INDArray[] expected = reference(net, g, views, clip, mode);
    PerExampleClipper clipper = PerExampleClipper.of(net, mode);
    ClippedGradientSum actual = clipper.clippedSumOfViews(x, y, views, clip,
        Nd4j.zeros(DataType.DOUBLE, 1, net.numParams()), false);
    assertThat(relativeError(actual.sum(), expected[0])).isLessThanOrEqualTo(1e-10);
    assertThat(actual.batchSize()).isEqualTo(examples);
    double[] actualNorms = actual.perExampleNorms();
    for (int e = 0; e < examples; e++) {
      assertThat(actualNorms[e]).as("norm of example %s", e).isCloseTo(norms[e],
          org.assertj.core.data.Offset.offset(1e-10 * norms[e]));
    }
    if (mode == ClippingMode.FLAT) {
      assertThat(actual.clippedCount()).isEqualTo((int) Arrays.stream(norms).filter(n -> n > clip).count());
    }
    // The mean is not the per-row clipping: clipping each view alone gives another sum.
    ClippedGradientSum perRow = clipper.clippedSum(x, y, clip);
    assertThat(relativeError(perRow.sum(), expected[0])).isGreaterThan(1e-3);
  }

  @Test
  void eachExampleMovesTheSumByAtMostC() {
    MultiLayerNetwork net = FusedDenseClipperTest.denseStack(DataType.DOUBLE, LossFunction.MCXENT,
        Activation.SOFTMAX);
    INDArray x = TinyNetworks.features(23, 16, 6).muli(30);
    INDArray y = TinyNetworks.labels(24, 16, 3, true);
    PerExampleClipper clipper = PerExampleClipper.of(net);
    INDArray all = Nd4j.zeros(DataType.DOUBLE, 1, net.numParams());
    clipper.clippedSumOfViews(x, y, 2, 0.2, all, false);
    for (int e = 0; e < 8; e++) {
      int removed = e;
      int[] kept = java.util.stream.IntStream.range(0, 16).filter(r -> r / 2 != removed).toArray();
      INDArray rows = Nd4j.pullRows(x, 1, kept);
      INDArray labels = Nd4j.pullRows(y, 1, kept);
      INDArray without = Nd4j.zeros(DataType.DOUBLE, 1, net.numParams());
      clipper.clippedSumOfViews(rows, labels, 2, 0.2, without, false);
      assertThat(all.sub(without).norm2Number().doubleValue()).as("example %s", e)
          .isLessThanOrEqualTo(0.2 * (1 + 1e-12));
    }
  }

  /**
   * Views whose gradients nearly cancel (x and −x + p with ‖x‖ ≈ 3·10⁴, float32): the mean is small, the Gram sum a
   * difference of terms ≈ 10⁹ times larger. In float32 it came out negative (NaN norms) or too small (a clipped term
   * of norm 1.2–4.9 C); the double sum with its rounding bound keeps every example's term within C.
   */
  @Test
  void nearlyCancellingViewsInFloat32StayWithinC() {
    MultiLayerNetwork net = TinyNetworks.init(new org.deeplearning4j.nn.conf.NeuralNetConfiguration.Builder().seed(3)
        .dataType(DataType.FLOAT).updater(new Sgd(0.1)).weightInit(org.deeplearning4j.nn.weights.WeightInit.ZERO)
        .list().layer(new org.deeplearning4j.nn.conf.layers.OutputLayer.Builder(LossFunction.MCXENT).nIn(300).nOut(10)
            .activation(Activation.SOFTMAX).hasBias(false).build()).build());
    PerExampleClipper clipper = PerExampleClipper.of(net);
    for (int trial = 0; trial < 100; trial++) {
      INDArray x = TinyNetworks.features(100 + trial, 1, 300).castTo(DataType.FLOAT).muli(3000);
      INDArray p = TinyNetworks.features(200 + trial, 1, 300).castTo(DataType.FLOAT)
          .muli(trial % 2 == 0 ? 1e-3 : 0);
      INDArray views = Nd4j.vstack(x, x.neg().addi(p));
      INDArray y = Nd4j.zeros(DataType.FLOAT, 2, 10);
      y.putScalar(0, trial % 10, 1f);
      y.putScalar(1, trial % 10, 1f);
      INDArray sum = Nd4j.zeros(DataType.FLOAT, 1, net.numParams());
      ClippedGradientSum result = clipper.clippedSumOfViews(views, y, 2, 1.0, sum, false);
      assertThat(result.perExampleNorms()[0]).as("trial %s", trial).isFinite();
      assertThat(sum.castTo(DataType.DOUBLE).norm2Number().doubleValue()).as("trial %s", trial)
          .isLessThanOrEqualTo(1.0 + 1e-5);
    }
  }

  @Test
  void anOffsetViewOfOneExampleIsReadAsItsRows() {
    MultiLayerNetwork net = FusedDenseClipperTest.denseStack(DataType.DOUBLE, LossFunction.MCXENT,
        Activation.SOFTMAX);
    // Rows 3-4 and columns 1-6 of a wider array: an offset, strided view.
    INDArray view = TinyNetworks.features(31, 5, 8).get(NDArrayIndex.interval(3, 5), NDArrayIndex.interval(1, 7));
    INDArray y = TinyNetworks.labels(32, 2, 3, true);
    INDArray expected = Nd4j.zeros(DataType.DOUBLE, 1, net.numParams());
    PerExampleClipper clipper = PerExampleClipper.of(net);
    clipper.clippedSumOfViews(view.dup('c'), y, 2, 0.2, expected, false);
    INDArray fromView = Nd4j.zeros(DataType.DOUBLE, 1, net.numParams());
    clipper.clippedSumOfViews(view, y, 2, 0.2, fromView, false);
    assertThat(relativeError(fromView, expected)).isLessThanOrEqualTo(1e-12);
  }

  @Test
  void oneViewIsThePerRowSumAndAccumulates() {
    MultiLayerNetwork net = FusedDenseClipperTest.denseStack(DataType.DOUBLE, LossFunction.MCXENT,
        Activation.SOFTMAX);
    INDArray x = TinyNetworks.features(25, 12, 6);
    INDArray y = TinyNetworks.labels(26, 12, 3, true);
    PerExampleClipper clipper = PerExampleClipper.of(net);
    INDArray single = clipper.clippedSum(x, y, 0.3).sum().dup();
    INDArray viaViews = Nd4j.zeros(DataType.DOUBLE, 1, net.numParams());
    clipper.clippedSumOfViews(x, y, 1, 0.3, viaViews, false);
    assertThat(relativeError(viaViews, single)).isLessThanOrEqualTo(1e-12);
    INDArray twice = Nd4j.zeros(DataType.DOUBLE, 1, net.numParams());
    clipper.clippedSumOfViews(x.get(NDArrayIndex.interval(0, 6)), y.get(NDArrayIndex.interval(0, 6)), 2, 0.3,
        twice, false);
    clipper.clippedSumOfViews(x.get(NDArrayIndex.interval(6, 12)), y.get(NDArrayIndex.interval(6, 12)), 2, 0.3,
        twice, true);
    INDArray whole = Nd4j.zeros(DataType.DOUBLE, 1, net.numParams());
    clipper.clippedSumOfViews(x, y, 2, 0.3, whole, false);
    assertThat(relativeError(twice, whole)).isLessThanOrEqualTo(1e-12);
  }

  @Test
  void refusesOtherNetworksAndPartialExamples() {
    MultiLayerNetwork withDropout = TinyNetworks.mlp(LossFunction.MCXENT, Activation.SOFTMAX, new Sgd(0.1));
    INDArray x = TinyNetworks.features(27, 4, (int) withDropout.layerInputSize(0));
    INDArray y = TinyNetworks.labels(28, 4, (int) withDropout.getLayer(withDropout.getnLayers() - 1)
        .getParam("b").length(), true);
    assertThatThrownBy(() -> PerExampleClipper.of(withDropout).clippedSumOfViews(x, y, 2, 1.0,
        Nd4j.zeros(DataType.DOUBLE, 1, withDropout.numParams()), false))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("fused dense path");
    MultiLayerNetwork net = FusedDenseClipperTest.denseStack(DataType.DOUBLE, LossFunction.MCXENT,
        Activation.SOFTMAX);
    assertThatThrownBy(() -> PerExampleClipper.of(net).clippedSumOfViews(TinyNetworks.features(29, 5, 6),
        TinyNetworks.labels(30, 5, 3, true), 2, 1.0, Nd4j.zeros(DataType.DOUBLE, 1, net.numParams()), false))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("whole number");
  }
}
