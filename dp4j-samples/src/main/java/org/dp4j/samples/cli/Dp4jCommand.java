package org.dp4j.samples.cli;

import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.util.Locale;
import java.util.Optional;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code dp4j} command line: {@code java -jar dp4j-samples/target/dp4j.jar --help}.
 *
 * <p>Exit status: 0 on success, 2 on bad input (one line on stderr naming the flag and the value, or dp4j's refusal
 * of the configuration), 1 on an error: a file that could not be read or written, memory, or an internal error (a
 * bug: an exception dp4j's validation did not anticipate, printed with its stack trace; see {@link Failures}).
 */
@Command(name = "dp4j", mixinStandardHelpOptions = true, version = "dp4j 0.1.0",
    description = "Differentially private training for Deeplearning4j, and honest privacy accounting.",
    subcommands = {AccountCommand.class, CalibrateCommand.class, TrainCommand.class, NmfCommand.class,
        ExperimentCommand.class, AuditCommand.class})
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
      if (ex instanceof IllegalArgumentException && Failures.isRefusal((IllegalArgumentException) ex)) {
        c.getErr().println("dp4j: " + ex.getMessage());
        return EXIT_BAD_INPUT;
      }
      if (ex instanceof UncheckedIOException) {
        // A file that could not be written or read (disk full, permissions): the message names it and the reason.
        c.getErr().println("dp4j: error: " + ex.getMessage());
        return 1;
      }
      if (outOfMemory(ex)) {
        return outOfMemory(c.getErr(), ex);
      }
      c.getErr().println("dp4j: internal error (a bug in dp4j; please report it with this trace): " + ex);
      ex.printStackTrace(c.getErr());
      return 1;
    });
    try {
      return cli.execute(args);
    } catch (OutOfMemoryError e) {
      return outOfMemory(err, e);
    }
  }

  private static boolean outOfMemory(Throwable ex) {
    for (Throwable t = ex; t != null; t = t.getCause()) {
      if (t instanceof OutOfMemoryError) {
        return true;
      }
    }
    return false;
  }

  private static int outOfMemory(PrintWriter err, Throwable ex) {
    err.printf(Locale.ROOT, "dp4j: error: out of memory (%s) with a Java heap limit of %d MB and an ND4J off-heap "
        + "limit of %s; give a larger heap, e.g. java -Xmx4g -jar dp4j.jar ... (ND4J's off-heap limit then follows "
        + "-Xmx)%n", ex, Runtime.getRuntime().maxMemory() >> 20,
        System.getProperty(MemoryCaps.MAX_BYTES, "the heap limit"));
    return 1;
  }

  /**
   * Runs the command line; {@code dp4j train} without a heap limit runs in a child JVM with the default memory caps
   * (see {@link MemoryCaps}).
   */
  public static void main(String[] args) {
    Optional<Integer> relaunched = MemoryCaps.relaunchIfUncapped(args);
    if (relaunched.isPresent()) {
      System.exit(relaunched.get());
    }
    PrintWriter out = new PrintWriter(System.out, true);
    PrintWriter err = new PrintWriter(System.err, true);
    System.exit(execute(out, err, args));
  }
}
