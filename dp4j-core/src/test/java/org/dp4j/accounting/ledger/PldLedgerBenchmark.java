package org.dp4j.accounting.ledger;

import org.dp4j.accounting.SampledGaussianMechanism;
import org.dp4j.accounting.ThreatModel;

/**
 * What a PLD ledger costs (not a unit test): the amortised cost per {@code tryStep} of a whole budgeted run of T
 * steps (O(log T) compositions), and the cost of one epoch row (one composition) at T steps. Run with
 * {@code OMP_NUM_THREADS=1} on an otherwise idle machine:
 * {@code java -cp <test classpath> org.dp4j.accounting.ledger.PldLedgerBenchmark}.
 */
public final class PldLedgerBenchmark {
  private PldLedgerBenchmark() {}

  public static void main(String[] args) {
    SampledGaussianMechanism mnist = new SampledGaussianMechanism(2048.0 / 60000, 2.1678);
    for (long steps : new long[] {10_000, 1_000_000}) {
      for (boolean preflight : new boolean[] {false, true}) {
        run(mnist, steps, preflight);
      }
    }
  }

  private static void run(SampledGaussianMechanism mnist, long steps, boolean preflight) {
    {
      // a budget no step reaches, so the run goes to T and every look-ahead is paid
      PrivacyLedger ledger = PrivacyLedger.builder().accountant(new PldStepAccountant(mnist)).delta(1e-5)
          .budget(new PrivacyBudget(1e6, 1e-5, ThreatModel.ALL_ITERATES_RELEASED)).build();
      long t0 = System.nanoTime();
      if (preflight) {
        ledger.stepsWithinBudget(steps); // what DpSgdTrainer does with its planned run
      }
      for (long s = 0; s < steps; s++) {
        ledger.tryStep();
      }
      double perStepUs = (System.nanoTime() - t0) / 1e3 / steps;
      long t1 = System.nanoTime();
      ledger.closeEpoch(1);
      double rowMs = (System.nanoTime() - t1) / 1e6;
      System.out.printf("T = %,d steps, %s: tryStep %.2f µs per step amortised, one epoch row %.0f ms, ε = %.3f%n",
          steps, preflight ? "planned run checked first" : "look-ahead only", perStepUs, rowMs,
          ledger.rows().get(0).composition().orElseThrow().epsilon());
    }
  }
}
