package org.dp4j.updater;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.apache.commons.math3.distribution.NormalDistribution;
import org.apache.commons.math3.stat.inference.KolmogorovSmirnovTest;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.dp4j.noise.GaussianNoise;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.lossfunctions.LossFunctions;

/**
 * The privacy-loss distribution of one clipped noisy step, estimated empirically against the analytic one. The
 * neighbouring batches D and D' = D minus one record x whose gradient is far above the clip norm; the production
 * clipper gives their sums S and S'; the production sampler draws outputs o = S + N(0, (zC)² I). The privacy loss
 * L(o) = log p_D(o)/p_D'(o) = (‖o − S'‖² − ‖o − S‖²)/(2(zC)²) must then be N(μ, 2μ) with μ = 1/(2z²) (the Gaussian
 * mechanism with sensitivity C; Dong, Roth &amp; Su 2022, §2; Balle &amp; Wang 2018), and its hockey-stick
 * divergence δ(ε) = E_D[(1 − e^(ε − L))₊] must match Balle &amp; Wang's Thm. 8 (values from
 * {@code src/test/python/stochastic_reference.py}). 200 000 outputs, fixed seed; each threshold fails a correct
 * implementation with probability below 1e-6 (KS p-value &gt; 1e-6; means within 5.3 standard errors, two-sided
 * normal tail 1.2e-7).
 */
class ClippedStepPrivacyLossTest {
  private static final int OUTPUTS = 200_000;
  private static final double CLIP = 1.0;

  @ParameterizedTest(name = "z={0}")
  @CsvSource({
      "0.8, 0.46802894190259894, 0.33728097147168307, 0.221018457548576, 0.068422264081141028",
      "1.5, 0.26111731963647272, 0.10874437688858545, 0.030945750509147047, 0.00066002969577242664"})
  void privacyLossOfOneStepIsTheAnalyticGaussian(double z, double delta0, double delta05, double delta1,
      double delta2) {
    MultiLayerNetwork net = network(z);
    ClippableModel model = ClippableModel.of(net);
    Nd4j.getRandom().setSeed(7);
    INDArray others = Nd4j.randn(DataType.DOUBLE, 10, 5);
    INDArray othersY = oneHot(10);
    INDArray withX = Nd4j.vstack(others, Nd4j.valueArrayOf(new long[] {1, 5}, 50.0, DataType.DOUBLE));
    INDArray withXY = Nd4j.vstack(othersY, oneHot(1).rsub(1.0));   // x has a wrong label: a large gradient
    double[] s = sum(model, withX, withXY);
    double[] sPrime = sum(model, others, othersY);
    double sensitivity = 0;
    for (int j = 0; j < s.length; j++) {
      sensitivity += (s[j] - sPrime[j]) * (s[j] - sPrime[j]);
    }
    assertThat(Math.sqrt(sensitivity)).as("x's clipped gradient has norm C").isCloseTo(CLIP, within(1e-9));

    double sigma = z * CLIP;
    GaussianNoise noise = GaussianNoise.insecureFixedSeed(301);
    double[] n = new double[s.length];
    double[] loss = new double[OUTPUTS];
    for (int k = 0; k < OUTPUTS; k++) {
      noise.fill(n, sigma);
      double toS = 0;
      double toSPrime = 0;
      for (int j = 0; j < s.length; j++) {
        double o = s[j] + n[j];
        toS += (o - s[j]) * (o - s[j]);
        toSPrime += (o - sPrime[j]) * (o - sPrime[j]);
      }
      loss[k] = (toSPrime - toS) / (2 * sigma * sigma);
    }
    double mu = 1 / (2 * z * z);
    double p = new KolmogorovSmirnovTest().kolmogorovSmirnovTest(new NormalDistribution(null, mu,
        Math.sqrt(2 * mu)), loss);
    assertThat(p).isGreaterThan(1e-6);
    double[] expected = {delta0, delta05, delta1, delta2};
    double[] eps = {0, 0.5, 1, 2};
    for (int e = 0; e < eps.length; e++) {
      double sum = 0;
      double sumSq = 0;
      for (double l : loss) {
        double h = Math.max(0, -Math.expm1(eps[e] - l));
        sum += h;
        sumSq += h * h;
      }
      double mean = sum / OUTPUTS;
      double se = Math.sqrt((sumSq / OUTPUTS - mean * mean) / OUTPUTS);
      assertThat(mean).as("delta(%s) at z = %s", eps[e], z).isCloseTo(expected[e], within(5.3 * se + 1e-12));
    }
  }

  private static double[] sum(ClippableModel model, INDArray x, INDArray y) {
    INDArray target = model.gradientView().dup();
    model.clippedSum(new INDArray[] {x}, new INDArray[] {y}, null, null, CLIP, target);
    return target.data().asDouble();
  }

  private static INDArray oneHot(int rows) {
    INDArray y = Nd4j.zeros(DataType.DOUBLE, rows, 2);
    for (int i = 0; i < rows; i++) {
      y.putScalar(i, i % 2, 1.0);
    }
    return y;
  }

  private static MultiLayerNetwork network(double z) {
    MultiLayerConfiguration conf = new NeuralNetConfiguration.Builder().seed(3).dataType(DataType.DOUBLE)
        .updater(DpSgd.builder().clipNorm(CLIP).noiseMultiplier(z).expectedBatchSize(10)
            .baseUpdater(new org.nd4j.linalg.learning.config.Sgd(0.1)).build())
        .list()
        .layer(new DenseLayer.Builder().nIn(5).nOut(4).activation(Activation.TANH).build())
        .layer(new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT).nIn(4).nOut(2)
            .activation(Activation.SOFTMAX).build())
        .build();
    MultiLayerNetwork net = new MultiLayerNetwork(conf);
    net.init();
    return net;
  }
}
