package org.dp4j.training;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.dp4j.InvalidSettingException;
import org.dp4j.accounting.Orders;
import org.dp4j.accounting.RdpConversion;
import org.dp4j.accounting.ledger.PrivacyLedger;
import org.dp4j.noise.AesCtrRandom;
import org.dp4j.noise.GaussianNoise;
import org.dp4j.sampling.PoissonSampler;
import org.dp4j.sampling.ShuffleOncePartition;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;

class ParameterAverageTest {
  private static final double[][] ITERATES = {{1, 2}, {3, -1}, {2, 4}};

  private static INDArray row(double... v) {
    return Nd4j.createFromArray(v).reshape(1, v.length);
  }

  private static ParameterAverage fed(ParameterAverage avg) {
    for (double[] theta : ITERATES) {
      avg.update(row(theta));
    }
    return avg;
  }

  @Test
  void constantDecayMatchesTheHandComputedSequence() {
    // beta = 0.5 from (0, 0): (0.5, 1), then (1.75, 0), then (1.875, 2), worked out by hand.
    ParameterAverage avg = fed(ParameterAverage.exponential(0.5, row(0, 0)));
    assertThat(avg.updates()).isEqualTo(3);
    assertThat(avg.average().toDoubleVector()).containsExactly(new double[] {1.875, 2.0}, within(1e-15));
  }

  @Test
  void warmupMatchesTheHandComputedSequence() {
    // beta = 0.9 with warm-up: beta_1 = 1/10, beta_2 = 2/11, beta_3 = 3/12 (all below 0.9).
    // avg1 = 0.9 (1, 2) = (0.9, 1.8); avg2 = (2/11) avg1 + (9/11) (3, -1) = (28.8/11, -5.4/11);
    // avg3 = avg2 / 4 + 0.75 (2, 4) = (28.8/44 + 1.5, 3 - 5.4/44) = (2.1545454..., 2.8772727...).
    ParameterAverage avg = ParameterAverage.withWarmup(0.9, row(0, 0));
    assertThat(avg.nextDecay()).isEqualTo(0.1);
    fed(avg);
    assertThat(avg.average().toDoubleVector()).containsExactly(new double[] {2.154545454545454545,
        2.877272727272727273}, within(1e-14));
    assertThat(avg.nextDecay()).isEqualTo(4.0 / 13);
  }

  @Test
  void warmupReachesTheDecayAndStaysThere() {
    // t/(9 + t) >= 0.9 from t = 81 on.
    ParameterAverage avg = ParameterAverage.withWarmup(0.9, row(0));
    for (int t = 1; t <= 80; t++) {
      assertThat(avg.nextDecay()).isLessThan(0.9);
      avg.update(row(t));
    }
    assertThat(avg.nextDecay()).isEqualTo(0.9);
  }

  @Test
  void zeroDecayIsTheLastIterate() {
    assertThat(fed(ParameterAverage.exponential(0, row(7, 7))).average().toDoubleVector())
        .containsExactly(ITERATES[2]);
    assertThat(fed(ParameterAverage.withWarmup(0, row(7, 7))).average().toDoubleVector())
        .containsExactly(ITERATES[2]);
  }

  @Test
  void badDecaysAndSizesAreRefused() {
    assertThatThrownBy(() -> ParameterAverage.exponential(1, row(0))).isInstanceOf(InvalidSettingException.class)
        .hasMessageContaining("decay must be in [0, 1), was 1.0");
    assertThatThrownBy(() -> ParameterAverage.exponential(-0.1, row(0))).hasMessageContaining("was -0.1");
    assertThatThrownBy(() -> ParameterAverage.exponential(0.5, row(0, 0)).update(row(1)))
        .isInstanceOf(InvalidSettingException.class).hasMessageContaining("the average has 2 parameters, the update 1");
  }

