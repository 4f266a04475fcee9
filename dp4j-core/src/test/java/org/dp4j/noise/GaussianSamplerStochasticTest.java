package org.dp4j.noise;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.commons.math3.distribution.NormalDistribution;
import org.apache.commons.math3.stat.inference.KolmogorovSmirnovTest;
import org.junit.jupiter.api.Test;

/**
 * A stochastic test of the secure Gaussian sampler in the spirit of Google's DP stochastic tester: the whole
 * distribution (Kolmogorov–Smirnov) and the far tails that decide a DP guarantee (counts beyond 4σ, 5σ and 6σ in 10⁸
 * draws, against exact binomial acceptance bands). Every threshold is set so that a correct sampler fails with
 * probability at most 1e-6 per check; the generator has a fixed seed, so the test is also deterministic. Reference
 * values: {@code src/test/python/stochastic_reference.py} (mpmath, scipy).
 */
class GaussianSamplerStochasticTest {
  private static final double STD = 2.5;

  /** KS against N(0, σ²) from Apache Commons Math on 10⁶ draws: under the null the p-value is uniform, so p > 1e-6. */
  @Test
  void kolmogorovSmirnovAgainstTheExactNormal() {
    double[] x = new double[1_000_000];
    GaussianNoise.insecureFixedSeed(101).fill(x, STD);
    double p = new KolmogorovSmirnovTest().kolmogorovSmirnovTest(new NormalDistribution(null, 0, STD), x);
    assertThat(p).isGreaterThan(1e-6);
  }

  /**
   * Tails in 10⁸ draws: counts beyond kσ are Binomial(10⁸, P(|Z| &gt; k)); the bands are scipy's exact binomial
   * quantiles at 5e-7 on each side (k = 4: expected 6334.2, band [5949, 6727]; k = 5: 57.3, [24, 98]; k = 6: 0.197,
   * [0, 5]). A sampler that truncates or thins its tail (as a table-based or Box–Muller sampler on a short word can)
   * has far fewer draws beyond 5σ and 6σ; one with too heavy tails, far more. The signs must balance too.
   */
  @Test
  void tailCountsBeyondFourFiveAndSixSigmaMatchTheNormal() {
    GaussianNoise noise = GaussianNoise.insecureFixedSeed(102);
    double[] chunk = new double[1 << 20];
    long total = 100_000_000L;
    long[] beyond = new long[7];
    long positiveBeyond4 = 0;
    for (long done = 0; done < total; done += chunk.length) {
      int n = (int) Math.min(chunk.length, total - done);
      if (n < chunk.length) {
        chunk = new double[n];
      }
      noise.fill(chunk, STD);
      for (double v : chunk) {
        double a = Math.abs(v) / STD;
        for (int k = 4; k <= 6; k++) {
          if (a > k) {
            beyond[k]++;
          }
        }
        if (v / STD > 4) {
          positiveBeyond4++;
        }
      }
    }
    assertThat(beyond[4]).isBetween(5949L, 6727L);
    assertThat(beyond[5]).isBetween(24L, 98L);
    assertThat(beyond[6]).isBetween(0L, 5L);
    // Given the count beyond 4σ, the positive ones are Binomial(count, 1/2): within 5.3 standard deviations
    // (two-sided normal tail 1.2e-7).
    double sd = Math.sqrt(beyond[4] / 4.0);
    assertThat((double) positiveBeyond4).isBetween(beyond[4] / 2.0 - 5.3 * sd, beyond[4] / 2.0 + 5.3 * sd);
  }
}
