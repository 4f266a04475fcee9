package org.dp4j.mbcd;

/**
 * Called by {@link DpMbcdTrainer} after every released-block step, e.g. to drive a hidden-state
 * accountant ({@code step(j, o)} once per block per batch; digest 003 §3.11, §7).
 */
@FunctionalInterface
public interface DpMbcdStepListener {
  /** All D+1 blocks have just taken their noisy step at batch j of epoch k with temperature o. */
  void stepDone(int epoch, int batch, double temperature);
}
