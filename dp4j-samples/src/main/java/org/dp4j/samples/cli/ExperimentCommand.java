package org.dp4j.samples.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code dp4j experiment}: reproductions of the seed papers' experiments (one subcommand each). */
@Command(name = "experiment", mixinStandardHelpOptions = true,
    description = "Reproduce an experiment of a seed paper and print its table.",
    subcommands = {MadelonCommand.class, FrontierCommand.class})
final class ExperimentCommand implements Runnable {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }
}
