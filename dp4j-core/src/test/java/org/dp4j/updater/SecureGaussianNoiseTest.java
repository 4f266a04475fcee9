package org.dp4j.updater;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

class SecureGaussianNoiseTest {
  private static final int N = 200_001;   // odd, to exercise the unpaired last normal

  @Test
  void momentsAndOneSigmaMassMatchTheNormalDistribution() {
    double std = 2.5;
    INDArray target = Nd4j.zeros(DataType.DOUBLE, 1, N).addi(3.0);
    new SecureGaussianNoise().addGaussian(target, std);
    INDArray z = target.sub(3.0).divi(std);
    // Tolerances are 6 standard errors of each estimator, so a correct sampler fails with probability < 1e-8.
    assertThat(z.meanNumber().doubleValue()).isCloseTo(0.0, within(6 / Math.sqrt(N)));
    assertThat(z.varNumber().doubleValue()).isCloseTo(1.0, within(6 * Math.sqrt(2.0 / N)));
    // P(|Z| <= 1) = erf(1/sqrt 2) = 0.6826894921370859 (scipy.special.erf).
    double mass = z.dup().muli(z).lte(1.0).castTo(DataType.DOUBLE).meanNumber().doubleValue();
    double p = 0.6826894921370859;
    assertThat(mass).isCloseTo(p, within(6 * Math.sqrt(p * (1 - p) / N)));
  }

  @Test
  void floatTargetsAndFreshNoisePerCall() {
    INDArray a = Nd4j.zeros(DataType.FLOAT, 4, 5);
    INDArray b = Nd4j.zeros(DataType.FLOAT, 4, 5);
    SecureGaussianNoise noise = new SecureGaussianNoise();
    noise.addGaussian(a, 1.0);
    noise.addGaussian(b, 1.0);
    assertThat(a.dataType()).isEqualTo(DataType.FLOAT);
    assertThat(a.neq(0.0).castTo(DataType.INT32).sumNumber().intValue()).isEqualTo(20);
    assertThat(a).isNotEqualTo(b);
  }
}
