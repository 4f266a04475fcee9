package org.dp4j.sampling;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.dp4j.accounting.SampledGaussianMechanism;
import org.dp4j.noise.AesCtrRandom;
import org.junit.jupiter.api.Test;

class SamplingCompatibilityTest {
  private final AesCtrRandom random = AesCtrRandom.insecureFixedSeed(41);
  private final SampledGaussianMechanism sgm = SampledGaussianMechanism.forBatches(60_000, 256, 1.1);

  @Test
  void poissonSamplerAtTheSameRateMatchesTheSampledGaussianAccountant() {
    PoissonSampler sampler = PoissonSampler.withExpectedBatchSize(60_000, 256, random);
    assertThatCode(() -> SamplingCompatibility.requireMatches(sgm, sampler.plan())).doesNotThrowAnyException();
  }

  @Test
  void shuffleOnceIsRefusedByTheSampledGaussianAccountant() {
    ShuffleOncePartition sampler = new ShuffleOncePartition(60_000, 256, random);
    assertThatThrownBy(() -> SamplingCompatibility.requireMatches(sgm, sampler.plan()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("the sampled-Gaussian accountant assumes Poisson sampling")
        .hasMessageContaining("the sampler is shuffle-once fixed partition")
        .hasMessageContaining("96 records dropped");
  }

  @Test
  void poissonAtAnotherRateIsRefused() {
    PoissonSampler sampler = PoissonSampler.withExpectedBatchSize(60_000, 512, random);
    assertThatThrownBy(() -> SamplingCompatibility.requireMatches(sgm, sampler.plan()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("uses q = 0.0042666").hasMessageContaining("draws with q = 0.008533");
  }

  @Test
  void fixedSizeAccountantsCheckSchemeBatchAndUsableRecords() {
    SamplingPlan shuffle = new ShuffleOncePartition(60_000, 256, random).plan();
    SamplingScheme once = SamplingScheme.SHUFFLE_ONCE_FIXED_PARTITION;
    assertThatCode(() -> SamplingCompatibility.requireFixedSize("Ye-Shokri", once, 59_904, 256, shuffle))
        .doesNotThrowAnyException();
    assertThatThrownBy(() -> SamplingCompatibility.requireFixedSize("Ye-Shokri", once, 60_000, 256, shuffle))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("uses n = 60000 records but the sampler uses 59904");
    assertThatThrownBy(() -> SamplingCompatibility.requireFixedSize("Ye-Shokri", once, 59_904, 128, shuffle))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("b = 128 but the sampler draws b = 256");
    SamplingPlan perStep = new WithoutReplacementSampler(60_000, 256, random).plan();
    assertThatThrownBy(() -> SamplingCompatibility.requireFixedSize("DP-MBCD", once, 60_000, 256, perStep))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("the DP-MBCD accountant assumes shuffle-once fixed partition")
        .hasMessageContaining("the sampler is sampling without replacement per step");
  }
}
