package org.dp4j.mbcd;

import org.dp4j.accounting.hiddenstate.NoiseTemperatureSchedule;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.dp4j.accounting.NeighbouringRelation;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

class DpMbcdTrainerTest {

  @BeforeAll
  static void doublePrecision() {
    Nd4j.setDefaultDataTypes(DataType.DOUBLE, DataType.DOUBLE);
  }

  /** Three Gaussian blobs in 8 dimensions (class c has mean 2 on axis c), one-hot labels. */
  static INDArray[] blobs(int n, long seed) {
    Random rnd = new Random(seed);
    double[][] x = new double[n][8];
    double[][] y = new double[n][3];
    for (int i = 0; i < n; i++) {
      int c = i % 3;
      for (int k = 0; k < 8; k++) {
        x[i][k] = 0.5 * rnd.nextGaussian() + (k == c ? 2.0 : 0.0);
      }
      y[i][c] = 1;
    }
    return new INDArray[] {Nd4j.createFromArray(x), Nd4j.createFromArray(y)};
  }

  static double accuracy(INDArray predictions, INDArray labels) {
    INDArray p = predictions.argMax(1);
    INDArray t = labels.argMax(1);
    return p.eq(t).castTo(DataType.DOUBLE).meanNumber().doubleValue();
  }

  private static DpMbcdTrainer.Builder trainer(MultiLayerNetwork net, INDArray[] data, double o) {
    return DpMbcdTrainer.builder(net, data[0], data[1]).batchSize(50).epochs(15)
        .learningRate(0.5).clipNorm(1.0).activationNormBound(1.0).inputNormBound(3.0)
        .noiseSchedule(NoiseTemperatureSchedule.constant(o)).noise(org.dp4j.noise.GaussianNoise.insecureFixedSeed(1))
        .partitionSeed(7);
  }

  @Test
  void learnsASyntheticClassificationTask() {
    INDArray[] train = blobs(600, 1);
    INDArray[] test = blobs(300, 2);
    MultiLayerNetwork net = LiftedMlpTest.mlp(5, 8, 16, 16, 3);
    double before = accuracy(net.output(test[0]), test[1]);
    DpMbcdTrainer t = trainer(net, train, 1e-6).build();
    double lossBefore = t.trainingLoss();
    t.train();
    MultiLayerNetwork released = t.releasedNetwork();
    assertThat(released.output(test[0]).reshape(900).toDoubleVector()).as("written-back blocks")
        .containsExactly(t.model().output(test[0]).reshape(900).toDoubleVector(), within(1e-12));
    double after = accuracy(released.output(test[0]), test[1]);
    assertThat(t.trainingLoss()).isLessThan(0.5 * lossBefore);
    assertThat(after).isGreaterThan(0.9).isGreaterThan(before);
  }

  @Test
  void softmaxCrossEntropyOutputLearnsAndHalvesTheOutputSmoothnessBound() {
    INDArray[] train = blobs(600, 11);
    INDArray[] test = blobs(300, 12);
    for (BlockStepRule rule : BlockStepRule.values()) {
      DpMbcdTrainer t = trainer(LiftedMlpTest.softmaxMlp(5, 8, 16, 3), train, 1e-6).blockStepRule(rule)
          .accounting(DpMbcdAccounting.builder().mode(org.dp4j.accounting.hiddenstate.DpMbcdMode.PAPER).build())
          .build();
      assertThat(t.mechanism().outputLoss()).isEqualTo(OutputLoss.SOFTMAX_CROSS_ENTROPY);
      assertThat(t.mechanism().smoothnessBound(1)).as("½(ρ² + 1)").isEqualTo(1.0);
      double lossBefore = t.trainingLoss();
      t.train();
      assertThat(t.trainingLoss()).as(rule.name()).isLessThan(0.5 * lossBefore);
      assertThat(accuracy(t.releasedNetwork().output(test[0]), test[1])).as(rule.name()).isGreaterThan(0.9);
    }
  }

