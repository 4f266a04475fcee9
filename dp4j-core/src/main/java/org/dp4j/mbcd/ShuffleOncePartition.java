package org.dp4j.mbcd;

import static com.google.common.base.Preconditions.checkArgument;

import java.util.Arrays;
import java.util.Random;

/**
 * One data-independent random permutation of {0..n−1} cut into N = ⌊n/b⌋ disjoint batches, visited
 * in the same order every epoch; the n mod b remaining examples are dropped (Chen &amp; Liu, proof of
 * Thm. 4.6; digest 003 §2.4, P11, P12). Reshuffling per epoch would void the hidden-state bound.
 *
 * <pre>{@code
 * ShuffleOncePartition p = ShuffleOncePartition.create(1000, 64, new SecureRandom());
 * p.numBatches();   // 15
 * p.dropped();      // 40
 * }</pre>
 */
public final class ShuffleOncePartition {
  private final int[] order;
  private final int batchSize;
  private final int dropped;

  private ShuffleOncePartition(int[] order, int batchSize, int dropped) {
    this.order = order;
    this.batchSize = batchSize;
    this.dropped = dropped;
  }

  /** A partition of n examples into batches of b, shuffled with the given (secret) seed. */
  public static ShuffleOncePartition create(int n, int batchSize, long seed) {
    return create(n, batchSize, new Random(seed));
  }

  /**
   * A partition shuffled by the given generator; pass a {@link java.security.SecureRandom} for a
   * release (java.util.Random's 48-bit state reaches only a fraction of the n! orders).
   */
  public static ShuffleOncePartition create(int n, int batchSize, Random rnd) {
    checkArgument(batchSize >= 1, "batch size must be >= 1, was %s", batchSize);
    checkArgument(n >= batchSize, "need at least one full batch: n=%s < batch size %s", n, batchSize);
    int[] perm = new int[n];
    for (int i = 0; i < n; i++) {
      perm[i] = i;
    }
    for (int i = n - 1; i > 0; i--) {
      int k = rnd.nextInt(i + 1);
      int t = perm[i];
      perm[i] = perm[k];
      perm[k] = t;
    }
    int used = (n / batchSize) * batchSize;
    return new ShuffleOncePartition(Arrays.copyOf(perm, used), batchSize, n - used);
  }

  public int batchSize() {
    return batchSize;
  }

  /** N, the number of batches per epoch. */
  public int numBatches() {
    return order.length / batchSize;
  }

  /** Examples used per epoch: N·b. */
  public int examplesUsed() {
    return order.length;
  }

  /** Examples never visited (n mod b). */
  public int dropped() {
    return dropped;
  }

  /** The example indices of all used examples, batch after batch. */
  public int[] order() {
    return order.clone();
  }
}
