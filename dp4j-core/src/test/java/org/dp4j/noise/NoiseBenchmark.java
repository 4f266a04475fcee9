package org.dp4j.noise;

import java.security.DrbgParameters;
import java.security.SecureRandom;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * Cost of 200k Gaussian doubles (one DP-SGD step on a ~200k-parameter model). Not a test; run with
 * <pre>
 * mvn -o -q dependency:build-classpath -Dmdep.outputFile=/tmp/cp.txt -pl dp4j-core
 * mvn -o -q test-compile -pl dp4j-core
 * cd dp4j-core &amp;&amp; OMP_NUM_THREADS=1 java -cp target/test-classes:target/classes:$(cat /tmp/cp.txt) \
 *   org.dp4j.noise.NoiseBenchmark
 * </pre>
 * Prints the median of the last 100 of 300 repetitions for each method. Measured on the shared
 * 2-core machine (2026-11-26): secure fill 0.59 ms, addTo a FLOAT INDArray 1.10 ms, hardened (4
 * draws) 2.16 ms, JDK Hash_DRBG bytes alone 2.9–5.6 ms, JDK DRBG nextGaussian() per double 155 ms.
 */
public final class NoiseBenchmark {
  private static final int N = 200_000;
  private static final int REPS = 300;

  public static void main(String[] args) throws Exception {
    double[] out = new double[N];
    GaussianNoise secure = GaussianNoise.secure();
    GaussianNoise hardened = GaussianNoise.hardened(AesCtrRandom.secure());
    SecureRandom drbg = SecureRandom.getInstance("DRBG",
        DrbgParameters.instantiation(256, DrbgParameters.Capability.RESEED_ONLY, null));
    byte[] bytes = new byte[8 * N];
    INDArray params = Nd4j.zeros(DataType.FLOAT, N);

    report("GaussianNoise.secure().fill (AES-CTR + ziggurat)", () -> secure.fill(out, 1.0));
    report("GaussianNoise.secure().addTo(float INDArray)", () -> secure.addTo(params, 1.0));
    report("GaussianNoise.hardened(...).fill (4 draws)", () -> hardened.fill(out, 1.0));
    report("JDK Hash_DRBG nextBytes(8 bytes x 200k) only", () -> drbg.nextBytes(bytes));
    report("JDK DRBG nextGaussian() per double", () -> {
      for (int i = 0; i < N; i++) {
        out[i] = drbg.nextGaussian();
      }
    });
  }

  private static void report(String name, Runnable body) {
    long[] times = new long[REPS];
    for (int r = 0; r < REPS; r++) {
      long t0 = System.nanoTime();
      body.run();
      times[r] = System.nanoTime() - t0;
    }
    long[] tail = java.util.Arrays.copyOfRange(times, REPS - 100, REPS);
    java.util.Arrays.sort(tail);
    System.out.printf("%-55s median %.3f ms per 200k%n", name, tail[50] / 1e6);
  }
}
