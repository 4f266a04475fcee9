package org.dp4j.sampling;

import static com.google.common.base.Preconditions.checkNotNull;
import static org.dp4j.InvalidSettingException.checkArgument;

import org.dp4j.accounting.SampledGaussianMechanism;

/**
 * The check a trainer runs before the first step: the sampler must draw batches the way the
 * accountant's theorem assumes, with the same parameters (contract 2, docs/architecture.md#contract-accountant; docs/sampling.md#poisson,
 * docs/sampling.md#shuffle-once). A mismatch is an
 * {@link IllegalArgumentException} that names both sides.
 *
 * <pre>{@code
 * // given: BatchSampler sampler; double q; double z
 * SamplingCompatibility.requireMatches(new SampledGaussianMechanism(q, z), sampler.plan());
 * // "the sampled-Gaussian accountant assumes Poisson sampling (...); the sampler is
 * //  shuffle-once fixed partition (...)"
 * }</pre>
 */
public final class SamplingCompatibility {
  private SamplingCompatibility() {}

  /** Refuses a sampler whose scheme differs from the one the named accountant assumes. */
  public static void requireScheme(String accountant, SamplingScheme assumed, SamplingPlan actual) {
    checkNotNull(accountant, "accountant");
    checkNotNull(assumed, "assumed");
    checkNotNull(actual, "actual");
    checkArgument(actual.scheme() == assumed,
        "the %s accountant assumes %s (%s); the sampler is %s: %s. Use a sampler of the assumed "
            + "scheme or an accountant for the sampler's scheme",
        accountant, assumed.label(), assumed.definition(), actual.scheme().label(), actual.describe());
  }

  /** The sampled-Gaussian accountant needs Poisson sampling at exactly the mechanism's rate q. */
  public static void requireMatches(SampledGaussianMechanism mechanism, SamplingPlan actual) {
    checkNotNull(mechanism, "mechanism");
    requireScheme("sampled-Gaussian", SamplingScheme.POISSON, actual);
    double q = mechanism.samplingRate();
    checkArgument(Math.abs(actual.samplingRate() - q) <= 1e-12 * q,
        "the sampled-Gaussian accountant uses q = %s but the sampler draws with q = %s: %s",
        q, actual.samplingRate(), actual.describe());
  }

  /**
   * For fixed-size schemes: scheme, batch size b and the number of records the accountant uses as n
   * (compared with {@link SamplingPlan#usableRecords()}, i.e. after a shuffle-once remainder is
   * dropped) must all agree.
   */
  public static void requireFixedSize(String accountant, SamplingScheme assumed, int datasetSize,
      int batchSize, SamplingPlan actual) {
    checkArgument(assumed != SamplingScheme.POISSON,
        "requireFixedSize is for fixed-size schemes, was %s", assumed.label());
    requireScheme(accountant, assumed, actual);
    checkArgument(actual.fixedBatchSize() == batchSize,
        "the %s accountant uses batch size b = %s but the sampler draws b = %s: %s",
        accountant, batchSize, actual.fixedBatchSize(), actual.describe());
    checkArgument(actual.usableRecords() == datasetSize,
        "the %s accountant uses n = %s records but the sampler uses %s: %s",
        accountant, datasetSize, actual.usableRecords(), actual.describe());
  }

  /** {@link #requireMatches(SampledGaussianMechanism, SamplingPlan)}, and the run's noise multiplier must be z. */
  public static void requireMatches(SampledGaussianMechanism mechanism, SamplingPlan actual, double noiseMultiplier) {
    requireMatches(mechanism, actual);
    checkArgument(noiseMultiplier == mechanism.noiseMultiplier(),
        "the sampled-Gaussian accountant uses noise multiplier z = %s but the run adds noise with z = %s",
        mechanism.noiseMultiplier(), noiseMultiplier);
  }
}
