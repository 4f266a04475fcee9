package org.deeplearning4j.parallelism;

/**
 * Stands in for a ParallelWrapper worker (deeplearning4j-parallel-wrapper is not a dependency of dp4j): code run
 * through it has a frame of package {@code org.deeplearning4j.parallelism} on its stack, as a worker's fit has.
 */
public final class WorkerStandIn {
  private WorkerStandIn() {
  }

  public static void run(Runnable fit) {
    fit.run();
  }
}
