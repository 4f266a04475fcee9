package org.dp4j.updater;

import org.dp4j.noise.GaussianNoise;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.deeplearning4j.nn.api.Model;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.optimize.api.BaseTrainingListener;
import org.dp4j.clipping.ClippedGradientSum;
import org.dp4j.clipping.ClippingMode;
import org.dp4j.clipping.ExactPerExampleGradients;
import org.dp4j.clipping.TinyNetworks;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;
import org.nd4j.linalg.learning.config.Adam;
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.lossfunctions.LossFunctions.LossFunction;

class DpSgdStepTest {
  private static final double LEARNING_RATE = 0.3;
  private static final double EXPECTED_BATCH = 10;

  @BeforeAll
  static void doublePrecision() {
    Nd4j.setDefaultDataTypes(DataType.DOUBLE, DataType.DOUBLE);
  }

  private static DpSgd dp(double clip, ClippingMode mode) {
    return DpSgd.builder().clipNorm(clip).noiseMultiplier(0.7).expectedBatchSize(EXPECTED_BATCH)
        .baseUpdater(new Sgd(LEARNING_RATE)).clipping(mode).build();
  }

  @ParameterizedTest
  @EnumSource(ClippingMode.class)
  void plainSgdStepIsExactlyTheDpSgdUpdate(ClippingMode mode) {
    double clip = 0.5;
    MultiLayerNetwork net = TinyNetworks.mlp(LossFunction.MCXENT, Activation.SOFTMAX, dp(clip, mode));
    INDArray x = TinyNetworks.features(21, 6, 6);
    INDArray y = TinyNetworks.labels(22, 6, 3, true);
    // Independent reference: DL4J's own gradient of each example, clipped one at a time.
    ClippedGradientSum reference = ExactPerExampleGradients.clippedSum(net, x, y, clip, mode);
    INDArray before = net.params().dup();
    RecordingNoise noise = new RecordingNoise(5);

    ClippedGradientSum stats = DpSgdStep.withInsecureNoise(net, noise).apply(x, y);

    // θ' = θ − η (Σ clip(g_i) + N(0, (zC)²)) / (q·N), with q·N = 10 although the batch has 6 examples.
    INDArray expected = before.sub(reference.sum().add(noise.last()).muli(LEARNING_RATE / EXPECTED_BATCH));
    assertThat(net.params().sub(expected).amaxNumber().doubleValue())
        .isLessThanOrEqualTo(1e-10 * expected.amaxNumber().doubleValue());
    assertThat(stats.batchSize()).isEqualTo(6);
    assertThat(stats.clippedCount()).isEqualTo(reference.clippedCount());
    assertThat(net.getIterationCount()).isEqualTo(1);
  }

  @Test
  void noiseHasTheConfiguredScaleOnEveryCoordinate() {
    MultiLayerNetwork net = TinyNetworks.mlp(LossFunction.MCXENT, Activation.SOFTMAX, dp(0.5, ClippingMode.FLAT));
    RecordingNoise noise = new RecordingNoise(6);
    DpSgdStep.withInsecureNoise(net, noise).apply(TinyNetworks.features(23, 4, 6), TinyNetworks.labels(24, 4, 3, true));
    // 68 coordinates of N(0, (0.7·0.5)²): the sample std lies within ±40% of 0.35 except with tiny probability.
    double std = noise.last().stdNumber().doubleValue();
    assertThat(std).isBetween(0.35 * 0.6, 0.35 * 1.4);
    assertThat(noise.last().neq(0.0).castTo(DataType.INT32).sumNumber().intValue()).isEqualTo((int) net.numParams());
  }

  @Test
  void emptyBatchTakesTheNoiseOnlyStep() {
    MultiLayerNetwork net = TinyNetworks.mlp(LossFunction.MCXENT, Activation.SOFTMAX, dp(0.5, ClippingMode.FLAT));
    INDArray before = net.params().dup();
    RecordingNoise noise = new RecordingNoise(7);
    ClippedGradientSum stats = DpSgdStep.withInsecureNoise(net, noise).apply(Nd4j.create(DataType.DOUBLE, 0, 6),
        Nd4j.create(DataType.DOUBLE, 0, 3));
    INDArray expected = before.sub(noise.last().mul(LEARNING_RATE / EXPECTED_BATCH));
    assertThat(net.params().sub(expected).amaxNumber().doubleValue()).isLessThan(1e-14);
    assertThat(stats.batchSize()).isZero();
  }

