package org.dp4j.clipping;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.deeplearning4j.nn.conf.BackpropType;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.RNNFormat;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.GravesLSTM;
import org.deeplearning4j.nn.conf.layers.LSTM;
import org.deeplearning4j.nn.conf.layers.Layer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.conf.layers.RnnLossLayer;
import org.deeplearning4j.nn.conf.layers.RnnOutputLayer;
import org.deeplearning4j.nn.conf.layers.recurrent.Bidirectional;
import org.deeplearning4j.nn.conf.layers.recurrent.LastTimeStep;
import org.deeplearning4j.nn.conf.layers.recurrent.SimpleRnn;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
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
 * The recurrent rules against DL4J's own backprop on one example at a time (an independent code path), in double
 * precision to 1e-10 relative. With feature masks (uneven, end-padded sequences) the reference is DL4J's gradient of
 * each example alone, cut to its own length and without any mask: what "a padded step contributes nothing" means.
 */
class RecurrentClipperTest {
  private static final double TOLERANCE = 1e-10;
  static final int N = 6;
  static final int STEPS = 5;
  static final int[] LENGTHS = {5, 3, 1, 4, 2, 5};

  @BeforeAll
  static void doublePrecision() {
    Nd4j.setDefaultDataTypes(DataType.DOUBLE, DataType.DOUBLE);
  }

  private static MultiLayerNetwork net(DataType type, Layer... layers) {
    NeuralNetConfiguration.ListBuilder list = new NeuralNetConfiguration.Builder().seed(11).dataType(type)
        .updater(new Sgd(0.1)).list();
    for (Layer layer : layers) {
      list.layer(layer);
    }
    MultiLayerNetwork net = new MultiLayerNetwork(list.setInputType(InputType.recurrent(3)).build());
    net.init();
    // Non-zero biases everywhere, so that every term of the gradient is exercised.
    net.params().addi(Nd4j.rand(DataType.DOUBLE, net.params().shape()).subi(0.5).muli(0.4).castTo(type));
    return net;
  }

  static INDArray lengthMask() {
    INDArray mask = Nd4j.zeros(DataType.DOUBLE, N, STEPS);
    for (int i = 0; i < N; i++) {
      mask.get(NDArrayIndex.point(i), NDArrayIndex.interval(0, LENGTHS[i])).assign(1.0);
    }
    return mask;
  }

  static INDArray sequenceLabels(int classes) {
    INDArray labels = Nd4j.zeros(DataType.DOUBLE, N, classes, STEPS);
    for (int i = 0; i < N; i++) {
      for (int t = 0; t < STEPS; t++) {
        labels.putScalar(new int[] {i, (i + 2 * t) % classes, t}, 1.0);
      }
    }
    return labels;
  }

  /**
   * Row i: DL4J's gradient of example i alone, its sequence cut to {@code lengths[i]} steps (null: all), labels cut
   * alike when they are a time series, with the given label mask row (null: none).
   */
  private static INDArray reference(MultiLayerNetwork net, INDArray x, INDArray y, int[] lengths, INDArray labelMask) {
    INDArray rows = Nd4j.create(DataType.DOUBLE, N, net.numParams());
    for (int i = 0; i < N; i++) {
      long len = lengths == null ? x.size(2) : lengths[i];
      INDArray xi = x.get(NDArrayIndex.interval(i, i + 1), NDArrayIndex.all(), NDArrayIndex.interval(0, len)).dup();
      INDArray yi = y.rank() == 3
          ? y.get(NDArrayIndex.interval(i, i + 1), NDArrayIndex.all(), NDArrayIndex.interval(0, len)).dup()
          : y.get(NDArrayIndex.interval(i, i + 1), NDArrayIndex.all()).dup();
      net.setInput(xi);
      net.setLabels(yi);
      net.setLayerMaskArrays(null, labelMask == null ? null
          : labelMask.get(NDArrayIndex.interval(i, i + 1), NDArrayIndex.interval(0, len)).dup());
      net.computeGradientAndScore();
      rows.getRow(i).assign(net.gradient().gradient().reshape(net.numParams()).castTo(DataType.DOUBLE));
      net.clearLayerMaskArrays();
    }
    return rows;
  }

