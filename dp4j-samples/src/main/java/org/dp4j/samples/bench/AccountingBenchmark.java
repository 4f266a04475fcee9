package org.dp4j.samples.bench;

import java.io.IOException;

/**
 * The accountant part of {@link PerformanceBenchmark}: ε of 10⁵ sampled-Gaussian steps over the default orders,
 * one noise calibration, PLD ε at three sizes, and the DP-MBCD privacy ledger per step.
 *
 * <pre>java -cp dp4j-samples/target/dp4j.jar org.dp4j.samples.bench.AccountingBenchmark</pre>
 */
public final class AccountingBenchmark {
  private AccountingBenchmark() {}

  public static void main(String[] args) throws IOException {
    PerformanceBenchmark.main(new String[] {"--only", "accounting", "--json", "target/accounting.json"});
  }
}
