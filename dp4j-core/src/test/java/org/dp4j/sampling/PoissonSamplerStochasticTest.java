package org.dp4j.sampling;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.commons.math3.distribution.BinomialDistribution;
import org.dp4j.noise.AesCtrRandom;
import org.junit.jupiter.api.Test;

/**
 * A stochastic test of Poisson sampling (Google DP stochastic-tester spirit): the inclusion rate, and independence
 * across records and across steps, which the sampled-Gaussian accountant assumes (Mironov, Talwar &amp; Zhang 2019).
 * Acceptance bands are exact binomial quantiles from Apache Commons Math at 5e-7 on each side, so a correct sampler
 * fails a check with probability at most 1e-6; the generator has a fixed seed.
 */
class PoissonSamplerStochasticTest {
  private static final int N = 2000;
  private static final double Q = 0.05;
  private static final int STEPS = 4000;

  @Test
  void inclusionRateAndIndependenceAcrossRecordsAndSteps() {
    PoissonSampler sampler = PoissonSampler.withRate(N, Q, AesCtrRandom.insecureFixedSeed(201));
    long inclusions = 0;
    long adjacentPairs = 0;   // records i and i+1 both in one batch
    long farPairs = 0;        // records i and i + N/2 both in one batch
    long repeats = 0;         // record i in two consecutive batches
    boolean[] previous = new boolean[N];
    boolean[] current = new boolean[N];
    for (int t = 0; t < STEPS; t++) {
      java.util.Arrays.fill(current, false);
      for (int i : sampler.nextBatch()) {
        current[i] = true;
      }
      for (int i = 0; i < N; i++) {
        if (current[i]) {
          inclusions++;
          adjacentPairs += i + 1 < N && current[i + 1] ? 1 : 0;
          farPairs += i < N / 2 && current[i + N / 2] ? 1 : 0;
          repeats += t > 0 && previous[i] ? 1 : 0;
        }
      }
      boolean[] swap = previous;
      previous = current;
      current = swap;
    }
    double q = sampler.inclusionProbability();
    // Each count is a sum of independent Bernoulli trials under the null: q for inclusions, q² for pairs and repeats.
    assertInBand(inclusions, (long) N * STEPS, q);
    assertInBand(adjacentPairs, (long) (N - 1) * STEPS, q * q);
    assertInBand(farPairs, (long) (N / 2) * STEPS, q * q);
    assertInBand(repeats, (long) N * (STEPS - 1), q * q);
  }

  private static void assertInBand(long count, long trials, double p) {
    // Pairs over overlapping windows are not all independent (i, i+1 and i+1, i+2 share a record); their variance is
    // slightly larger, (1 + 2q)·np(1−p) for adjacent pairs, so the band is widened by that factor around the mean.
    BinomialDistribution b = new BinomialDistribution(null, (int) trials, p);
    double mean = trials * p;
    double widen = Math.sqrt(1 + 2 * Q);
    double lo = mean - widen * (mean - b.inverseCumulativeProbability(5e-7));
    double hi = mean + widen * (b.inverseCumulativeProbability(1 - 5e-7) - mean);
    assertThat((double) count).as("count %s of %s trials at p = %s", count, trials, p).isBetween(lo, hi);
  }
}
