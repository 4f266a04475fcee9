package org.dp4j.updater;

/**
 * DL4J's {@code ParallelWrapper} trains replicas of the network on several workers and averages their parameters
 * (or shares their gradients): each worker's step and the averaging form another mechanism than DP-SGD's one clipped,
 * noised sum per step, which no dp4j accountant covers. Training under it is refused with one message, wherever the
 * refusal is first detected (the updater, the privacy listener).
 */
public final class ParallelWrapperRefusal {
  static final String MESSAGE = "ParallelWrapper is not supported for private training: it averages the parameters "
      + "(or shares the gradients) of workers that each step on their own batch, which is not the DP-SGD mechanism "
      + "any dp4j accountant covers. Train one PrivateMultiLayerNetwork with net.fit(SampledDataSetIterator, "
      + "epochs); for more throughput use a larger expected batch (the per-example clipping is vectorised)";

  private ParallelWrapperRefusal() {
  }

  /** Throws if the caller runs inside a {@code ParallelWrapper} worker (package org.deeplearning4j.parallelism). */
  public static void refuseIfInside() {
    boolean inside = StackWalker.getInstance().walk(frames -> frames.anyMatch(
        f -> f.getClassName().startsWith("org.deeplearning4j.parallelism.")));
    if (inside) {
      throw new UnsupportedOperationException(MESSAGE);
    }
  }
}
