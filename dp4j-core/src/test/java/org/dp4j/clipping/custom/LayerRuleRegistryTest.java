package org.dp4j.clipping.custom;

import static org.assertj.core.api.Assertions.assertThat;

import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.nn.weights.WeightInit;
import org.dp4j.clipping.ClippedGradientSum;
import org.dp4j.clipping.ClippingMode;
import org.dp4j.clipping.ExactPerExampleGradients;
import org.dp4j.clipping.LayerPath;
import org.dp4j.clipping.LayerRuleRegistry;
import org.dp4j.clipping.PerExampleClipper;
import org.dp4j.clipping.PrivacyValidator;
import org.dp4j.noise.AesCtrRandom;
import org.dp4j.noise.GaussianNoise;
import org.dp4j.training.IndexedData;
import org.dp4j.training.PrivateMultiLayerNetwork;
import org.dp4j.training.SampledDataSetIterator;
import org.dp4j.updater.DpSgd;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.IUpdater;
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.lossfunctions.LossFunctions.LossFunction;

/**
 * A user registers a rule for their own layer class through the public API only (this package is not dp4j's): the
 * clipper uses it, its clipped sums equal clipping of DL4J's batch-of-one gradients, and a private network trains
 * with it.
 */
class LayerRuleRegistryTest {
  private static final int N = 64;

  @AfterEach
  void unregister() {
    LayerRuleRegistry.unregister(FeatureScaleLayer.class);
  }

  private static MultiLayerConfiguration conf(IUpdater updater) {
    return new NeuralNetConfiguration.Builder().seed(4).dataType(DataType.DOUBLE).updater(updater)
        .weightInit(WeightInit.XAVIER).list()
        .layer(new FeatureScaleLayer(4))
        .layer(new DenseLayer.Builder().nOut(5).activation(Activation.TANH).build())
        .layer(new OutputLayer.Builder(LossFunction.MCXENT).nOut(2).activation(Activation.SOFTMAX).build())
        .setInputType(InputType.feedForward(4)).build();
  }

  private static DataSet blobs() {
    Nd4j.getRandom().setSeed(5);
    INDArray x = Nd4j.randn(DataType.DOUBLE, N, 4);
    INDArray y = Nd4j.zeros(DataType.DOUBLE, N, 2);
    for (int i = 0; i < N; i++) {
      x.getRow(i).addi(i % 2 == 0 ? 1.0 : -1.0);
      y.putScalar(i, i % 2, 1.0);
    }
    return new DataSet(x, y);
  }

  private static void assertMatchesDl4j(MultiLayerNetwork net, DataSet d) {
    ClippedGradientSum exact = ExactPerExampleGradients.clippedSum(net, d.getFeatures(), d.getLabels(), 0.05,
        ClippingMode.FLAT);
    ClippedGradientSum fast = PerExampleClipper.of(net).clippedSum(d.getFeatures(), d.getLabels(), 0.05);
    assertThat(exact.clippedCount()).isPositive();
    for (int i = 0; i < N; i++) {
      assertThat(fast.perExampleNorms()[i]).isCloseTo(exact.perExampleNorms()[i],
          org.assertj.core.data.Offset.offset(1e-10 * exact.perExampleNorms()[i]));
    }
    assertThat(fast.sum().sub(exact.sum()).amaxNumber().doubleValue() / exact.sum().amaxNumber().doubleValue())
        .isLessThanOrEqualTo(1e-10);
  }

  /**
   * The registered rule's per-example gradients (no clipping: C far above every norm) against central finite
   * differences of each example's loss for the custom layer's weights, and DL4J's batch-of-one gradients for the
   * layers above it. (DL4J 1.0.0-M2.1's own backprop of this SameDiff layer returns twice the finite-difference
   * gradient of its weights, so DL4J is not the reference for that part.)
   */
  private static void assertMatchesFiniteDifferences(MultiLayerNetwork net, DataSet d) {
    INDArray exact = ExactPerExampleGradients.perExample(net, d.getFeatures(), d.getLabels());
    int w = 4;
    for (int i = 0; i < N; i++) {
      DataSet one = d.get(i);
      INDArray weights = net.getLayer(0).getParam("W");
      for (int j = 0; j < w; j++) {
        double w0 = weights.getDouble(0, j);
        double h = 1e-5;
        weights.putScalar(0, j, w0 + h);
        double up = net.score(one, true);
        weights.putScalar(0, j, w0 - h);
        double down = net.score(one, true);
        weights.putScalar(0, j, w0);
        exact.putScalar(i, j, (up - down) / (2 * h));
      }
    }
    ClippedGradientSum fast = PerExampleClipper.of(net).clippedSum(d.getFeatures(), d.getLabels(), 1e9);
    for (int i = 0; i < N; i++) {
      double norm = exact.getRow(i).norm2Number().doubleValue();
      assertThat(fast.perExampleNorms()[i]).isCloseTo(norm, org.assertj.core.data.Offset.offset(1e-7 * norm));
    }
    INDArray sum = exact.sum(0).reshape(1, exact.size(1));
    assertThat(fast.sum().sub(sum).amaxNumber().doubleValue() / sum.amaxNumber().doubleValue())
        .isLessThanOrEqualTo(1e-7);
  }

  @Test
  void aRegisteredRuleIsUsedMatchesDl4jAndTrainsPrivately() {
    MultiLayerNetwork plain = new MultiLayerNetwork(conf(new Sgd(0.1)));
    plain.init();
    DataSet data = blobs();
    // Without a registration the custom layer takes the generic path: DL4J's own gradients, example by example.
    assertThat(PrivacyValidator.inspect(plain).entries().get(0).path()).isEqualTo(LayerPath.GENERIC);
    assertMatchesDl4j(plain, data);

    assertThat(LayerRuleRegistry.register(FeatureScaleLayer.class, FeatureScaleRule::new)).isEmpty();
    assertThat(PrivacyValidator.inspect(plain).entries().get(0).path()).isEqualTo(LayerPath.REGISTERED);
    int before = FeatureScaleRule.PASSES.get();
    assertMatchesFiniteDifferences(plain, data);
    assertThat(FeatureScaleRule.PASSES.get()).isGreaterThan(before);

    PrivateMultiLayerNetwork net = new PrivateMultiLayerNetwork(conf(DpSgd.builder().clipNorm(0.5)
        .noiseMultiplier(1.0).expectedBatchSize(16).baseUpdater(new Sgd(0.2)).build()));
    net.init();
    net.insecureNoise(GaussianNoise.insecureFixedSeed(3));
    INDArray scaleBefore = net.getLayer(0).getParam("W").dup();
    int passes = FeatureScaleRule.PASSES.get();
    net.fit(SampledDataSetIterator.poisson(IndexedData.of(data), 16, AesCtrRandom.insecureFixedSeed(9)), 2);
    assertThat(net.getIterationCount()).isEqualTo(8);
    assertThat(FeatureScaleRule.PASSES.get() - passes).isEqualTo(8);
    assertThat(net.getLayer(0).getParam("W").sub(scaleBefore).amaxNumber().doubleValue()).isPositive();
    assertThat(net.params().isInfinite().any() || net.params().isNaN().any()).isFalse();
  }
}
