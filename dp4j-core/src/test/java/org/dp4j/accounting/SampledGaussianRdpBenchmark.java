package org.dp4j.accounting;

/**
 * Time of one sampled-Gaussian RDP curve over {@link Orders#DEFAULT} (not a unit test):
 * {@code java -cp dp4j-core/target/classes:dp4j-core/target/test-classes:$(cat cp.txt)
 * org.dp4j.accounting.SampledGaussianRdpBenchmark}.
 */
public final class SampledGaussianRdpBenchmark {
  private SampledGaussianRdpBenchmark() {}

  public static void main(String[] args) {
    double[][] settings = {{256.0 / 60000, 1.1}, {0.01, 1.1}, {0.1, 1.0}, {0.341, 2.0}, {0.5, 1.0}, {0.6, 4.0},
        {0.9, 0.5}};
    for (double[] s : settings) {
      time(s[0], s[1]);
    }
  }

  private static void time(double q, double z) {
    try {
      double sink = 0;
      for (int i = 0; i < 20; i++) { // warm-up
        sink += SampledGaussianRdp.curve(q, z, Orders.DEFAULT).value(0);
      }
      int reps = 50;
      long start = System.nanoTime();
      for (int i = 0; i < reps; i++) {
        sink += SampledGaussianRdp.curve(q, z, Orders.DEFAULT).value(0);
      }
      double ms = (System.nanoTime() - start) / 1e6 / reps;
      System.out.printf("q=%.6g z=%s: %.3f ms per default-orders curve (%s)%n", q, z, ms, sink > 0 ? "ok" : "?");
    } catch (RuntimeException e) {
      System.out.printf("q=%.6g z=%s: %s%n", q, z, e);
    }
  }
}
