package org.dp4j.sampling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Arrays;
import org.dp4j.noise.AesCtrRandom;
import org.junit.jupiter.api.Test;

/** Bounds are 5 standard errors of binomial counts; fixed seed. */
class WithoutReplacementSamplerTest {

  @Test
  void batchesAreDistinctUniformSubsetsOfFixedSize() {
    int n = 50;
    int b = 7;
    int steps = 20_000;
    WithoutReplacementSampler sampler = new WithoutReplacementSampler(n, b, AesCtrRandom.insecureFixedSeed(31));
    assertThat(sampler.plan().stepsPerEpoch()).isEqualTo(7);
    assertThat(sampler.plan().samplingRate()).isEqualTo(0.14);
    int[] perRecord = new int[n];
    int pair01 = 0;
    int pair0Last = 0;
    int[] previous = null;
    int repeats = 0;
    for (int t = 0; t < steps; t++) {
      int[] batch = sampler.nextBatch();
      assertThat(batch).hasSize(b);
      assertThat(Arrays.stream(batch).distinct().count()).isEqualTo(b);   // no duplicates
      assertThat(batch).isSorted();
      for (int i : batch) {
        assertThat(i).isBetween(0, n - 1);
        perRecord[i]++;
      }
      boolean has0 = Arrays.binarySearch(batch, 0) >= 0;
      pair01 += has0 && Arrays.binarySearch(batch, 1) >= 0 ? 1 : 0;
      pair0Last += has0 && Arrays.binarySearch(batch, n - 1) >= 0 ? 1 : 0;
      repeats += Arrays.equals(batch, previous) ? 1 : 0;
      previous = batch;
    }
    // Each record: Binomial(T, b/n), 2800 ± 5·49.1.
    double p1 = (double) b / n;
    for (int c : perRecord) {
      assertThat((double) c).isCloseTo(steps * p1, within(5 * Math.sqrt(steps * p1 * (1 - p1))));
    }
    // A given pair: P = b(b−1)/(n(n−1)) = 42/2450 for a uniform subset; 342.9 ± 5·18.4.
    double p2 = (double) b * (b - 1) / (n * (n - 1.0));
    double tolerance = 5 * Math.sqrt(steps * p2 * (1 - p2));
    assertThat((double) pair01).isCloseTo(steps * p2, within(tolerance));
    assertThat((double) pair0Last).isCloseTo(steps * p2, within(tolerance));
    // Consecutive equal batches: probability 1/C(50,7) ≈ 1e-8 per step.
    assertThat(repeats).isZero();
  }

  @Test
  void fullBatchIsEveryRecord() {
    WithoutReplacementSampler sampler = new WithoutReplacementSampler(4, 4, AesCtrRandom.insecureFixedSeed(1));
    assertThat(sampler.nextBatch()).containsExactly(0, 1, 2, 3);
    assertThat(sampler.samplingScheme()).isEqualTo(SamplingScheme.WITHOUT_REPLACEMENT);
  }
}