  @Test
  void theTrainersAverageEqualsAnIndependentRecomputationFromTheIterates() {
    DataSet data = DpSgdTrainerTest.blobs(400);
    DpSgdSetup setup = DpSgdSetup.builder().datasetSize(400).expectedBatchSize(40).epochs(3).clipNorm(1)
        .noiseMultiplier(1.0).delta(1e-5).build();
    MultiLayerNetwork net = setup.privateNetwork(DpSgdTrainerTest.mlp(10, 8, 2));
    double[] initial = net.params().toDoubleVector();
    ParameterAverage avg = ParameterAverage.withWarmup(0.8, net.params());
    List<double[]> iterates = new ArrayList<>();
    TrainingResult r = setup.trainer(net, IndexedData.of(data))
        .sampler(PoissonSampler.withExpectedBatchSize(400, 40, AesCtrRandom.insecureFixedSeed(8)))
        .insecureNoise(GaussianNoise.insecureFixedSeed(9)).averageParameters(avg)
        .onStep(() -> iterates.add(net.params().toDoubleVector())).build().train();
    assertThat(r.steps()).isEqualTo(30);
    assertThat(iterates).hasSize(30);
    assertThat(avg.updates()).isEqualTo(30);
    // The recursion again, in double, from the recorded iterates: beta_t = min(0.8, t/(9+t)).
    double[] expected = initial.clone();
    for (int t = 1; t <= iterates.size(); t++) {
      double b = Math.min(0.8, t / (9.0 + t));
      for (int i = 0; i < expected.length; i++) {
        expected[i] = b * expected[i] + (1 - b) * iterates.get(t - 1)[i];
      }
    }
    double[] got = avg.average().toDoubleVector();
    double scale = net.params().amaxNumber().doubleValue();
    for (int i = 0; i < expected.length; i++) {
      assertThat(got[i]).isCloseTo(expected[i], within(1e-5 * scale));   // float32 parameters
    }
    // The average is not the last iterate (so the test can tell them apart), and evaluating with it restores θ_T.
    double[] last = iterates.get(iterates.size() - 1);
    assertThat(maxDifference(got, last)).isGreaterThan(1e-3 * scale);
    double[] seen = avg.evaluate(net, () -> net.params().toDoubleVector());
    assertThat(maxDifference(seen, got)).isLessThan(1e-6 * scale);
    assertThat(net.params().toDoubleVector()).containsExactly(last);
  }

  private static double maxDifference(double[] a, double[] b) {
    double m = 0;
    for (int i = 0; i < a.length; i++) {
      m = Math.max(m, Math.abs(a[i] - b[i]));
    }
    return m;
  }

  @Test
  void aHiddenStateLedgerIsRefused() {
    DataSet blobs = DpSgdTrainerTest.blobs(1000);
    FeatureClippedData data = FeatureClippedData.of(IndexedData.of(blobs), 3.0);
    MultiLayerNetwork net = ShuffleOnceTrainingTest.softmax(100);
    ShuffleOncePartition sampler = new ShuffleOncePartition(1000, 100, AesCtrRandom.insecureFixedSeed(2));
    SoftmaxRegressionCertificate cert = SoftmaxRegressionCertificate.certify(net, data, sampler.plan(), 5);
    PrivacyLedger ledger = cert.ledger(1e-5, RdpConversion.IMPROVED, Orders.DEFAULT);
    assertThatThrownBy(() -> DpSgdTrainer.builder(net, data).sampler(sampler).ledger(ledger).epochs(5)
        .averageParameters(ParameterAverage.withWarmup(0.99, net.params())).build())
        .isInstanceOf(InvalidSettingException.class)
        .hasMessageContaining("accountant " + CertifiedYeShokriStepAccountant.NAME)
        .hasMessageContaining("only the last iterate released")
        .hasMessageContaining("average only with composition accountants");
  }

  @Test
  void anAverageOfAnotherSizeIsRefusedByTheTrainer() {
    DataSet data = DpSgdTrainerTest.blobs(400);
    DpSgdSetup setup = DpSgdSetup.builder().datasetSize(400).expectedBatchSize(40).epochs(1).clipNorm(1)
        .noiseMultiplier(1.0).delta(1e-5).build();
    MultiLayerNetwork net = setup.privateNetwork(DpSgdTrainerTest.mlp(10, 8, 2));
    assertThatThrownBy(() -> setup.trainer(net, IndexedData.of(data))
        .averageParameters(ParameterAverage.exponential(0.9, Nd4j.zeros(DataType.FLOAT, 1, 3))).build())
        .isInstanceOf(InvalidSettingException.class).hasMessageContaining("has 3 parameters, the network "
            + net.numParams());
  }
}
