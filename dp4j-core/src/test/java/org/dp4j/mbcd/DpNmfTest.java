package org.dp4j.mbcd;

import org.dp4j.accounting.hiddenstate.NoiseTemperatureSchedule;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

class DpNmfTest {
  private static INDArray m;
  private static double initialError;
  private static double nonPrivateError;

  @BeforeAll
  static void syntheticProblem() {
    Nd4j.setDefaultDataTypes(DataType.DOUBLE, DataType.DOUBLE);
    // Xu & Yin 2013 / Chen & Liu D.1.1: M = XY with non-negative random X (1000x10), Y (10x200);
    // the distribution is unspecified, U[0,1) here
    Random rnd = new Random(2013);
    m = uniform(rnd, 1000, 10).mmul(uniform(rnd, 10, 200));
    DpNmf ref = base(100).nonPrivate().build();
    initialError = ref.relativeError();
    ref.train();
    nonPrivateError = ref.relativeError();
  }

  private static INDArray uniform(Random rnd, int r, int c) {
    double[][] a = new double[r][c];
    for (double[] row : a) {
      for (int k = 0; k < c; k++) {
        row[k] = rnd.nextDouble();
      }
    }
    return Nd4j.createFromArray(a);
  }

  private static DpNmf.Builder base(int epochs) {
    return DpNmf.builder(m, 10).batchSize(100).epochs(epochs).learningRate(1.0)
        .stepRule(NmfStepRule.CURVATURE_SCALED, 1.0).partitionSeed(3).initialisation(7, 0.3);
  }

  @Test
  void oneStepMatchesTheDigestVectorOfAlgorithm3() {
    // docs/errata.md#dp-mbcd-nmf: X_B = I, Y = [[1,2,0],[0,1,1]], M_B = [[2,2,0],[0,1,2]], κ = 1.1, η = 0.1:
    // X_new = 1.0183333333·I (per-row norms are 1, so clipping to C = 1 is inactive). The Y step
    // (every batch, per-user clip, Hessian X_BᵀX_B/b; docs/errata.md#dp-mbcd-nmf) was computed with numpy:
    // Y_new = [[1.04998319, 1.99813306, 0], [0, 0.99906653, 1.04998319]]
    INDArray mb = Nd4j.createFromArray(new double[][] {{2, 2, 0}, {0, 1, 2}});
    DpNmf nmf = DpNmf.builder(mb, 2).batchSize(2).epochs(1).learningRate(0.1)
        .stepRule(NmfStepRule.CURVATURE_SCALED, 1.1).partitionSeed(1)
        .initialFactors(Nd4j.eye(2), Nd4j.createFromArray(new double[][] {{1, 2, 0}, {0, 1, 1}}))
        .nonPrivate().build();
    nmf.train();
    assertThat(nmf.userFactors().reshape(4).toDoubleVector())
        .containsExactly(new double[] {1.0183333333, 0, 0, 1.0183333333}, within(1e-10));
    assertThat(nmf.itemFactors().reshape(6).toDoubleVector()).containsExactly(
        new double[] {1.04998319, 1.99813306, 0, 0, 0.99906653, 1.04998319}, within(1e-8));
  }

  @Test
  void fixedStepsMoveTheUserRowsByTheirOwnLearningRate() {
    // the tiny problem above with FIXED steps η_X = 0.2 (rows), η = 0.5 (Y), computed with numpy:
    // X' = max(0, X − 0.2·(XY − M)Yᵀ) = 1.2·I; Y' = max(0, Y − 0.5·X'ᵀ(X'Y − M)/2) = [[1.24, 1.88, 0], [0, 0.94, 1.24]]
    // (a shared η = 0.5 would give X' = 1.5·I)
    INDArray mb = Nd4j.createFromArray(new double[][] {{2, 2, 0}, {0, 1, 2}});
    DpNmf nmf = DpNmf.builder(mb, 2).batchSize(2).epochs(1).learningRate(0.5).userLearningRate(0.2)
        .stepRule(NmfStepRule.FIXED, Double.NaN).partitionSeed(1)
        .initialFactors(Nd4j.eye(2), Nd4j.createFromArray(new double[][] {{1, 2, 0}, {0, 1, 1}}))
        .nonPrivate().build();
    nmf.train();
    assertThat(nmf.userFactors().reshape(4).toDoubleVector())
        .containsExactly(new double[] {1.2, 0, 0, 1.2}, within(1e-12));
    assertThat(nmf.itemFactors().reshape(6).toDoubleVector())
        .containsExactly(new double[] {1.24, 1.88, 0, 0, 0.94, 1.24}, within(1e-12));
  }

