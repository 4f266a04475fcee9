package org.dp4j.accounting.hiddenstate;

import org.dp4j.accounting.Orders;
import org.dp4j.accounting.RdpConversion;
import org.dp4j.accounting.ThreatModel;
import org.dp4j.accounting.ledger.PrivacyBudget;
import org.dp4j.accounting.ledger.PrivacyLedger;

/**
 * Benchmark (not a test): what the privacy ledger costs per training step with a DP-MBCD step accountant
 * ({@code tryStep}: one {@code curveAfter(1)}, one conversion, one step), for N = 234 batches per epoch
 * (MNIST-sized, b = 256), P = 1 and 4 blocks, over the default orders.
 *
 * <p>Run: {@code mvn -o -q test-compile -pl dp4j-core} then
 * {@code java -cp dp4j-core/target/classes:dp4j-core/target/test-classes:<guava jar>
 * org.dp4j.accounting.hiddenstate.DpMbcdStepAccountantBenchmark}.
 */
public final class DpMbcdStepAccountantBenchmark {
  private DpMbcdStepAccountantBenchmark() {}

  public static void main(String[] args) {
    for (int blocks : new int[] {1, 4}) {
      DpMbcdConfig.Builder b = DpMbcdConfig.builder().datasetSize(60_000).batchSize(256).stepSize(0.05)
          .noiseTemperature(NoiseTemperatureSchedule.constant(0.01));
      for (int p = 0; p < blocks; p++) {
        b.block("W" + p, 0.98, 1.0, 1.0);
      }
      DpMbcdConfig config = b.build();
      run(config, 234); // warm-up: one epoch
      int steps = 5 * 234;
      long t0 = System.nanoTime();
      double eps = run(config, steps);
      double perStep = (System.nanoTime() - t0) / 1e6 / steps;
      System.out.printf("P = %d blocks, N = %d, %d orders: %.3f ms per tryStep, eps after %d steps = %.4f%n",
          blocks, config.batchesPerEpoch(), Orders.DEFAULT.size(), perStep, steps, eps);
    }
  }

  private static double run(DpMbcdConfig config, int steps) {
    PrivacyLedger ledger = PrivacyLedger.builder()
        .accountant(new DpMbcdStepAccountant(config, Orders.DEFAULT, "constant o = 0.01")).delta(1e-5)
        .conversion(RdpConversion.IMPROVED)
        .budget(new PrivacyBudget(1e9, 1e-5, ThreatModel.LAST_ITERATE_ONLY)).build();
    for (int i = 0; i < steps; i++) {
      ledger.tryStep();
    }
    return ledger.best(ThreatModel.LAST_ITERATE_ONLY, 0).orElseThrow().epsilon();
  }
}
