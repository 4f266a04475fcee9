package org.dp4j.sampling;

import static com.google.common.base.Preconditions.checkNotNull;
import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.Arrays;
import org.dp4j.noise.AesCtrRandom;

/**
 * Sampling without replacement per step: every step draws a fresh uniformly random set of exactly b
 * distinct records out of n, independently of earlier steps; an epoch is ⌊n/b⌋ steps. Algorithm 2 of
 * Ye &amp; Shokri (docs/accountants.md#ye-shokri; Ye &amp; Shokri 2022, Thm 5.3), NoisySGD of Bok et al. (docs/accountants.md#shifted-interpolation: "np.random.choice(n,
 * b, replace=False)" each step), and the subsampling of Wang, Balle &amp; Kasiviswanathan 2019 Thm 9
 * under replace-one neighbours (docs/sampling.md#poisson).
 *
 * <p>Each step is a partial Fisher–Yates shuffle of b positions over a persistent index pool: from
 * any arrangement of the pool it yields a uniform ordered b-tuple of distinct records, in O(b).
 *
 * <pre>{@code
 * WithoutReplacementSampler sampler = new WithoutReplacementSampler(60_000, 256, AesCtrRandom.secure());
 * int[] batch = sampler.nextBatch();   // 256 distinct indices, sorted
 * }</pre>
 */
public final class WithoutReplacementSampler implements BatchSampler {
  private final AesCtrRandom random;
  private final SamplingPlan plan;
  private final int[] pool;

  public WithoutReplacementSampler(int datasetSize, int batchSize, AesCtrRandom random) {
    this.random = checkNotNull(random, "random");
    checkArgument(datasetSize > 0, "dataset size must be > 0, was %s", datasetSize);
    checkArgument(batchSize > 0 && batchSize <= datasetSize,
        "batch size must be in [1, dataset size = %s], was %s", datasetSize, batchSize);
    this.plan = new SamplingPlan(SamplingScheme.WITHOUT_REPLACEMENT, datasetSize,
        (double) batchSize / datasetSize, batchSize, datasetSize / batchSize, 0);
    this.pool = new int[datasetSize];
    for (int i = 0; i < datasetSize; i++) {
      pool[i] = i;
    }
  }

  @Override
  public SamplingPlan plan() {
    return plan;
  }

  @Override
  public int[] nextBatch() {
    int n = pool.length;
    int b = plan.fixedBatchSize();
    for (int i = 0; i < b; i++) {
      int j = i + random.nextInt(n - i);
      int t = pool[i];
      pool[i] = pool[j];
      pool[j] = t;
    }
    int[] batch = Arrays.copyOf(pool, b);
    Arrays.sort(batch);
    return batch;
  }
}
