package org.dp4j.samples.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code dp4j account <mechanism>}: the privacy of a configuration, without training. */
@Command(name = "account", mixinStandardHelpOptions = true,
    description = "Compute the privacy (epsilon, delta) of a training configuration without training.",
    subcommands = {SgmAccountCommand.class})
final class AccountCommand implements Runnable {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(),
        "account needs a mechanism, e.g. 'dp4j account sgm --help'");
  }
}
