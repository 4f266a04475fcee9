package org.dp4j.samples.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code dp4j calibrate <mechanism>}: the noise needed for a target ε. */
@Command(name = "calibrate", mixinStandardHelpOptions = true,
    description = "Find the smallest noise multiplier that meets a target (epsilon, delta).",
    subcommands = {SgmCalibrateCommand.class})
final class CalibrateCommand implements Runnable {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(),
        "calibrate needs a mechanism, e.g. 'dp4j calibrate sgm --help'");
  }
}
