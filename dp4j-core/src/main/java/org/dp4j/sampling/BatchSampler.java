package org.dp4j.sampling;

/**
 * A schedule of record indices, one batch per training step, over an in-memory dataset of n
 * records. Pure index arithmetic: no data, no ND4J. Implementations state the accounting they match
 * through {@link #plan()}, so a trainer can refuse a sampler its accountant does not cover
 * ({@link SamplingCompatibility}).
 *
 * <pre>{@code
 * BatchSampler sampler = PoissonSampler.withExpectedBatchSize(60_000, 256, AesCtrRandom.secure());
 * int[] batch = sampler.nextBatch();        // sorted indices, possibly empty
 * }</pre>
 */
public interface BatchSampler {

  /** Scheme and parameters, as an accountant needs them. */
  SamplingPlan plan();

  /** The scheme alone. */
  default SamplingScheme samplingScheme() {
    return plan().scheme();
  }

  /**
   * Indices of the next step's batch, ascending and distinct, each in [0, n). Poisson batches may be
   * empty (length 0); a step with an empty batch still adds noise and still counts for the
   * accountant.
   */
  int[] nextBatch();
}
