package org.dp4j.samples.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.util.Arrays;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code dp4j account <mechanism>}: the privacy of a configuration, without training. */
@Command(name = "account", mixinStandardHelpOptions = true,
    description = {"Compute the privacy (epsilon, delta) of a training configuration without training.",
        "'dp4j account --list' lists every accountant with its theorem, threat model and assumptions."},
    subcommands = {SgmAccountCommand.class, DpMbcdAccountCommand.class, YeShokriAccountCommand.class,
        KongRiberoAccountCommand.class, ShiftedInterpolationAccountCommand.class, PabiAccountCommand.class,
        LangevinAccountCommand.class})
final class AccountCommand implements Runnable {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Option(names = "--list", description = "List every accountant: theorem, threat model, neighbouring relation,"
      + " assumptions.")
  boolean list;

  @Option(names = "--json", description = "With --list: print one JSON array.")
  boolean json;

  @Override
  public void run() {
    if (!list) {
      throw new CommandLine.ParameterException(spec.commandLine(),
          "account needs a mechanism, e.g. 'dp4j account sgm --help', or --list");
    }
    PrintWriter out = spec.commandLine().getOut();
    if (json) {
      try {
        out.println(new ObjectMapper().writeValueAsString(
            Arrays.stream(AccountantCatalogue.values()).map(AccountantCatalogue::json).toList()));
      } catch (JsonProcessingException e) {
        throw new IllegalStateException("cannot write JSON list", e);
      }
    } else {
      out.print(Arrays.stream(AccountantCatalogue.values()).map(AccountantCatalogue::text)
          .collect(Collectors.joining("\n")));
    }
    out.flush();
  }
}
