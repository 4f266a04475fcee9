package org.dp4j.noise;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.apache.commons.math3.distribution.NormalDistribution;
import org.apache.commons.math3.stat.inference.KolmogorovSmirnovTest;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.memory.MemoryWorkspace;
import org.nd4j.linalg.api.memory.conf.WorkspaceConfiguration;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;

/**
 * Statistical checks in fixed-seed mode. Bounds are 5 standard errors of the statistic under the
 * exact N(0, σ²) law (two-sided tail probability 5.7e-7 each), so a correct sampler passes for
 * essentially every seed and a wrong scale, offset or shape fails.
 */
class GaussianNoiseTest {
  private static final int N = 1_000_000;

  @Test
  void meanVarianceKurtosisAndTailsOfFill() {
    double std = 2.5;
    double[] x = new double[N];
    GaussianNoise.insecureFixedSeed(1).fill(x, std);
    assertMoments(x, 0.0, std);
  }

  @Test
  void hardenedModeHasTheSameLaw() {
    double std = 0.3;
    double[] x = new double[N];
    GaussianNoise.hardened(AesCtrRandom.insecureFixedSeed(2)).fill(x, std);
    assertMoments(x, 0.0, std);
  }

  @Test
  void kolmogorovSmirnovAgainstCommonsMathNormal() {
    double[] x = new double[200_000];
    GaussianNoise.insecureFixedSeed(3).fill(x, 1.0);
    // Reference CDF from Apache Commons Math, not from the sampler; p-value must not be tiny.
    double p = new KolmogorovSmirnovTest().kolmogorovSmirnovTest(new NormalDistribution(null, 0, 1), x);
    assertThat(p).isGreaterThan(1e-4);
  }

  @Test
  void addToNoisesEveryCoordinateOfADoubleMatrixInPlace() {
    INDArray target = Nd4j.valueArrayOf(new long[] {500, 400}, 3.0, DataType.DOUBLE);
    INDArray returned = GaussianNoise.insecureFixedSeed(4).addTo(target, 0.7);
    assertThat(returned).isSameAs(target);
    double[] values = target.data().asDouble();
    assertThat(values).hasSize(200_000);
    assertMoments(values, 3.0, 0.7);
  }

  @Test
  void addToWorksOnFloatViewsInFortranOrder() {
    INDArray parent = Nd4j.create(DataType.FLOAT, new long[] {300, 400}, 'f');
    // Rows of an 'f' matrix: a strided, non-contiguous view.
    INDArray view = parent.get(NDArrayIndex.interval(0, 200), NDArrayIndex.all());
    GaussianNoise.insecureFixedSeed(5).addTo(view, 1.5);
    double[] noised = view.dup().data().asDouble();
    assertMoments(noised, 0.0, 1.5);
    assertThat(view.isView()).isTrue();
    // Rows outside the view stay untouched.
    assertThat(parent.get(NDArrayIndex.interval(200, 300), NDArrayIndex.all()).amaxNumber().doubleValue())
        .isZero();
  }

  @Test
  void addToWorksOnAnArrayInsideAnOpenWorkspace() {
    // As inside a DL4J updater, where WS_ALL_LAYERS_ACT is open (docs/dl4j-internals.md#workspaces).
    WorkspaceConfiguration config = WorkspaceConfiguration.builder().initialSize(16L << 20).build();
    try (MemoryWorkspace ws = Nd4j.getWorkspaceManager().getAndActivateWorkspace(config, "DP4J_NOISE_TEST")) {
      INDArray target = Nd4j.zeros(DataType.FLOAT, 100_000);
      assertThat(target.isAttached()).isTrue();
      GaussianNoise.insecureFixedSeed(6).addTo(target, 2.0);
      assertMoments(target.data().asDouble(), 0.0, 2.0);
    }
  }

  @Test
  void fixedSeedIsReproducibleAndFlaggedInsecure() {
    GaussianNoise a = GaussianNoise.insecureFixedSeed(9);
    GaussianNoise b = GaussianNoise.insecureFixedSeed(9);
    assertThat(a.sample(1.0)).isEqualTo(b.sample(1.0));
    assertThat(a.isSecure()).isFalse();
    assertThat(GaussianNoise.secure().isSecure()).isTrue();
  }

  @Test
  void rejectsInvalidStdAndDrawCounts() {
    GaussianNoise noise = GaussianNoise.insecureFixedSeed(1);
    assertThatThrownBy(() -> noise.sample(0.0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("noise std must be finite and > 0, was 0.0");
    assertThatThrownBy(() -> noise.fill(new double[3], Double.NaN))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("was NaN");
    assertThatThrownBy(() -> new GaussianNoise(AesCtrRandom.insecureFixedSeed(1), 2))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("was 2");
  }

  /**
   * Sample mean within 5σ/√n; sample variance within 5σ²√(2/n); kurtosis within 3 ± 5√(24/n);
   * fraction beyond 3σ within 2Φ(−3) = 0.0026998 ± 5√(p(1−p)/n) (standard large-sample errors).
   */
  private static void assertMoments(double[] x, double mean, double std) {
    int n = x.length;
    double sum = 0;
    for (double v : x) {
      sum += v;
    }
    double m = sum / n;
    double m2 = 0;
    double m4 = 0;
    int beyond3 = 0;
    for (double v : x) {
      double d = v - m;
      m2 += d * d;
      m4 += d * d * d * d;
      if (Math.abs(v - mean) > 3 * std) {
        beyond3++;
      }
    }
    m2 /= n;
    m4 /= n;
    double var = std * std;
    assertThat(m).isCloseTo(mean, within(5 * std / Math.sqrt(n)));
    assertThat(m2).isCloseTo(var, within(5 * var * Math.sqrt(2.0 / n)));
    assertThat(m4 / (m2 * m2)).isCloseTo(3.0, within(5 * Math.sqrt(24.0 / n)));
    double p3 = 0.0026997960632601866;   // 2Φ(−3), scipy.stats.norm.sf(3)*2
    assertThat((double) beyond3 / n).isCloseTo(p3, within(5 * Math.sqrt(p3 * (1 - p3) / n)));
  }
}
