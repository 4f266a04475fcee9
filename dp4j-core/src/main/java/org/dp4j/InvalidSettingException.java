package org.dp4j;

import static com.google.common.base.Strings.lenientFormat;

/**
 * dp4j's refusal of a setting it does not support or cannot certify: bad input, never a bug. Every argument check of
 * dp4j's public API (builders, accountants, mechanisms, samplers, clipping rules) throws it, with a message naming the
 * offending value and the constraint, and where useful what to use instead. An {@link IllegalArgumentException} of
 * any other type (thrown inside ND4J, DL4J or the JDK, or by an internal consistency check) means dp4j passed on
 * something its own validation should have caught: a bug. The {@code dp4j} command line reports the first as bad
 * input (exit status 2, one line) and the second as an internal error with its stack trace (exit status 1).
 *
 * <p>The static {@code checkArgument} methods have the signatures and the message templating ({@code %s}) of Guava's
 * {@code Preconditions.checkArgument}, so a class switches by statically importing {@code
 * org.dp4j.InvalidSettingException.checkArgument} instead of Guava's:
 *
 * <pre>{@code
 * // given: double noiseMultiplier
 * InvalidSettingException.checkArgument(noiseMultiplier > 0, "noiseMultiplier must be > 0, was %s", noiseMultiplier);
 * try {
 *   new SampledGaussianMechanism(0.01, -1.0);
 * } catch (InvalidSettingException e) {
 *   System.err.println("bad input: " + e.getMessage());   // names the noise multiplier and the value -1.0
 * }
 * }</pre>
 *
 * <p>The class is not final: dp4j's more specific refusals ({@code OutputPathException}, {@code GridTooFineException},
 * {@code UnsupportedEventException}, {@code InvalidCheckpointException}) extend it.
 */
public class InvalidSettingException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  public InvalidSettingException(String message) {
    super(message);
  }

  public InvalidSettingException(String message, Throwable cause) {
    super(message, cause);
  }

  /** Refuses the setting unless {@code ok}. */
  public static void checkArgument(boolean ok) {
    if (!ok) {
      throw new InvalidSettingException("invalid setting");
    }
  }

  /** Refuses the setting unless {@code ok}, with {@code String.valueOf(message)}. */
  public static void checkArgument(boolean ok, Object message) {
    if (!ok) {
      throw new InvalidSettingException(String.valueOf(message));
    }
  }

  /**
   * Refuses the setting unless {@code ok}, with {@code template}'s {@code %s} replaced by {@code args} (Guava's
   * lenient formatting: extra arguments are appended in brackets, a failing {@code toString} is reported in place).
   */
  public static void checkArgument(boolean ok, String template, Object... args) {
    if (!ok) {
      throw new InvalidSettingException(lenientFormat(template, args));
    }
  }

  // Overloads for the common argument shapes: a check that holds neither boxes nor allocates (Guava does the same).

  public static void checkArgument(boolean ok, String template, long arg) {
    if (!ok) {
      throw new InvalidSettingException(lenientFormat(template, arg));
    }
  }

  public static void checkArgument(boolean ok, String template, double arg) {
    if (!ok) {
      throw new InvalidSettingException(lenientFormat(template, arg));
    }
  }

  public static void checkArgument(boolean ok, String template, char arg) {
    if (!ok) {
      throw new InvalidSettingException(lenientFormat(template, arg));
    }
  }

  public static void checkArgument(boolean ok, String template, Object arg) {
    if (!ok) {
      throw new InvalidSettingException(lenientFormat(template, arg));
    }
  }

  public static void checkArgument(boolean ok, String template, Object arg1, Object arg2) {
    if (!ok) {
      throw new InvalidSettingException(lenientFormat(template, arg1, arg2));
    }
  }
}
