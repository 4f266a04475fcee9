package org.dp4j.samples.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.dp4j.samples.zoo.ModelZoo;
import org.dp4j.updater.DpSgdStep;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.IUpdater;
import org.nd4j.linalg.learning.config.Sgd;

/**
 * The CPU time of the training thread for one DP-SGD step and one DL4J {@code fit} on the same batch (float32,
 * batch 256), for the CNNs of {@link PerformanceBenchmark}: less sensitive than wall-clock time to other processes on
 * a shared machine, since ND4J and BLAS at one thread run in the calling thread. Rounds alternate the two; each
 * prints the minimum over its steps and the ratio.
 *
 * <pre>
 * OMP_NUM_THREADS=1 java -cp dp4j-samples/target/dp4j.jar org.dp4j.samples.bench.StepCpuTime [relu|tanh] [steps] [rounds]
 * </pre>
 */
public final class StepCpuTime {
  private static final int BATCH = PerformanceBenchmark.BATCH;

  private StepCpuTime() {
  }

  public static void main(String[] args) {
    boolean tanh = args.length > 0 && args[0].equals("tanh");
    int steps = args.length > 1 ? Integer.parseInt(args[1]) : 30;
    int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 3;
    Nd4j.getRandom().setSeed(4);
    INDArray x = Nd4j.rand(DataType.FLOAT, BATCH, 784);
    INDArray y = PerformanceBenchmark.oneHot(BATCH);
    DpSgdStep step = DpSgdStep.of(network(tanh, PerformanceBenchmark.dp()));
    MultiLayerNetwork plain = network(tanh, new Sgd(0.01));
    ThreadMXBean clock = ManagementFactory.getThreadMXBean();
    System.out.printf("%s CNN, float32, batch %d, CPU time of the training thread, min of %d steps per round%n",
        tanh ? "tanh (dp4j train --model cnn)" : "ReLU (PerformanceBenchmark cnn)", BATCH, steps);
    for (int r = 0; r < rounds; r++) {
      double dpMs = minimumMs(clock, steps, () -> step.apply(x, y));
      double fitMs = minimumMs(clock, steps, () -> plain.fit(x, y));
      System.out.printf("round %d: DP step %.1f ms, fit %.1f ms, ratio %.3f%n", r + 1, dpMs, fitMs, dpMs / fitMs);
    }
  }

  private static MultiLayerNetwork network(boolean tanh, IUpdater updater) {
    return PerformanceBenchmark.init(tanh ? ModelZoo.mnistCnn(updater, 1) : PerformanceBenchmark.cnn(updater));
  }

  private static double minimumMs(ThreadMXBean clock, int steps, Runnable run) {
    long best = Long.MAX_VALUE;
    for (int i = 0; i < steps; i++) {
      long start = clock.getCurrentThreadCpuTime();
      run.run();
      best = Math.min(best, clock.getCurrentThreadCpuTime() - start);
    }
    return best / 1e6;
  }
}
