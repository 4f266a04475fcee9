package org.dp4j.samples.cli;

import org.dp4j.InvalidSettingException;

/**
 * Tells bad input from a bug. dp4j refuses what it does not support or cannot certify with an {@link
 * InvalidSettingException} (a precondition of its API, or an explicit refusal naming the value and what to use
 * instead): that is bad input, exit status 2. Any other {@link IllegalArgumentException} — thrown inside ND4J, DL4J,
 * the JDK, or by a dp4j consistency check — means dp4j passed on something its own validation should have caught:
 * that is a bug, reported as an internal error with its stack trace, exit status 1.
 */
final class Failures {
  private Failures() {}

  /** Whether {@code e} is one of dp4j's refusals of a setting (its type says so, not where it was thrown). */
  static boolean isRefusal(IllegalArgumentException e) {
    return e instanceof InvalidSettingException;
  }
}