  @Test
  void userRowNoiseHasVarianceTwoEtaXTimesO() {
    // M = X0·Y0 exactly, so the first X step has zero gradient: X' − X0 is the noise alone, N(0, 2η_X·o) per entry,
    // std √(2·0.01·0.5) = 0.1 (with η = 1 for the rows it would be 1.0); X0 = 5 keeps the projection inactive.
    // 800 entries: the sample std is within 10% (4 standard errors) of 0.1
    INDArray x0 = Nd4j.valueArrayOf(new long[] {400, 2}, 5.0);
    INDArray y0 = Nd4j.valueArrayOf(new long[] {2, 3}, 5.0);
    DpNmf nmf = DpNmf.builder(x0.mmul(y0), 2).batchSize(400).epochs(1).learningRate(1.0).userLearningRate(0.01)
        .stepRule(NmfStepRule.FIXED, Double.NaN).partitionSeed(1).initialFactors(x0, y0).clipNorm(1e6)
        .noiseSchedule(NoiseTemperatureSchedule.constant(0.5))
        .noise(org.dp4j.noise.GaussianNoise.insecureFixedSeed(11)).build();
    nmf.train();
    INDArray deviation = nmf.userFactors().sub(x0);
    assertThat(deviation.stdNumber().doubleValue()).isCloseTo(0.1, within(0.01));
    assertThat(Math.abs(deviation.meanNumber().doubleValue())).isLessThan(0.02);
    assertThat(nmf.mechanism().userLearningRate()).isEqualTo(0.01);
    assertThat(nmf.mechanism().learningRate()).isEqualTo(1.0);
    assertThat(nmf.mechanism().toString()).contains("eta_X=0.01");
  }

  @Test
  void nonPrivateMiniBatchBcdFitsWellBelowTenPercent() {
    // Chen & Liu Table 2 report 0.015 (±0.012) for non-private MBCD at b = 100
    assertThat(initialError).isGreaterThan(0.5);
    assertThat(nonPrivateError).isLessThan(0.02);
  }

  @Test
  void privateRunWithSmallNoiseStaysClose() {
    DpNmf nmf = base(100).clipNorm(1000.0).noiseSchedule(NoiseTemperatureSchedule.constant(1e-6))
        .noise(org.dp4j.noise.GaussianNoise.insecureFixedSeed(5)).build();
    nmf.train();
    assertThat(nmf.relativeError()).isLessThan(0.03).isLessThan(nonPrivateError + 0.01);
    assertThat(nmf.userFactors().minNumber().doubleValue()).isGreaterThanOrEqualTo(0.0);
    assertThat(nmf.itemFactors().minNumber().doubleValue()).isGreaterThanOrEqualTo(0.0);
    DpNmfMechanism mech = nmf.mechanism();
    assertThat(mech.numBatchesPerEpoch()).isEqualTo(10);
    assertThat(mech.gradientSensitivity()).isEqualTo(2000.0);
    assertThat(mech.stepRule()).isEqualTo(NmfStepRule.CURVATURE_SCALED);
  }

  @Test
  void rejectsInvalidConfigurations() {
    assertThatThrownBy(() -> base(1).clipNorm(1.0).build())
        .isInstanceOf(NullPointerException.class).hasMessageContaining("noise schedule");
    assertThatThrownBy(() -> base(1).clipNorm(0).noiseSchedule(NoiseTemperatureSchedule.constant(1)).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("was 0.0");
    assertThatThrownBy(() -> DpNmf.builder(m, 300)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("300");
    assertThatThrownBy(() -> base(1).userLearningRate(-0.1).nonPrivate().build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("eta_X").hasMessageContaining("-0.1");
    assertThatThrownBy(() -> base(1).nonPrivate().build().mechanism())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("non-private");
  }
}
