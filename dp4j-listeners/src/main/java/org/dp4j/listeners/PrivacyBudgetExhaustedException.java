package org.dp4j.listeners;

import org.dp4j.accounting.ledger.PrivacyBudget;

/**
 * Thrown by {@link PrivacyLedgerListener} out of DL4J's {@code fit} when the next update would exceed
 * the privacy budget. It is thrown from {@code onGradientCalculation}, before the updater runs, so the
 * network still holds the last in-budget parameters. The dp4j trainer catches it and stops cleanly;
 * code calling {@code net.fit(...)} directly should catch it too.
 */
public final class PrivacyBudgetExhaustedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final transient PrivacyBudget budget;
  private final long steps;

  public PrivacyBudgetExhaustedException(PrivacyBudget budget, long steps, double nextEpsilon) {
    super(String.format("privacy budget exhausted: the next update would raise epsilon to %.4f above the budget"
            + " %.4f (delta %s, %s) after %d updates", nextEpsilon, budget.epsilon(), budget.delta(),
        budget.threatModel().description(), steps));
    this.budget = budget;
    this.steps = steps;
  }

  public PrivacyBudget budget() {
    return budget;
  }

  /** Updates applied (all within budget). */
  public long steps() {
    return steps;
  }
}
