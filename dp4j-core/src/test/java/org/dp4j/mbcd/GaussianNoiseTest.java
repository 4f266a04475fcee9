package org.dp4j.mbcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.apache.commons.math3.distribution.NormalDistribution;
import org.apache.commons.math3.stat.inference.KolmogorovSmirnovTest;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

class GaussianNoiseTest {

  @BeforeAll
  static void doublePrecision() {
    Nd4j.setDefaultDataTypes(DataType.DOUBLE, DataType.DOUBLE);
  }

  @Test
  void secureNoiseIsGaussianWithTheRequestedStd() {
    INDArray z = GaussianNoise.secure().sample(DataType.DOUBLE, 20001, 0.3);
    assertThat(z.shape()).containsExactly(1, 20001);
    double[] v = z.toDoubleVector();
    // Kolmogorov–Smirnov against N(0, 0.3²) (commons-math); a false alarm has probability 1e-4
    double p = new KolmogorovSmirnovTest().kolmogorovSmirnovTest(new NormalDistribution(0, 0.3), v);
    assertThat(p).isGreaterThan(1e-4);
    assertThat(z.stdNumber().doubleValue()).isCloseTo(0.3, within(0.01));
    assertThat(GaussianNoise.secure().isSecure()).isTrue();
  }

  @Test
  void seededNoiseIsReproducibleAndSaysItIsNotSecure() {
    GaussianNoise a = GaussianNoise.seededForTestsOnly(4);
    GaussianNoise b = GaussianNoise.seededForTestsOnly(4);
    assertThat(a.sample(DataType.DOUBLE, 5, 1.0)).isEqualTo(b.sample(DataType.DOUBLE, 5, 1.0));
    assertThat(a.isSecure()).isFalse();
  }
}
