package org.dp4j.sampling;

import static com.google.common.base.Preconditions.checkElementIndex;
import static com.google.common.base.Preconditions.checkNotNull;
import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.Arrays;
import org.dp4j.noise.AesCtrRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Shuffle once, then cycle: one uniformly random permutation of the n records, drawn at
 * construction from a secure generator, cut into m = ⌊n/b⌋ disjoint batches of b records that are
 * visited in the same order every epoch. The last n − m·b records of the permutation are dropped
 * (never used) and reported. This is Algorithm 1 of Ye &amp; Shokri (docs/accountants.md#ye-shokri; docs/sampling.md#shuffle-once), the batch
 * order of Chen &amp; Liu's DP-MBCD (docs/sampling.md#shuffle-once: the partition must stay secret, so the
 * permutation is never logged) and a data-independent cyclic order for Kong &amp; Ribero
 * (docs/sampling.md#shuffle-once) and Bok et al.'s NoisyCGD (docs/sampling.md#shuffle-once). Reshuffling per epoch is not covered by
 * those theorems, so this class never reshuffles.
 *
 * <p>Hidden-state accountants should use {@link SamplingPlan#usableRecords()} = m·b as their n, so
 * that b divides it and there is no short batch (docs/sampling.md#shuffle-once).
 *
 * <pre>{@code
 * ShuffleOncePartition sampler = new ShuffleOncePartition(60_000, 256, AesCtrRandom.secure());
 * sampler.plan().droppedRecords();   // 96 = 60000 − 234·256
 * int[] first = sampler.nextBatch(); // batch 0; after 234 steps batch 0 again
 * }</pre>
 */
public final class ShuffleOncePartition implements BatchSampler {
  private static final Logger LOG = LoggerFactory.getLogger(ShuffleOncePartition.class);

  private final SamplingPlan plan;
  private final int[][] batches;
  private final int[] dropped;
  private int next;

  public ShuffleOncePartition(int datasetSize, int batchSize, AesCtrRandom random) {
    checkNotNull(random, "random");
    checkArgument(datasetSize > 0, "dataset size must be > 0, was %s", datasetSize);
    checkArgument(batchSize > 0 && batchSize <= datasetSize,
        "batch size must be in [1, dataset size = %s], was %s", datasetSize, batchSize);
    int[] permutation = new int[datasetSize];
    for (int i = 0; i < datasetSize; i++) {
      permutation[i] = i;
    }
    for (int i = datasetSize - 1; i > 0; i--) {   // Fisher–Yates with unbiased bounded draws
      int j = random.nextInt(i + 1);
      int t = permutation[i];
      permutation[i] = permutation[j];
      permutation[j] = t;
    }
    int m = datasetSize / batchSize;
    batches = new int[m][];
    for (int j = 0; j < m; j++) {
      batches[j] = Arrays.copyOfRange(permutation, j * batchSize, (j + 1) * batchSize);
      Arrays.sort(batches[j]);
    }
    dropped = Arrays.copyOfRange(permutation, m * batchSize, datasetSize);
    Arrays.sort(dropped);
    plan = new SamplingPlan(SamplingScheme.SHUFFLE_ONCE_FIXED_PARTITION, datasetSize, 1.0 / m,
        batchSize, m, dropped.length);
    if (dropped.length > 0) {
      LOG.info("shuffle-once partition: batch size {} does not divide {} records; {} randomly chosen "
          + "records are dropped and never used ({} batches of {})", batchSize, datasetSize,
          dropped.length, m, batchSize);
    }
  }

  @Override
  public SamplingPlan plan() {
    return plan;
  }

  @Override
  public int[] nextBatch() {
    int[] batch = batches[next].clone();
    next = (next + 1) % batches.length;
    return batch;
  }

  /** Batch j of every epoch (sorted indices), j in [0, m). */
  public int[] batch(int j) {
    checkElementIndex(j, batches.length, "batch index");
    return batches[j].clone();
  }

  /** All used records, batch 0 first then batch 1, ...: m·b indices (a trainer that permutes its data once). */
  public int[] batchOrder() {
    int[] order = new int[batches.length * plan.fixedBatchSize()];
    for (int j = 0; j < batches.length; j++) {
      System.arraycopy(batches[j], 0, order, j * batches[j].length, batches[j].length);
    }
    return order;
  }

  /** Position of the next batch within the epoch, in [0, m). */
  public int nextPosition() {
    return next;
  }

  /** The records that no batch contains (sorted); empty when b divides n. */
  public int[] droppedIndices() {
    return dropped.clone();
  }
}
