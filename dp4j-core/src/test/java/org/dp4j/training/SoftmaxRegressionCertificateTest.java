package org.dp4j.training;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.stream.DoubleStream;
import java.util.stream.IntStream;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.dp4j.accounting.Orders;
import org.dp4j.accounting.RdpConversion;
import org.dp4j.accounting.RdpCurve;
import org.dp4j.clipping.ClippingMode;
import org.dp4j.noise.AesCtrRandom;
import org.dp4j.sampling.PoissonSampler;
import org.dp4j.sampling.SamplingPlan;
import org.dp4j.sampling.ShuffleOncePartition;
import org.dp4j.updater.DpSgd;
import org.dp4j.updater.DpSgdStep;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.IUpdater;
import org.nd4j.linalg.learning.config.Nesterovs;
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.lossfunctions.LossFunctions;

class SoftmaxRegressionCertificateTest {
  /** The orders of the authors' code (docs/errata.md#ye-shokri-conversion). */
  private static final Orders PAPER_ORDERS = Orders.of(DoubleStream.concat(
      IntStream.rangeClosed(1, 99).mapToDouble(x -> 1 + x / 10.0),
      IntStream.rangeClosed(12, 63).asDoubleStream()).toArray());
  /** Ye &amp; Shokri 2022; docs/accountants.md#ye-shokri, MNIST row of Table 1's dynamics setting (n = 60000, b = 2048). */
  private static final SamplingPlan MNIST_PLAN =
      new ShuffleOncePartition(60_000, 2048, AesCtrRandom.insecureFixedSeed(1)).plan();

  private static final class Net {
    int in = 5;
    boolean hidden;
    double l2 = 0.08;
    double l2Bias = 0.08;
    Activation activation = Activation.SOFTMAX;
    IUpdater base = new Sgd(0.75);
    double clip = 3.16;
    double z = 3.08;
    double expectedBatch = 2048;
    ClippingMode mode = ClippingMode.FLAT;
    boolean weightDecay;

