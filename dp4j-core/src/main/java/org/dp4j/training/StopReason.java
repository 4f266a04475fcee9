package org.dp4j.training;

/** Why private training ended. */
public enum StopReason {
  /** Every configured epoch ran. */
  COMPLETED,
  /** The next update would have exceeded the privacy budget; the model holds the last in-budget parameters. */
  BUDGET
}