  @Test
  void mechanismDescribesWhatTheTrainerDoes() {
    INDArray[] train = blobs(610, 3);
    INDArray original = train[0].dup();
    List<int[]> steps = new ArrayList<>();
    DpMbcdTrainer t = trainer(LiftedMlpTest.mlp(5, 8, 16, 16, 3), train, 0.02).epochs(2)
        .listener((k, j, o) -> {
          assertThat(o).isEqualTo(0.02);
          steps.add(new int[] {k, j});
        }).build();
    DpMbcdMechanism m = t.mechanism();
    assertThat(m.batchSize()).isEqualTo(50);
    assertThat(m.numBatchesPerEpoch()).isEqualTo(12);
    assertThat(m.examplesUsed()).isEqualTo(600);
    assertThat(m.examplesDropped()).isEqualTo(10);
    assertThat(m.gradientSensitivity()).isEqualTo(2.0);
    assertThat(m.neighbouringRelation()).isEqualTo(NeighbouringRelation.REPLACE_ONE);
    assertThat(m.noiseStd(1, 11)).isCloseTo(Math.sqrt(2 * 0.5 * 0.02), within(1e-15));
    assertThat(m.numReleasedBlocks()).isEqualTo(3);
    assertThat(m.blockParameterCount(0)).isEqualTo(8 * 16 + 16);
    assertThat(m.activationNormBound(0)).isEqualTo(3.0);
    assertThat(m.smoothnessBound(0)).isEqualTo(10.0);   // γ(ρ_0² + 1)
    assertThat(m.smoothnessBound(2)).isEqualTo(2.0);    // output: ρ_2² + 1
    assertThat(m.proxLipschitz()).isEqualTo(1.0);
    assertThat(m.secureNoise()).isFalse();
    assertThatThrownBy(() -> m.temperature(2, 0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("epoch");
    // auxiliaries: 600 examples x 2 x (16 + 16) doubles
    assertThat(t.auxiliaryBytes()).isEqualTo(600L * 2 * 32 * 8);
    t.train();
    assertThat(steps).hasSize(24);
    assertThat(train[0]).as("the caller's data is not clipped or permuted").isEqualTo(original);
    assertThat(steps.get(13)).containsExactly(1, 1);
    assertThatThrownBy(t::fitEpoch).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("2 planned epochs");
  }

  @Test
  void sameSeedsReproduceAndNoiseChangesTheResult() {
    INDArray[] train = blobs(300, 4);
    INDArray probe = blobs(10, 5)[0];
    double[] a = run(train, 1e-3, probe);
    double[] b = run(train, 1e-3, probe);
    double[] c = run(train, 1e-1, probe);
    assertThat(a).containsExactly(b);
    assertThat(Math.abs(a[0] - c[0])).isGreaterThan(1e-6);
  }

  @Test
  void batchSumsAreTheMeanRunWithStepTimesBAndTemperatureOverB() {
    // docs/errata.md#dp-mbcd-batch-mean: Eq. 17 as printed sums over the batch; the same map is the mean step with η·b, o/b
    INDArray[] train = blobs(300, 6);
    INDArray probe = blobs(10, 7)[0];
    DpMbcdAccounting paper = DpMbcdAccounting.builder().mode(org.dp4j.accounting.hiddenstate.DpMbcdMode.PAPER).build();
    for (BlockStepRule rule : BlockStepRule.values()) {
      DpMbcdTrainer sum = trainer(LiftedMlpTest.mlp(5, 8, 16, 3), train, 1e-3).epochs(2).learningRate(0.01)
          .blockStepRule(rule).batchReduction(BatchReduction.SUM).accounting(paper).build();
      DpMbcdTrainer mean = trainer(LiftedMlpTest.mlp(5, 8, 16, 3), train, 1e-3 / 50).epochs(2)
          .learningRate(0.01 * 50).blockStepRule(rule).accounting(paper).build();
      assertThat(sum.mechanism().meanLearningRate()).isCloseTo(0.5, within(1e-15));
      assertThat(sum.mechanism().meanTemperature(1, 3)).isCloseTo(2e-5, within(1e-20));
      assertThat(sum.mechanism().noiseStd(1, 3)).as("the noise is the same in both parameterisations")
          .isCloseTo(mean.mechanism().noiseStd(1, 3), within(1e-15));
      sum.train();
      mean.train();
      assertThat(sum.releasedNetwork().output(probe).reshape(30).toDoubleVector()).as(rule.name())
          .containsExactly(mean.releasedNetwork().output(probe).reshape(30).toDoubleVector(), within(1e-9));
      assertThat(sum.mechanism().toString()).contains("on batch sums");
    }
  }

  @Test
  void oneSummedStepEqualsAHandComputationAndTheNoiseHasTheStatedScale() {
    // one output block (3 → 2), n = b = 4, SUM: A' = A − η·Σ_i clip_C(x̃_iᵀr_i), r_i = x_i·A + c − y_i, and every
    // noise draw has std √(2η·o) (Chen & Liu Eq. 14 on sums; docs/errata.md#dp-mbcd-batch-mean)
    MultiLayerNetwork net = LiftedMlpTest.mlp(9, 3, 2);
    double[][] x = {{0.5, 0.1, -0.2}, {0, 0.6, 0.3}, {-0.4, 0.2, 0.2}, {0.1, -0.1, 0.7}};
    double[][] y = {{1, 0}, {0, 1}, {1, 0}, {0, 1}};
    double eta = 0.05;
    double o = 1e-3;
    double clip = 0.4;
    double[] p = net.params().toDoubleVector();   // DL4J order: A [3, 2] in 'f' order, then c
    double[][] a = new double[3][2];
    for (int k = 0; k < 3; k++) {
      for (int j = 0; j < 2; j++) {
        a[k][j] = p[j * 3 + k];
      }
    }
    double[] c = {p[6], p[7]};
    double[][] expectedA = new double[3][2];
    double[] expectedC = c.clone();
    for (int k = 0; k < 3; k++) {
      expectedA[k] = a[k].clone();
    }
    for (int i = 0; i < 4; i++) {
      double[] r = new double[2];
      double xx = 1;
      for (int k = 0; k < 3; k++) {
        xx += x[i][k] * x[i][k];
      }
      for (int j = 0; j < 2; j++) {
        r[j] = c[j] - y[i][j];
        for (int k = 0; k < 3; k++) {
          r[j] += x[i][k] * a[k][j];
        }
      }
      double norm = Math.sqrt(xx * (r[0] * r[0] + r[1] * r[1]));
      double scale = Math.min(1, clip / norm);
      for (int j = 0; j < 2; j++) {
        for (int k = 0; k < 3; k++) {
          expectedA[k][j] -= eta * scale * x[i][k] * r[j];
        }
        expectedC[j] -= eta * scale * r[j];
      }
    }
    List<Double> stds = new ArrayList<>();
    DpMbcdTrainer t = DpMbcdTrainer.builder(net, Nd4j.createFromArray(x), Nd4j.createFromArray(y)).batchSize(4)
        .epochs(1).learningRate(eta).clipNorm(clip).inputNormBound(1.0).batchReduction(BatchReduction.SUM)
        .noiseSchedule(NoiseTemperatureSchedule.constant(o)).noise((target, std) -> stds.add(std)).partitionSeed(1)
        .accounting(DpMbcdAccounting.builder().mode(org.dp4j.accounting.hiddenstate.DpMbcdMode.PAPER).build())
        .build();
    t.train();
    double[] q = t.releasedNetwork().params().toDoubleVector();
    for (int k = 0; k < 3; k++) {
      for (int j = 0; j < 2; j++) {
        assertThat(q[j * 3 + k]).as("A[%s][%s]", k, j).isCloseTo(expectedA[k][j], within(1e-12));
      }
    }
    assertThat(q[6]).isCloseTo(expectedC[0], within(1e-12));
    assertThat(q[7]).isCloseTo(expectedC[1], within(1e-12));
    assertThat(stds).hasSize(1).allSatisfy(std -> assertThat(std).isCloseTo(Math.sqrt(2 * eta * o), within(1e-15)));
  }

  private static double[] run(INDArray[] train, double o, INDArray probe) {
    DpMbcdTrainer t = trainer(LiftedMlpTest.mlp(5, 8, 16, 3), train, o).epochs(1).build();
    t.train();
    return t.releasedNetwork().output(probe).reshape(30).toDoubleVector();
  }

  @Test
  void rejectsInvalidConfigurationsWithTheOffendingValue() {
    INDArray[] train = blobs(100, 6);
    MultiLayerNetwork net = LiftedMlpTest.mlp(5, 8, 16, 3);
    assertThatThrownBy(() -> trainer(net, train, 0.01).maxAuxiliaryBytes(1000).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("25600 bytes");
    assertThatThrownBy(() -> trainer(net, train, 0.01).learningRate(-1).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-1.0");
    assertThatThrownBy(() -> trainer(net, train, 0.01).batchSize(101).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("101");
    assertThatThrownBy(() -> trainer(net, train, 0.01).epochs(3)
        .noiseSchedule(NoiseTemperatureSchedule.linearInEpoch(0.01, -0.005)).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("o(2, 0) must be finite and > 0");
    assertThat(java.io.Serializable.class.isAssignableFrom(DpMbcdTrainer.class)).isFalse();
  }
}