    MultiLayerNetwork build() {
      DpSgd dp = DpSgd.builder().clipNorm(clip).noiseMultiplier(z).expectedBatchSize(expectedBatch)
          .baseUpdater(base).clipping(mode).build();
      NeuralNetConfiguration.Builder b = new NeuralNetConfiguration.Builder().seed(1).dataType(DataType.DOUBLE)
          .updater(dp);
      if (weightDecay) {
        b.weightDecay(l2).weightDecayBias(l2Bias);
      } else {
        b.l2(l2);
        if (l2Bias > 0) {
          b.l2Bias(l2Bias);
        }
      }
      NeuralNetConfiguration.ListBuilder list = b.list();
      int nIn = in;
      if (hidden) {
        list.layer(new DenseLayer.Builder().nIn(in).nOut(4).activation(Activation.RELU).build());
        nIn = 4;
      }
      list.layer(new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT).nIn(nIn).nOut(3)
          .activation(activation).build());
      // DL4J itself rejects sigmoid + MCXENT unless told not to check: the certificate must refuse it too.
      list.validateOutputLayerConfig(activation == Activation.SOFTMAX);
      MultiLayerNetwork net = new MultiLayerNetwork(list.build());
      net.init();
      return net;
    }
  }

  /** Data of n records that no test reads: the certificate looks only at its size and its clip norm. */
  private static FeatureClippedData records(int n, double featureClip) {
    return FeatureClippedData.of(new IndexedData() {
      @Override
      public int size() {
        return n;
      }

      @Override
      public DataSet rows(int[] indices) {
        throw new UnsupportedOperationException("not read");
      }
    }, featureClip);
  }

  private static SoftmaxRegressionCertificate mnist(Net net) {
    return SoftmaxRegressionCertificate.certify(net.build(), records(60_000, 2), MNIST_PLAN, 1200);
  }

  @Test
  void mnistHyperparametersReproduceDigest54() {
    SoftmaxRegressionCertificate cert = mnist(new Net());
    assertThat(cert.smoothness()).isCloseTo(2.58, within(1e-12)); // (L²+1)/2 + λ = 2.5 + 0.08
    assertThat(cert.config().stepsPerEpoch()).isEqualTo(29);
    assertThat(cert.config().datasetSize()).isEqualTo(29 * 2048);
    CertifiedYeShokriStepAccountant acc = new CertifiedYeShokriStepAccountant(cert, PAPER_ORDERS);
    RdpCurve dyn = acc.curveAfter(29L * 1200);
    double[] alphas = {1.5, 2, 5, 7, 10, 20, 32, 63};
    double[] digest = {0.042633, 0.059338, 0.369226, 0.966907, 1.804857, 4.180766, 6.864165, 13.673365};
    for (int i = 0; i < alphas.length; i++) {
      int index = indexOf(dyn, alphas[i]);
      assertThat(dyn.value(index)).isCloseTo(digest[i], within(1e-6));
    }
    // The paper's ε adds its BatchNorm statistics' RDP α/σ_bn² = α/64 (docs/errata.md#ye-shokri-conversion) before converting.
    RdpCurve withNorm = dyn.plus(RdpCurve.tabulate(PAPER_ORDERS, a -> a / 64));
    assertThat(RdpConversion.CLASSIC.epsilon(withNorm, 1e-5).epsilon()).isCloseTo(2.9951, within(1e-4));
    assertThat(RdpConversion.IMPROVED.epsilon(withNorm, 1e-5).epsilon()).isCloseTo(2.4989, within(1e-4));
    assertThat(acc.assumptions()).anyMatch(a -> a.startsWith("certified"))
        .noneMatch(a -> a.contains("user-asserted"));
  }

  private static int indexOf(RdpCurve curve, double alpha) {
    for (int i = 0; i < curve.size(); i++) {
      if (Math.abs(curve.order(i) - alpha) < 1e-9) {
        return i;
      }
    }
    throw new AssertionError("order " + alpha + " not on the grid");
  }

  @Test
  void refusesEachConditionByName() {
    Net hidden = new Net();
    hidden.hidden = true;
    assertThatThrownBy(() -> mnist(hidden)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no hidden layers, the network has 2 layers");
    Net noBias = new Net();
    noBias.l2Bias = 0;
    assertThatThrownBy(() -> mnist(noBias)).hasMessageContaining("on the bias (set .l2Bias(λ))");
    Net unequal = new Net();
    unequal.l2Bias = 0.04;
    assertThatThrownBy(() -> mnist(unequal)).hasMessageContaining("weights have L2 0.08, bias 0.04");
    Net decay = new Net();
    decay.weightDecay = true;
    assertThatThrownBy(() -> mnist(decay)).hasMessageContaining("on the weights (set .l2(λ))")
        .hasMessageContaining("WeightDecay");
    Net momentum = new Net();
    momentum.base = new Nesterovs(0.75, 0.9);
    assertThatThrownBy(() -> mnist(momentum)).hasMessageContaining("plain constant-step SGD without momentum");
    Net fast = new Net();
    fast.base = new Sgd(0.76);
    assertThatThrownBy(() -> mnist(fast)).hasMessageContaining("η < 2/(λ+β)").hasMessageContaining("η = 0.76");
    Net divisor = new Net();
    divisor.expectedBatch = 2000;
    assertThatThrownBy(() -> mnist(divisor)).hasMessageContaining("divides the noisy sum by 2000.0")
        .hasMessageContaining("b = 2048");
    Net sigmoid = new Net();
    sigmoid.activation = Activation.SIGMOID;
    assertThatThrownBy(() -> mnist(sigmoid)).hasMessageContaining("softmax activation");
    Net perLayer = new Net();
    perLayer.mode = ClippingMode.PER_LAYER;
    assertThatThrownBy(() -> mnist(perLayer)).hasMessageContaining("FLAT");
    SamplingPlan poisson = PoissonSampler.withExpectedBatchSize(60_000, 2048, AesCtrRandom.insecureFixedSeed(1))
        .plan();
    assertThatThrownBy(() -> SoftmaxRegressionCertificate.certify(new Net().build(), records(60_000, 2), poisson,
        10)).hasMessageContaining("needs a shuffle-once fixed partition");
    SamplingPlan oneBatch = new ShuffleOncePartition(3000, 2048, AesCtrRandom.insecureFixedSeed(1)).plan();
    assertThatThrownBy(() -> SoftmaxRegressionCertificate.certify(new Net().build(), records(3000, 2), oneBatch,
        10)).hasMessageContaining("m = ⌊n/b⌋ >= 2");
  }

  @Test
  void dl4jTakesAlgorithm3sStep() {
    // θ' = θ − η·[(Σ clip_C(∇ℓ0) + noise)/b + λθ] with noise std z·C: computed here by hand for softmax regression
    // (∇_W ℓ0 = x (p − y)ᵀ, ∇_b ℓ0 = p − y), independently of dp4j's clipper and DL4J's updater.
    double eta = 0.3;
    double lambda = 0.05;
    double c = 0.5;
    Net spec = new Net();
    spec.in = 4;
    spec.l2 = lambda;
    spec.l2Bias = lambda;
    spec.base = new Sgd(eta);
    spec.clip = c;
    spec.z = 2;
    spec.expectedBatch = 3;
    MultiLayerNetwork net = spec.build();
    Nd4j.getRandom().setSeed(7);
    net.getParam("0_b").assign(Nd4j.randn(DataType.DOUBLE, 1, 3));
    INDArray x = Nd4j.randn(DataType.DOUBLE, 3, 4);
    INDArray y = Nd4j.create(new double[][] {{1, 0, 0}, {0, 0, 1}, {0, 1, 0}});
    INDArray w = net.getParam("0_W").dup();
    INDArray bias = net.getParam("0_b").dup();
    INDArray sumW = Nd4j.zeros(DataType.DOUBLE, 4, 3);
    INDArray sumB = Nd4j.zeros(DataType.DOUBLE, 1, 3);
    for (int i = 0; i < 3; i++) {
      INDArray xi = x.getRow(i, true);
      INDArray logits = xi.mmul(w).addi(bias);
      INDArray p = org.nd4j.linalg.ops.transforms.Transforms.softmax(logits, true);
      INDArray delta = p.sub(y.getRow(i, true));
      INDArray gw = xi.transpose().mmul(delta);
      double norm = Math.sqrt(gw.norm2Number().doubleValue() * gw.norm2Number().doubleValue()
          + delta.norm2Number().doubleValue() * delta.norm2Number().doubleValue());
      double f = Math.min(1, c / norm);
      sumW.addi(gw.mul(f));
      sumB.addi(delta.mul(f));
    }
    double[] std = new double[1];
    DpSgdStep step = DpSgdStep.withInsecureNoise(net, (target, s) -> std[0] = s); // records the std, adds nothing
    step.apply(x, y);
    assertThat(std[0]).isEqualTo(2 * c);
    INDArray expectedW = w.sub(sumW.div(3).addi(w.mul(lambda)).muli(eta));
    INDArray expectedB = bias.sub(sumB.div(3).addi(bias.mul(lambda)).muli(eta));
    assertThat(net.getParam("0_W").sub(expectedW).amaxNumber().doubleValue()).isLessThan(1e-12);
    assertThat(net.getParam("0_b").sub(expectedB).amaxNumber().doubleValue()).isLessThan(1e-12);
  }

  @Test
  void stepSizeLimitIsCorollary63sBoundInOnePlace() {
    // 2/((L²+1)/2 + 2λ), by hand (mpmath): L = 4, λ = 0.01 → 2/8.52; L = 2, λ = 0.08 → 2/2.66
    assertThat(SoftmaxRegressionCertificate.stepSizeLimit(4, 0.01)).isCloseTo(0.2347417840375587, within(1e-15));
    assertThat(SoftmaxRegressionCertificate.stepSizeLimit(2, 0.08)).isCloseTo(0.7518796992481203, within(1e-15));
    // the certificate's own limit is the one certify checks η = 0.75 against (and refuses 0.76 above)
    assertThat(mnist(new Net()).stepSizeLimit()).isCloseTo(0.7518796992481203, within(1e-15));
    assertThatThrownBy(() -> SoftmaxRegressionCertificate.stepSizeLimit(0, 0.01))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("feature clip L must be finite and > 0");
    assertThatThrownBy(() -> SoftmaxRegressionCertificate.stepSizeLimit(1, 0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("λ must be finite and > 0, was 0.0");
  }
}
