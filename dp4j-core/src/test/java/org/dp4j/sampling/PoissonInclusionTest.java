package org.dp4j.sampling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.dp4j.noise.AesCtrRandom;
import org.junit.jupiter.api.Test;

class PoissonInclusionTest {
  @Test
  void coinsAreBernoulliWithTheExactRate() {
    double q = 0.3;
    PoissonInclusion coin = PoissonInclusion.withRate(q, AesCtrRandom.insecureFixedSeed(3));
    int tosses = 200_000;
    int heads = 0;
    for (int i = 0; i < tosses; i++) {
      heads += coin.next() ? 1 : 0;
    }
    // Binomial(200000, 0.3): standard deviation sqrt(n q (1 - q)) = 205; 4.5 of them.
    assertThat((double) heads).isCloseTo(q * tosses, within(4.5 * Math.sqrt(tosses * q * (1 - q))));
    // floor(0.3 * 2^53) / 2^53 is within 2^-53 below 0.3 (0.3 itself is not a dyadic rational).
    assertThat(coin.probability()).isLessThanOrEqualTo(q).isGreaterThan(q - 0x1p-53);
    assertThat(coin.isSecure()).isFalse();
  }

  @Test
  void coinsOfTheSameGeneratorAgreeWithThePoissonSampler() {
    // The sampler tosses one coin per index in order: same generator state, same batch.
    PoissonSampler sampler = PoissonSampler.withRate(1000, 0.05, AesCtrRandom.insecureFixedSeed(4));
    PoissonInclusion coin = PoissonInclusion.withRate(0.05, AesCtrRandom.insecureFixedSeed(4));
    int[] batch = sampler.nextBatch();
    int k = 0;
    for (int i = 0; i < 1000; i++) {
      if (coin.next()) {
        assertThat(batch[k++]).isEqualTo(i);
      }
    }
    assertThat(k).isEqualTo(batch.length);
  }

  @Test
  void refusesRatesOutsideTheUnitInterval() {
    assertThatThrownBy(() -> PoissonInclusion.withRate(0, AesCtrRandom.insecureFixedSeed(5)))
        .hasMessageContaining("was 0.0");
    assertThatThrownBy(() -> PoissonInclusion.withRate(1.5, AesCtrRandom.insecureFixedSeed(5)))
        .hasMessageContaining("was 1.5");
  }
}