  /** Checks norms and the flat-clipped sum (C between two middle norms) against the reference rows. */
  private static void assertMatches(MultiLayerNetwork net, INDArray x, INDArray y, INDArray featureMask,
      INDArray labelMask, INDArray referenceRows, double tolerance) {
    double clip = clipBetweenMiddleNorms(referenceRows);
    DataType type = net.params().dataType();
    INDArray target = Nd4j.create(type, 1, net.numParams());
    ClippedGradientSum fast = PerExampleClipper.of(net).clippedSum(x.castTo(type), y.castTo(type),
        featureMask == null ? null : featureMask.castTo(type), labelMask == null ? null : labelMask.castTo(type),
        clip, target, false);
    assertMatches(fast, referenceRows, clip, tolerance);
  }

  /** A clip norm halfway between the two middle norms of the reference rows: half of the examples are clipped. */
  static double clipBetweenMiddleNorms(INDArray referenceRows) {
    double[] sorted = referenceRows.norm2(1).toDoubleVector();
    java.util.Arrays.sort(sorted);
    return (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
  }

  /** The norms and the flat-clipped sum Σ_i min(1, C/‖g_i‖) g_i of the reference rows g_i, to a relative tolerance. */
  static void assertMatches(ClippedGradientSum fast, INDArray referenceRows, double clip, double tolerance) {
    INDArray norms = referenceRows.norm2(1);
    INDArray factors = ClipFactors.of(norms.dup(), clip);
    INDArray expectedSum = referenceRows.mulColumnVector(factors.reshape(norms.length(), 1)).sum(true, 0);
    double[] fastNorms = fast.perExampleNorms();
    for (int i = 0; i < norms.length(); i++) {
      assertThat(fastNorms[i]).as("norm of example %s", i)
          .isCloseTo(norms.getDouble(i), org.assertj.core.data.Offset.offset(tolerance * norms.getDouble(i)));
    }
    double scale = expectedSum.amaxNumber().doubleValue();
    assertThat(scale).isPositive();
    double error = fast.sum().castTo(DataType.DOUBLE).sub(expectedSum).amaxNumber().doubleValue();
    assertThat(error / scale).as("max relative error of the clipped sum").isLessThanOrEqualTo(tolerance);
    assertThat(fast.clippedCount()).isEqualTo(norms.length() / 2);
  }

  private static RnnOutputLayer rnnOutput(int nIn) {
    return new RnnOutputLayer.Builder(LossFunction.MCXENT).nIn(nIn).nOut(4).activation(Activation.SOFTMAX).build();
  }

  @Test
  void lstmIntoRnnOutputLayerMatchesDl4j() {
    MultiLayerNetwork net = net(DataType.DOUBLE, new LSTM.Builder().nIn(3).nOut(5).activation(Activation.TANH)
        .build(), rnnOutput(5));
    INDArray x = TinyNetworks.features(3, N, 3, STEPS);
    INDArray y = sequenceLabels(4);
    assertMatches(net, x, y, null, null, reference(net, x, y, null, null), TOLERANCE);
  }

  @Test
  void normsInBoundedChunksOfExamplesMatchDl4j() {
    // A chunk bound of one element: the per-example Gram or gradient arrays are formed one example at a time.
    MultiLayerNetwork net = net(DataType.DOUBLE, new LSTM.Builder().nIn(3).nOut(5).build(),
        new SimpleRnn.Builder().nIn(5).nOut(3).build(), rnnOutput(3));
    INDArray x = TinyNetworks.features(17, N, 3, STEPS);
    INDArray y = sequenceLabels(4);
    INDArray rows = reference(net, x, y, null, null);
    double clip = clipBetweenMiddleNorms(rows);
    ClippedGradientSum chunked = PerExampleClipper.of(net, ClippingMode.FLAT, 1).clippedSum(x, y, clip);
    assertMatches(chunked, rows, clip, TOLERANCE);
  }

  @Test
  void gravesLstmWithPeepholesAndSoftsignMatchesDl4j() {
    MultiLayerNetwork net = net(DataType.DOUBLE, new GravesLSTM.Builder().nIn(3).nOut(4)
        .activation(Activation.SOFTSIGN).gateActivationFunction(Activation.HARDSIGMOID).build(), rnnOutput(4));
    INDArray x = TinyNetworks.features(4, N, 3, STEPS).muli(0.3);
    INDArray y = sequenceLabels(4);
    assertMatches(net, x, y, null, null, reference(net, x, y, null, null), TOLERANCE);
  }

  @Test
  void stackedSimpleRnnAndLstmIntoRnnLossLayerMatchesDl4j() {
    MultiLayerNetwork net = net(DataType.DOUBLE,
        new SimpleRnn.Builder().nIn(3).nOut(4).activation(Activation.TANH).build(),
        new LSTM.Builder().nIn(4).nOut(3).build(),
        new RnnLossLayer.Builder(LossFunction.MSE).activation(Activation.IDENTITY).build());
    INDArray x = TinyNetworks.features(5, N, 3, STEPS);
    INDArray y = TinyNetworks.features(6, N, 3, STEPS);
    assertMatches(net, x, y, null, null, reference(net, x, y, null, null), TOLERANCE);
  }

  @Test
  void unevenLengthsWithFeatureAndLabelMasksMatchEachExampleAlone() {
    MultiLayerNetwork net = net(DataType.DOUBLE, new LSTM.Builder().nIn(3).nOut(4).build(),
        new GravesLSTM.Builder().nIn(4).nOut(3).build(), rnnOutput(3));
    INDArray x = TinyNetworks.features(7, N, 3, STEPS);
    INDArray y = sequenceLabels(4);
    INDArray mask = lengthMask();
    assertMatches(net, x, y, mask, mask, reference(net, x, y, LENGTHS, null), TOLERANCE);
  }

  @Test
  void labelMaskAloneSelectsLossTermsAsDl4jDoes() {
    MultiLayerNetwork net = net(DataType.DOUBLE, new SimpleRnn.Builder().nIn(3).nOut(4).build(), rnnOutput(4));
    INDArray x = TinyNetworks.features(8, N, 3, STEPS);
    INDArray y = sequenceLabels(4);
    INDArray labelMask = Nd4j.ones(DataType.DOUBLE, N, STEPS);
    labelMask.putScalar(0, 1, 0.0);
    labelMask.putScalar(2, 4, 0.0);
    labelMask.putScalar(3, 0, 0.0);
    labelMask.putScalar(3, 3, 0.0);
    assertMatches(net, x, y, null, labelMask, reference(net, x, y, null, labelMask), TOLERANCE);
  }

  @Test
  void lastTimeStepWithMasksTakesEachExamplesLastStep() {
    MultiLayerNetwork net = net(DataType.DOUBLE, new LastTimeStep(new LSTM.Builder().nIn(3).nOut(5).build()),
        new OutputLayer.Builder(LossFunction.MCXENT).nIn(5).nOut(3).activation(Activation.SOFTMAX).build());
    INDArray x = TinyNetworks.features(9, N, 3, STEPS);
    INDArray y = TinyNetworks.labels(10, N, 3, true);
    INDArray mask = lengthMask();
    INDArray cut = reference(net, x, y, LENGTHS, null);
    assertMatches(net, x, y, mask, null, cut, TOLERANCE);
    assertMatches(net, x, y, null, null, reference(net, x, y, null, null), TOLERANCE);
  }

  @ParameterizedTest
  @EnumSource(Bidirectional.Mode.class)
  void bidirectionalInEveryModeMatchesDl4j(Bidirectional.Mode mode) {
    MultiLayerNetwork net = net(DataType.DOUBLE,
        new Bidirectional(mode, new LSTM.Builder().nIn(3).nOut(3).build()),
        new Bidirectional(mode, new SimpleRnn.Builder().nIn(mode == Bidirectional.Mode.CONCAT ? 6 : 3).nOut(2)
            .build()),
        rnnOutput(mode == Bidirectional.Mode.CONCAT ? 4 : 2));
    INDArray x = TinyNetworks.features(12, N, 3, STEPS);
    INDArray y = sequenceLabels(4);
    assertMatches(net, x, y, null, null, reference(net, x, y, null, null), TOLERANCE);
    // Masked: the backward copy reads the reversed, padded sequence; each example alone, cut to its length, is the
    // reference (DL4J's own LSTM backprop ignores the mask, so its masked batch gradient is not).
    INDArray mask = lengthMask();
    assertMatches(net, x, y, mask, mask, reference(net, x, y, LENGTHS, null), TOLERANCE);
  }

  @Test
  void nwcLayoutMatchesDl4j() {
    MultiLayerNetwork net = new MultiLayerNetwork(new NeuralNetConfiguration.Builder().seed(3)
        .dataType(DataType.DOUBLE).updater(new Sgd(0.1)).list()
        .layer(new LSTM.Builder().nIn(3).nOut(4).dataFormat(RNNFormat.NWC).build())
        .layer(new RnnOutputLayer.Builder(LossFunction.MSE).nIn(4).nOut(2).activation(Activation.TANH)
            .dataFormat(RNNFormat.NWC).build())
        .build());
    net.init();
    INDArray x = TinyNetworks.features(13, N, STEPS, 3);
    INDArray y = TinyNetworks.features(14, N, STEPS, 2);
    INDArray rows = Nd4j.create(DataType.DOUBLE, N, net.numParams());
    for (int i = 0; i < N; i++) {
      net.setInput(x.get(NDArrayIndex.interval(i, i + 1), NDArrayIndex.all(), NDArrayIndex.all()).dup());
      net.setLabels(y.get(NDArrayIndex.interval(i, i + 1), NDArrayIndex.all(), NDArrayIndex.all()).dup());
      net.computeGradientAndScore();
      rows.getRow(i).assign(net.gradient().gradient().reshape(net.numParams()));
    }
    assertMatches(net, x, y, null, null, rows, TOLERANCE);
  }

  @Test
  void floatMatchesDl4jToSinglePrecision() {
    MultiLayerNetwork net = net(DataType.FLOAT, new LSTM.Builder().nIn(3).nOut(5).build(),
        new LastTimeStep(new SimpleRnn.Builder().nIn(5).nOut(4).build()),
        new OutputLayer.Builder(LossFunction.MCXENT).nIn(4).nOut(3).activation(Activation.SOFTMAX).build());
    INDArray x = TinyNetworks.features(15, N, 3, STEPS).castTo(DataType.FLOAT);
    INDArray y = TinyNetworks.labels(16, N, 3, true).castTo(DataType.FLOAT);
    assertMatches(net, x, y, null, null, reference(net, x, y, null, null), 2e-5);
  }

  @Test
  void refusesTruncatedBpttDenseLayersOnTimeSeriesAndRecurrentDropout() {
    MultiLayerNetwork tbptt = new MultiLayerNetwork(new NeuralNetConfiguration.Builder().list()
        .layer(new LSTM.Builder().nIn(3).nOut(3).build()).layer(rnnOutput(3))
        .backpropType(BackpropType.TruncatedBPTT).tBPTTLength(2).build());
    tbptt.init();
    assertThatThrownBy(() -> PerExampleClipper.of(tbptt)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("TruncatedBPTT");
    MultiLayerNetwork dense = net(DataType.DOUBLE, new LSTM.Builder().nIn(3).nOut(3).build(),
        new DenseLayer.Builder().nIn(3).nOut(3).build(), rnnOutput(3));
    assertThatThrownBy(() -> PerExampleClipper.of(dense)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("RnnToFeedForwardPreProcessor").hasMessageContaining("no longer an example");
    MultiLayerNetwork dropout = net(DataType.DOUBLE, new LSTM.Builder().nIn(3).nOut(3).dropOut(0.5).build(),
        rnnOutput(3));
    assertThatThrownBy(() -> PerExampleClipper.of(dropout)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("layer 0").hasMessageContaining("DropoutLayer before it");
  }
}
