package org.dp4j.samples.cli;

import picocli.CommandLine;

/** Range checks for command-line values; each failure names the flag, the value and the constraint. */
final class Checks {
  private Checks() {}

  static void positive(CommandLine cmd, String flag, double value) {
    if (!(value > 0) || !Double.isFinite(value)) {
      throw new CommandLine.ParameterException(cmd, flag + " must be finite and > 0, was " + value);
    }
  }

  static void samplingRate(CommandLine cmd, double q) {
    if (!(q > 0 && q <= 1)) {
      throw new CommandLine.ParameterException(cmd, "--sampling-rate must be in (0, 1], was " + q);
    }
  }

  static void delta(CommandLine cmd, double delta) {
    if (!(delta > 0 && delta < 1)) {
      throw new CommandLine.ParameterException(cmd, "--delta must be in (0, 1), was " + delta);
    }
  }
}
