package org.dp4j.accounting.hiddenstate;

/**
 * Benchmark (not a test): the O(N)-per-epoch DP-MBCD ledger for N = 10⁴ batches per epoch over 100 epochs,
 * against the naive O(N²)-per-epoch recursion ({@link DpMbcdNaiveLedger}) on smaller N in the same run.
 * Target (issue 3): the full ledger in under 2 s.
 *
 * <p>Run: {@code mvn -o -q test-compile -pl dp4j-core} then
 * {@code java -cp dp4j-core/target/classes:dp4j-core/target/test-classes:<guava jar>
 * org.dp4j.accounting.hiddenstate.DpMbcdLedgerBenchmark}.
 */
public final class DpMbcdLedgerBenchmark {
  private DpMbcdLedgerBenchmark() {}

  public static void main(String[] args) {
    int epochs = 100;
    NoiseTemperatureSchedule schedule = (k, j) -> 0.005 + 0.001 * ((k + j) % 7);
    for (int warmup = 0; warmup < 3; warmup++) {
      runEfficient(1000, epochs, schedule);
      runNaive(300, epochs, schedule);
    }
    int big = 10_000;
    long t0 = System.nanoTime();
    double eps = runEfficient(big, epochs, schedule);
    double fastSeconds = (System.nanoTime() - t0) / 1e9;
    System.out.printf("efficient ledger: N = %d batches/epoch, %d epochs (%d steps): %.3f s, eps(2) = %.6e%n",
        big, epochs, (long) big * epochs, fastSeconds, eps);
    DpMbcdConfig config = DpMbcdConfig.builder().datasetSize(100L * big).batchSize(100).stepSize(0.05)
        .noiseTemperature(schedule).block("W", 0.98, 1.0, 1.0).build();
    DpMbcdLedger ledger = new DpMbcdLedger(config, config.blocks().get(0)).advanceEpochs(epochs);
    t0 = System.nanoTime();
    double[] contributions = ledger.epochContributions();
    System.out.printf("per-epoch contributions (Fig. 1b) at N = %d, K = %d: %.3f s, last epoch %.4e%n", big, epochs,
        (System.nanoTime() - t0) / 1e9, contributions[epochs - 1]);
    for (int n : new int[] {1000, 2000}) {
      t0 = System.nanoTime();
      double naiveEps = runNaive(n, epochs, schedule);
      double naiveSeconds = (System.nanoTime() - t0) / 1e9;
      t0 = System.nanoTime();
      double fastEps = runEfficient(n, epochs, schedule);
      double fastSmall = (System.nanoTime() - t0) / 1e9;
      System.out.printf("N = %d, %d epochs: naive %.3f s, efficient %.4f s, eps(2) naive %.12e efficient %.12e;"
          + " naive extrapolated to N = %d: %.0f s%n", n, epochs, naiveSeconds, fastSmall, naiveEps, fastEps, big,
          naiveSeconds * ((double) big / n) * ((double) big / n));
    }
  }

  private static double runEfficient(int batches, int epochs, NoiseTemperatureSchedule schedule) {
    DpMbcdConfig config = DpMbcdConfig.builder().datasetSize(100L * batches).batchSize(100).stepSize(0.05)
        .noiseTemperature(schedule).block("W", 0.98, 1.0, 1.0).build();
    DpMbcdLedger ledger = new DpMbcdLedger(config, config.blocks().get(0));
    double eps = 0;
    for (int k = 0; k < epochs; k++) {
      ledger.advanceEpochs(1);
      eps = ledger.rdp(2); // read once per epoch, as a listener would
    }
    return eps;
  }

  private static double runNaive(int batches, int epochs, NoiseTemperatureSchedule schedule) {
    DpMbcdNaiveLedger naive = new DpMbcdNaiveLedger(0.05, 0.98, 1.0, 1.0, 100, batches, false, schedule);
    double eps = 0;
    for (int k = 0; k < epochs; k++) {
      for (int j = 0; j < batches; j++) {
        naive.step();
      }
      eps = naive.rdp(2);
    }
    return eps;
  }
}
