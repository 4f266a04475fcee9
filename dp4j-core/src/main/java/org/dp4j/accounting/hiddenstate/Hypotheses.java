package org.dp4j.accounting.hiddenstate;

import static org.dp4j.InvalidSettingException.checkArgument;

/** Argument checks shared by the accountants' builders; messages name the symbol and the value. */
final class Hypotheses {
  private Hypotheses() {}

  /** Requires a set (non-NaN), finite, strictly positive constant. */
  static void checkPositive(String what, double value) {
    checkArgument(value > 0 && Double.isFinite(value), "%s must be set, finite and > 0, was %s", what, value);
  }
}
