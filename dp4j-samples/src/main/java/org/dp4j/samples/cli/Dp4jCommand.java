package org.dp4j.samples.cli;

import java.io.PrintWriter;
import java.io.UncheckedIOException;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code dp4j} command line: {@code java -jar dp4j-samples/target/dp4j.jar --help}.
 *
 * <p>Exit status: 0 on success, 2 on bad input (one line on stderr naming the flag and the value),
 * 1 on an internal error.
 */
@Command(name = "dp4j", mixinStandardHelpOptions = true, version = "dp4j 0.1.0",
    description = "Differentially private training for Deeplearning4j, and honest privacy accounting.",
    subcommands = {AccountCommand.class, CalibrateCommand.class, TrainCommand.class, NmfCommand.class,
        ExperimentCommand.class})
public final class Dp4jCommand implements Runnable {
  public static final int EXIT_BAD_INPUT = 2;

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /** Runs the command line and returns the exit status (for tests and embedding). */
  public static int execute(PrintWriter out, PrintWriter err, String... args) {
    CommandLine cli = new CommandLine(new Dp4jCommand());
    cli.setCaseInsensitiveEnumValuesAllowed(true);
    cli.setOut(out);
    cli.setErr(err);
    cli.setParameterExceptionHandler((ex, a) -> {
      ex.getCommandLine().getErr().println("dp4j: " + ex.getMessage());
      return EXIT_BAD_INPUT;
    });
    cli.setExecutionExceptionHandler((ex, c, parsed) -> {
      if (ex instanceof IllegalArgumentException) {
        c.getErr().println("dp4j: " + ex.getMessage());
        return EXIT_BAD_INPUT;
      }
      if (ex instanceof UncheckedIOException) {
        // A file that could not be written or read (disk full, permissions): the message names it and the reason.
        c.getErr().println("dp4j: error: " + ex.getMessage());
        return 1;
      }
      c.getErr().println("dp4j: internal error: " + ex);
      return 1;
    });
    return cli.execute(args);
  }

  public static void main(String[] args) {
    PrintWriter out = new PrintWriter(System.out, true);
    PrintWriter err = new PrintWriter(System.err, true);
    System.exit(execute(out, err, args));
  }
}