  @Test
  void adamBaseUpdaterRunsAndListenersSeeEveryStep() {
    DpSgd adam = DpSgd.builder().clipNorm(1).noiseMultiplier(1.1).expectedBatchSize(8).baseUpdater(new Adam(1e-2))
        .build();
    MultiLayerNetwork net = TinyNetworks.mlp(LossFunction.MCXENT, Activation.SOFTMAX, adam);
    List<Integer> iterations = new ArrayList<>();
    net.addListeners(new BaseTrainingListener() {
      @Override
      public void iterationDone(Model model, int iteration, int epoch) {
        iterations.add(iteration);
      }
    });
    DpSgdStep step = DpSgdStep.withInsecureNoise(net, GaussianNoise.insecureFixedSeed(8));
    INDArray before = net.params().dup();
    for (int i = 0; i < 3; i++) {
      step.apply(TinyNetworks.features(30 + i, 8, 6), TinyNetworks.labels(40 + i, 8, 3, true));
    }
    assertThat(iterations).containsExactly(0, 1, 2);
    assertThat(net.params().sub(before).amaxNumber().doubleValue()).isPositive();
    assertThat(net.getUpdater().getStateViewArray().amaxNumber().doubleValue()).isPositive();
  }

  @Test
  void learnsALinearlySeparableProblemDespiteTheNoise() {
    DpSgd dp = DpSgd.builder().clipNorm(1).noiseMultiplier(0.5).expectedBatchSize(50).baseUpdater(new Sgd(0.5))
        .build();
    MultiLayerNetwork net = TinyNetworks.init(TinyNetworks.base(dp)
        .layer(new OutputLayer.Builder(LossFunction.MCXENT).nIn(4).nOut(2).activation(Activation.SOFTMAX).build())
        .build());
    INDArray x = TinyNetworks.features(90, 200, 4);
    INDArray direction = Nd4j.createFromArray(1.0, -2.0, 0.5, 1.5).reshape(4, 1);
    INDArray positive = x.mmul(direction).gt(0.0).castTo(DataType.DOUBLE);
    INDArray y = Nd4j.hstack(positive, positive.rsub(1.0));
    DpSgdStep step = DpSgdStep.withInsecureNoise(net, GaussianNoise.insecureFixedSeed(91));
    for (int epoch = 0; epoch < 25; epoch++) {
      for (int b = 0; b < 4; b++) {
        step.apply(x.get(NDArrayIndex.interval(50 * b, 50 * b + 50)), y.get(NDArrayIndex.interval(50 * b, 50 * b + 50)));
      }
    }
    double accuracy = net.output(x).argMax(1).eq(y.argMax(1)).castTo(DataType.DOUBLE).meanNumber().doubleValue();
    assertThat(accuracy).isGreaterThan(0.9);
  }

