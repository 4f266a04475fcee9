package org.dp4j.mbcd;

/**
 * Called by {@link DpMbcdTrainer} after every batch's released-block steps (progress, diagnostics). Accounting does
 * not need it: the trainer's ledger reads the whole schedule from {@link DpMbcdMechanism} (Chen &amp; Liu 2025; docs/errata.md#dp-mbcd-step-recursion; docs/accountants.md#dp-mbcd).
 */
@FunctionalInterface
public interface DpMbcdStepListener {
  /**
   * All D+1 blocks have just taken their noisy step at batch j of epoch k with the configured temperature o(k, j)
   * (for {@link BatchReduction#SUM} the sum-parameter o; the mean-parameter one is o/b).
   */
  void stepDone(int epoch, int batch, double temperature);
}
