package org.dp4j.sampling;

import static com.google.common.base.Preconditions.checkNotNull;
import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.Arrays;
import org.dp4j.noise.AesCtrRandom;

/**
 * Poisson sampling: at every step each of the n records joins the batch independently with
 * probability q, so batch sizes are Binomial(n, q) and can be 0. This is the sampling the
 * sampled-Gaussian accountant assumes (Mironov, Talwar &amp; Zhang 2019; Boninsegna's survey; docs/sampling.md#expected-batch-size, #poisson).
 *
 * <p>Normalise the clipped sum by the constant {@link SamplingPlan#expectedBatchSize()} = qn, never by
 * the realised batch size (docs/sampling.md#expected-batch-size); an empty batch is a normal step (noise only).
 *
 * <p>Each inclusion is one {@link PoissonInclusion} coin (the exact test {@code u < floor(q·2⁵³)} on a 53-bit
 * uniform integer u), so the true rate is {@link #inclusionProbability()} ∈ (q − 2⁻⁵³, q]; the SGM bound increases
 * with q, so accounting at q never understates. Cost: one 64-bit draw per record per step (measured 62 µs per
 * step for n = 60000, {@code SamplerBenchmark}).
 *
 * <pre>{@code
 * PoissonSampler sampler = PoissonSampler.withExpectedBatchSize(60_000, 256, AesCtrRandom.secure());
 * int[] batch = sampler.nextBatch();            // Binomial(60000, 256/60000) indices, maybe none
 * }</pre>
 */
public final class PoissonSampler implements BatchSampler {
  private final SamplingPlan plan;
  private final PoissonInclusion coin;
  private int[] scratch = new int[16];

  private PoissonSampler(int datasetSize, double rate, int stepsPerEpoch, AesCtrRandom random) {
    this.plan = new SamplingPlan(SamplingScheme.POISSON, datasetSize, rate, rate * datasetSize,
        stepsPerEpoch, 0);
    this.coin = PoissonInclusion.withRate(rate, checkNotNull(random, "random"));
  }

  /** Rate q; an epoch is ⌈1/q⌉ steps (exactly 1/q when that is an integer up to rounding). */
  public static PoissonSampler withRate(int datasetSize, double rate, AesCtrRandom random) {
    checkArgument(rate > 0 && rate <= 1, "sampling rate q must be in (0, 1], was %s", rate);
    double inverse = 1 / rate;
    long nearest = Math.round(inverse);
    long steps = Math.abs(nearest - inverse) <= 1e-9 * inverse ? nearest : (long) Math.ceil(inverse);
    checkArgument(steps <= Integer.MAX_VALUE, "1/q = %s steps per epoch is too many", inverse);
    return new PoissonSampler(datasetSize, rate, (int) steps, random);
  }

  /**
   * Rate q = b/n with expected batch size b (as {@code SampledGaussianMechanism.forBatches}); an epoch is ⌈n/b⌉
   * steps, so E epochs are E·⌈n/b⌉ steps — not TF Privacy's ⌈E·n/b⌉ of {@code stepsForEpochs}, which can be fewer;
   * the ledger counts the steps actually taken.
   */
  public static PoissonSampler withExpectedBatchSize(int datasetSize, int expectedBatchSize,
      AesCtrRandom random) {
    checkArgument(datasetSize > 0, "dataset size must be > 0, was %s", datasetSize);
    checkArgument(expectedBatchSize > 0 && expectedBatchSize <= datasetSize,
        "expected batch size must be in [1, dataset size = %s], was %s", datasetSize, expectedBatchSize);
    int steps = (datasetSize + expectedBatchSize - 1) / expectedBatchSize;
    return new PoissonSampler(datasetSize, (double) expectedBatchSize / datasetSize, steps, random);
  }

  @Override
  public SamplingPlan plan() {
    return plan;
  }

  /** The exact per-record inclusion probability floor(q·2⁵³)/2⁵³ ≤ q. */
  public double inclusionProbability() {
    return coin.probability();
  }

  @Override
  public int[] nextBatch() {
    int size = 0;
    int n = plan.datasetSize();
    for (int i = 0; i < n; i++) {
      if (coin.next()) {
        if (size == scratch.length) {
          scratch = Arrays.copyOf(scratch, 2 * size);
        }
        scratch[size++] = i;
      }
    }
    return Arrays.copyOf(scratch, size);
  }
}