  @Test
  void fitWithDpSgdThrowsInsteadOfTrainingWithoutPrivacy() {
    MultiLayerNetwork net = TinyNetworks.mlp(LossFunction.MCXENT, Activation.SOFTMAX, dp(0.5, ClippingMode.FLAT));
    INDArray x = TinyNetworks.features(25, 4, 6);
    INDArray y = TinyNetworks.labels(26, 4, 3, true);
    assertThatThrownBy(() -> net.fit(x, y)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("not clipped per example").hasMessageContaining("DpSgdStep");
  }

  @Test
  void refusesNetworkWhoseLayersDoNotAllUseOneDpSgd() {
    MultiLayerNetwork mixed = TinyNetworks.init(TinyNetworks.base(dp(0.5, ClippingMode.FLAT))
        .layer(new DenseLayer.Builder().nIn(4).nOut(3).updater(new Sgd(0.1)).build())
        .layer(new OutputLayer.Builder(LossFunction.MSE).nOut(2).build())
        .setInputType(InputType.feedForward(4)).build());
    assertThatThrownBy(() -> DpSgdStep.withInsecureNoise(mixed, GaussianNoise.insecureFixedSeed(1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("layer 0 (DenseLayer) uses updater Sgd");
  }

  /** 6 → 5 (ReLU) → 3 softmax: the fused dense path. */
  private static MultiLayerNetwork denseMlp(DpSgd dp) {
    return TinyNetworks.init(TinyNetworks.base(dp)
        .layer(new DenseLayer.Builder().nIn(6).nOut(5).activation(Activation.RELU).build())
        .layer(new OutputLayer.Builder(LossFunction.MCXENT).nOut(3).activation(Activation.SOFTMAX).build())
        .setInputType(InputType.feedForward(6)).build());
  }

  @ParameterizedTest
  @EnumSource(ClippingMode.class)
  void fusedDenseStepIsExactlyTheDpSgdUpdate(ClippingMode mode) {
    double clip = 0.5;
    MultiLayerNetwork net = denseMlp(dp(clip, mode));
    INDArray x = TinyNetworks.features(51, 7, 6);
    INDArray y = TinyNetworks.labels(52, 7, 3, true);
    ClippedGradientSum reference = ExactPerExampleGradients.clippedSum(net, x, y, clip, mode);
    INDArray before = net.params().dup();
    RecordingNoise noise = new RecordingNoise(53);
    DpSgdStep step = DpSgdStep.withInsecureNoise(net, noise);
    assertThat(step.isFused()).isTrue();

    step.apply(x, y);

    INDArray expected = before.sub(reference.sum().add(noise.last()).muli(LEARNING_RATE / EXPECTED_BATCH));
    assertThat(net.params().sub(expected).amaxNumber().doubleValue())
        .isLessThanOrEqualTo(1e-10 * expected.amaxNumber().doubleValue());
  }

  @Test
  void learningRateSetOnTheNetworkIsUsedByTheInPlaceUpdate() {
    MultiLayerNetwork net = denseMlp(dp(0.5, ClippingMode.FLAT));
    RecordingNoise noise = new RecordingNoise(54);
    DpSgdStep step = DpSgdStep.withInsecureNoise(net, noise);
    net.setLearningRate(0.05);
    INDArray x = TinyNetworks.features(55, 4, 6);
    INDArray y = TinyNetworks.labels(56, 4, 3, true);
    ClippedGradientSum reference = ExactPerExampleGradients.clippedSum(net, x, y, 0.5, ClippingMode.FLAT);
    INDArray before = net.params().dup();
    step.apply(x, y);
    INDArray expected = before.sub(reference.sum().add(noise.last()).muli(0.05 / EXPECTED_BATCH));
    assertThat(net.params().sub(expected).amaxNumber().doubleValue())
        .isLessThanOrEqualTo(1e-10 * expected.amaxNumber().doubleValue());
  }

  @ParameterizedTest
  @EnumSource(ClippingMode.class)
  void microBatchesThenOneStepEqualOneStepOnTheLogicalBatch(ClippingMode mode) {
    INDArray x = TinyNetworks.features(60, 13, 6);
    INDArray y = TinyNetworks.labels(61, 13, 3, true);
    // Fused dense network and the generic path (dropout/activation layers), plain SGD and Adam.
    for (DpSgd dp : new DpSgd[] {dp(0.5, mode), DpSgd.builder().clipNorm(0.5).noiseMultiplier(0.7)
        .expectedBatchSize(EXPECTED_BATCH).baseUpdater(new Adam(0.01)).clipping(mode).build()}) {
      for (boolean fused : new boolean[] {true, false}) {
        MultiLayerNetwork whole = fused ? denseMlp(dp)
            : TinyNetworks.mlp(LossFunction.MCXENT, Activation.SOFTMAX, dp);
        MultiLayerNetwork split = fused ? denseMlp(dp)
            : TinyNetworks.mlp(LossFunction.MCXENT, Activation.SOFTMAX, dp);
        DpSgdStep.withInsecureNoise(whole, new RecordingNoise(62)).apply(x, y);
        DpSgdStep step = DpSgdStep.withInsecureNoise(split, new RecordingNoise(62));
        int[] bounds = {0, 5, 5, 11, 13};
        for (int b = 0; b + 1 < bounds.length; b++) {
          step.accumulate(x.get(NDArrayIndex.interval(bounds[b], bounds[b + 1])),
              y.get(NDArrayIndex.interval(bounds[b], bounds[b + 1])));
        }
        step.step();
        // Same noise seed: equal parameters only if the noise was drawn once, for the whole logical batch.
        assertThat(split.params().sub(whole.params()).amaxNumber().doubleValue()).as("fused %s, %s", fused, dp)
            .isLessThanOrEqualTo(1e-12);
        assertThat(split.getIterationCount()).isEqualTo(1);
      }
    }
  }

  @Test
  void applyRefusesToRunWhileMicroBatchesAreAccumulated() {
    MultiLayerNetwork net = denseMlp(dp(0.5, ClippingMode.FLAT));
    DpSgdStep step = DpSgdStep.withInsecureNoise(net, new RecordingNoise(63));
    INDArray x = TinyNetworks.features(64, 4, 6);
    INDArray y = TinyNetworks.labels(65, 4, 3, true);
    step.accumulate(x, y);
    assertThatThrownBy(() -> step.apply(x, y)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("1 micro-batches were accumulated");
  }
}
