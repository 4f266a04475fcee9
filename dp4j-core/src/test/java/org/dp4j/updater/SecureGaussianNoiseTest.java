package org.dp4j.updater;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Arrays;
import org.apache.commons.math3.distribution.NormalDistribution;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * The sampler against the normal distribution of commons-math (an independent implementation of Φ) and tail
 * masses from scipy.stats.norm. Every tolerance is at least 4.5 standard errors, so a correct sampler fails with
 * probability below about 1e-5 per assertion.
 */
class SecureGaussianNoiseTest {
  private static final int N = 400_001;   // odd, to exercise a non-paired length

  private static double[] standardNormals(NoiseSource noise, double std) {
    INDArray target = Nd4j.zeros(DataType.DOUBLE, 1, N).addi(3.0);
    noise.addGaussian(target, std);
    return target.sub(3.0).divi(std).toDoubleVector();
  }

  @Test
  void kolmogorovDistanceMomentsAndTailsMatchTheNormalDistribution() {
    double[] z = standardNormals(new SecureGaussianNoise(), 2.5);
    double mean = Arrays.stream(z).average().orElseThrow();
    double variance = Arrays.stream(z).map(v -> (v - mean) * (v - mean)).sum() / (N - 1);
    assertThat(mean).isCloseTo(0.0, within(5 / Math.sqrt(N)));
    assertThat(variance).isCloseTo(1.0, within(5 * Math.sqrt(2.0 / N)));

    // Kolmogorov–Smirnov distance; 1.95/sqrt(N) is the 0.1% critical value.
    double[] sorted = z.clone();
    Arrays.sort(sorted);
    NormalDistribution phi = new NormalDistribution(0, 1);
    double distance = 0;
    for (int i = 0; i < N; i++) {
      double cdf = phi.cumulativeProbability(sorted[i]);
      distance = Math.max(distance, Math.max(cdf - (double) i / N, (i + 1.0) / N - cdf));
    }
    assertThat(distance).isLessThan(1.95 / Math.sqrt(N));

    // The ziggurat's tail branch starts at R = 3.442619855899: P(|Z| > R) = 5.761085123916392e-4 and
    // P(|Z| > 4) = 6.334248366623973e-5 (scipy.stats.norm.sf).
    assertTailMass(z, 3.442619855899, 5.761085123916392e-4);
    assertTailMass(z, 4.0, 6.334248366623973e-5);
    // P(|Z| <= 1) = 0.6826894921370859.
    assertTailMass(z, 1.0, 1 - 0.6826894921370859);
  }

  private static void assertTailMass(double[] z, double threshold, double p) {
    double observed = Arrays.stream(z).filter(v -> Math.abs(v) > threshold).count() / (double) z.length;
    assertThat(observed).as("P(|Z| > %s)", threshold)
        .isCloseTo(p, within(4.5 * Math.sqrt(p * (1 - p) / z.length)));
  }

  @Test
  void floatTargetsGetTheSameDistributionAndFreshNoisePerCall() {
    INDArray a = Nd4j.zeros(DataType.FLOAT, 100, 1000);
    INDArray b = Nd4j.zeros(DataType.FLOAT, 100, 1000);
    SecureGaussianNoise noise = new SecureGaussianNoise();
    noise.addGaussian(a, 0.5);
    noise.addGaussian(b, 0.5);
    assertThat(a.dataType()).isEqualTo(DataType.FLOAT);
    double[] z = a.castTo(DataType.DOUBLE).divi(0.5).ravel().toDoubleVector();
    assertThat(Arrays.stream(z).map(v -> v * v).average().orElseThrow())
        .isCloseTo(1.0, within(5 * Math.sqrt(2.0 / z.length)));
    assertTailMass(z, 1.0, 1 - 0.6826894921370859);
    assertThat(a.eq(b).castTo(DataType.INT32).sumNumber().intValue()).isZero();
  }

  @Test
  void seededNoiseIsReproducibleAndDistributedAlike() {
    double[] first = standardNormals(SeededGaussianNoise.forTestsOnly(11), 1.0);
    double[] again = standardNormals(SeededGaussianNoise.forTestsOnly(11), 1.0);
    assertThat(Arrays.equals(again, first)).as("same seed, same noise").isTrue();
    assertTailMass(first, 1.0, 1 - 0.6826894921370859);
  }
}
