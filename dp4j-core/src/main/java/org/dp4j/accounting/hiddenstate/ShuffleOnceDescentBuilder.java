package org.dp4j.accounting.hiddenstate;

import static org.dp4j.InvalidSettingException.checkArgument;

/**
 * The part of a hidden-state mechanism's builder that describes noisy descent over a shuffle-once partition
 * ({@link DpMbcdConfig.Builder}, {@link YeShokriConfig.Builder}): n examples in ⌊n/b⌋ batches of b, step size η.
 * Each builder checks at {@code build()} that these are set and that b ≤ n.
 *
 * @param <B> the mechanism's builder
 */
abstract class ShuffleOnceDescentBuilder<B extends ShuffleOnceDescentBuilder<B>> {
  long datasetSize = -1;
  int batchSize = -1;
  double stepSize = Double.NaN;

  /** This builder, typed as the mechanism's. */
  abstract B self();

  /** n, the number of training examples. */
  public B datasetSize(long n) {
    checkArgument(n >= 1, "dataset size n must be >= 1, was %s", n);
    this.datasetSize = n;
    return self();
  }

  /** b, the mini-batch size. */
  public B batchSize(int b) {
    checkArgument(b >= 1, "batch size b must be >= 1, was %s", b);
    this.batchSize = b;
    return self();
  }

  /** η &gt; 0, the step size of every update. */
  public B stepSize(double eta) {
    checkArgument(eta > 0 && Double.isFinite(eta), "step size η must be finite and > 0, was %s", eta);
    this.stepSize = eta;
    return self();
  }
}
