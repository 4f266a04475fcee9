package org.dp4j.mbcd;

import org.dp4j.accounting.hiddenstate.NoiseTemperatureSchedule;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * One epoch of DP-MBCD on a 784-256-256-10 MLP with random data, and the auxiliary-store memory.
 * Not a test (no *Test suffix). Run with OMP_NUM_THREADS=1:
 * {@code java -cp ... org.dp4j.mbcd.DpMbcdBenchmark [examples] [batch] [float|double] [secure|seeded]}
 */
public final class DpMbcdBenchmark {
  private DpMbcdBenchmark() {}

  public static void main(String[] args) {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
    int b = args.length > 1 ? Integer.parseInt(args[1]) : 500;
    DataType type = args.length > 2 && args[2].equals("double") ? DataType.DOUBLE : DataType.FLOAT;
    boolean secure = args.length > 3 && args[3].equals("secure");
    Nd4j.setDefaultDataTypes(type, type);
    MultiLayerNetwork net = LiftedMlpTest.mlp(type, 1, 784, 256, 256, 10);
    INDArray x = Nd4j.rand(type, n, 784);
    INDArray y = Nd4j.zeros(type, n, 10);
    for (int i = 0; i < n; i++) {
      y.putScalar(i, i % 10, 1.0);
    }
    long t0 = System.nanoTime();
    DpMbcdTrainer t = DpMbcdTrainer.builder(net, x, y).batchSize(b).epochs(1).learningRate(0.1)
        .clipNorm(1.0).activationNormBound(1.0).noiseSchedule(NoiseTemperatureSchedule.constant(1e-3))
        .noise(secure ? org.dp4j.noise.GaussianNoise.secure() : org.dp4j.noise.GaussianNoise.insecureFixedSeed(1))
        .partitionSeed(1).build();
    long t1 = System.nanoTime();
    t.trainEpoch();
    long t2 = System.nanoTime();
    System.out.printf("n=%d b=%d type=%s noise=%s: setup (copy + forward init) %.2f s, epoch %.2f s"
            + " (%.1f ms/batch), auxiliary store %.1f MB (%d bytes); for 60k: %.1f MB, epoch ~%.1f s%n",
        n, b, type, secure ? "secure" : "seeded", (t1 - t0) / 1e9, (t2 - t1) / 1e9,
        (t2 - t1) / 1e6 / t.mechanism().numBatchesPerEpoch(), t.auxiliaryBytes() / 1e6,
        t.auxiliaryBytes(),
        DpMbcdTrainer.auxiliaryBytesRequired(net, 60_000) / 1e6, (t2 - t1) / 1e9 * 60_000 / n);
  }
}
