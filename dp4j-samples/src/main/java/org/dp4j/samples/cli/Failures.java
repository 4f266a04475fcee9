package org.dp4j.samples.cli;

/**
 * Tells bad input from a bug. dp4j refuses what it does not support or cannot certify with an
 * {@link IllegalArgumentException} thrown by its own code (a precondition check or an explicit refusal naming the
 * value and what to use instead): that is bad input, exit status 2. An {@code IllegalArgumentException} thrown
 * from inside ND4J, DL4J, the JDK or any other library means dp4j passed something its own validation should have
 * caught: that is a bug, reported as an internal error with its stack trace, exit status 1.
 */
final class Failures {
  private static final String DP4J = "org.dp4j.";

  private Failures() {}

  /**
   * Whether {@code e} is one of dp4j's refusals: the frame that threw it, skipping precondition helpers (Guava's
   * {@code Preconditions}, relocated or not), is dp4j code.
   */
  static boolean isRefusal(IllegalArgumentException e) {
    for (StackTraceElement frame : e.getStackTrace()) {
      String cls = frame.getClassName();
      if (cls.endsWith(".base.Preconditions")) {
        continue;
      }
      return cls.startsWith(DP4J);
    }
    return false;
  }
}
