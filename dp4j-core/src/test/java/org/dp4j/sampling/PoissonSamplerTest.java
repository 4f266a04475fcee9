package org.dp4j.sampling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.dp4j.noise.AesCtrRandom;
import org.junit.jupiter.api.Test;

/**
 * Statistical bounds are 5 standard errors under the exact Binomial law of Poisson sampling
 * (two-sided tail 5.7e-7 by the normal approximation); the generator has a fixed seed.
 */
class PoissonSamplerTest {

  @Test
  void batchSizesHaveBinomialMeanAndVarianceAndRecordsAreUniform() {
    int n = 1000;
    double q = 0.01;
    int steps = 20_000;
    PoissonSampler sampler = PoissonSampler.withRate(n, q, AesCtrRandom.insecureFixedSeed(11));
    double[] sizes = new double[steps];
    int[] perRecord = new int[n];
    for (int t = 0; t < steps; t++) {
      int[] batch = sampler.nextBatch();
      sizes[t] = batch.length;
      for (int k = 0; k < batch.length; k++) {
        assertThat(batch[k]).isBetween(0, n - 1);
        if (k > 0) {
          assertThat(batch[k]).isGreaterThan(batch[k - 1]);   // sorted and distinct
        }
        perRecord[batch[k]]++;
      }
    }
    double mean = 0;
    for (double s : sizes) {
      mean += s;
    }
    mean /= steps;
    double var = 0;
    for (double s : sizes) {
      var += (s - mean) * (s - mean);
    }
    var /= steps - 1;
    double sigma2 = n * q * (1 - q);   // 9.9
    // Mean: 10 ± 5·sqrt(9.9/20000) = ±0.111.
    assertThat(mean).isCloseTo(n * q, within(5 * Math.sqrt(sigma2 / steps)));
    // Variance: Var(s²) ≈ (μ4 − σ⁴)/T with μ4 = σ⁴(3 + (1 − 6q(1−q))/σ²) for a binomial:
    // sd(s²) = 9.9·sqrt((2 + 0.0951)/20000) = 0.101, bound ±0.51.
    double excess = (1 - 6 * q * (1 - q)) / sigma2;
    assertThat(var).isCloseTo(sigma2, within(5 * sigma2 * Math.sqrt((2 + excess) / steps)));
    // Per-record counts are independent Binomial(20000, q): Pearson χ² with ~1000 df, mean 1000,
    // sd sqrt(2000) = 44.7; bound ±5 sd.
    double expected = steps * q;
    double chi2 = 0;
    for (int c : perRecord) {
      chi2 += (c - expected) * (c - expected) / (expected * (1 - q));
    }
    assertThat(chi2).isCloseTo(n, within(5 * Math.sqrt(2.0 * n)));
  }

  @Test
  void emptyBatchesOccurAtTheBinomialRateAndAreEmptyArrays() {
    int n = 100;
    double q = 0.01;
    int steps = 2000;
    PoissonSampler sampler = PoissonSampler.withRate(n, q, AesCtrRandom.insecureFixedSeed(12));
    int empty = 0;
    for (int t = 0; t < steps; t++) {
      int[] batch = sampler.nextBatch();
      assertThat(batch).isNotNull();
      if (batch.length == 0) {
        empty++;
      }
    }
    double p0 = Math.pow(1 - q, n);   // 0.36603
    // 732.1 ± 5·sqrt(2000·p0(1−p0)) = ±107.7
    assertThat((double) empty).isCloseTo(steps * p0, within(5 * Math.sqrt(steps * p0 * (1 - p0))));
    // Normalisation stays the constant qn even when batches are empty (docs/sampling.md#expected-batch-size).
    assertThat(sampler.plan().expectedBatchSize()).isEqualTo(1.0, within(1e-12));
  }

  @Test
  void planFollowsTheTfPrivacyConventionAndNeverOverstatesTheRate() {
    PoissonSampler sampler = PoissonSampler.withExpectedBatchSize(60_000, 256, AesCtrRandom.insecureFixedSeed(1));
    SamplingPlan plan = sampler.plan();
    assertThat(plan.scheme()).isEqualTo(SamplingScheme.POISSON);
    assertThat(sampler.samplingScheme()).isEqualTo(SamplingScheme.POISSON);
    assertThat(plan.samplingRate()).isEqualTo(256.0 / 60_000);
    assertThat(plan.expectedBatchSize()).isCloseTo(256.0, within(1e-9));
    assertThat(plan.stepsPerEpoch()).isEqualTo(235);   // ceil(60000/256), as TF Privacy counts
    assertThat(sampler.inclusionProbability()).isLessThanOrEqualTo(256.0 / 60_000)
        .isGreaterThan(256.0 / 60_000 - 0x1p-53);
    assertThat(PoissonSampler.withRate(1000, 0.01, AesCtrRandom.insecureFixedSeed(1)).plan().stepsPerEpoch())
        .isEqualTo(100);
    assertThat(PoissonSampler.withRate(1000, 0.3, AesCtrRandom.insecureFixedSeed(1)).plan().stepsPerEpoch())
        .isEqualTo(4);
    assertThatThrownBy(() -> sampler.plan().fixedBatchSize()).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("Poisson batches have no fixed size");
  }

  @Test
  void rateOneTakesEveryRecord() {
    PoissonSampler sampler = PoissonSampler.withRate(5, 1.0, AesCtrRandom.insecureFixedSeed(1));
    assertThat(sampler.nextBatch()).containsExactly(0, 1, 2, 3, 4);
  }

  @Test
  void rejectsInvalidParameters() {
    AesCtrRandom random = AesCtrRandom.insecureFixedSeed(1);
    assertThatThrownBy(() -> PoissonSampler.withRate(100, 0.0, random))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("q must be in (0, 1], was 0.0");
    assertThatThrownBy(() -> PoissonSampler.withRate(100, 1.5, random))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("was 1.5");
    assertThatThrownBy(() -> PoissonSampler.withExpectedBatchSize(100, 101, random))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("was 101");
    assertThatThrownBy(() -> PoissonSampler.withRate(0, 0.1, random))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("dataset size must be > 0, was 0");
  }
}
