package org.dp4j.samples.cli;

import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.dp4j.io.OutputPathException;
import org.dp4j.io.OutputPaths;
import picocli.CommandLine;

/**
 * The files a {@code dp4j train} run writes: checked before training ({@link OutputPaths}: writable, distinct,
 * not an input), and written at the end one by one, so that one failure (a full disk) still writes the others and
 * names exactly what failed and why.
 *
 * <p>An existing {@code --checkpoint} file is refused unless it is the {@code --resume} file: it is most likely an
 * earlier run's checkpoint, and overwriting it would lose that run (delete it, or choose another file, to start
 * afresh).
 */
final class RunOutputs {
  private final PrintWriter err;
  private final List<String> failures = new ArrayList<>();

  RunOutputs(PrintWriter err) {
    this.err = err;
  }

  /** Checks every output of {@code c} before anything is trained. */
  static void check(CommandLine cmd, TrainCommand c, Path dataDir) {
    if (c.algorithm == TrainCommand.Algorithm.DP_MBCD && (c.checkpoint != null || c.resume != null)) {
      throw new CommandLine.ParameterException(cmd, "--checkpoint and --resume are not supported with --algorithm "
          + "dp-mbcd yet (its checkpoint would need the hidden-state ledger and the auxiliary variables); run it "
          + "without them");
    }
    Map<String, Path> outputs = new LinkedHashMap<>();
    put(outputs, "--checkpoint", c.checkpoint);
    put(outputs, "--report", c.files.report);
    put(outputs, "--csv", c.csv);
    put(outputs, "--chart", c.files.chart);
    boolean continuesResume = c.checkpoint != null && c.resume != null && OutputPaths.sameFile(c.checkpoint, c.resume);
    if (c.checkpoint != null && Files.isRegularFile(c.checkpoint) && !continuesResume) {
      throw new CommandLine.ParameterException(cmd, "--checkpoint " + c.checkpoint + " already exists (an earlier "
          + "run's checkpoint?) and would be overwritten; continue that run with --resume " + c.checkpoint
          + " --checkpoint " + c.checkpoint + ", or delete it or choose another file");
    }
    Map<String, Path> inputs = new LinkedHashMap<>();
    put(inputs, "--data-dir", dataDir);
    if (!continuesResume) {
      put(inputs, "--resume", c.resume);
    }
    try {
      OutputPaths.check(outputs, inputs);
    } catch (OutputPathException e) {
      throw new CommandLine.ParameterException(cmd, e.getMessage());
    }
  }

  private static void put(Map<String, Path> m, String flag, Path p) {
    if (p != null) {
      m.put(flag, p);
    }
  }

  /** Writes one output; a failure is recorded and reported by {@link #exitCode}, the next outputs still written. */
  void write(Path path, Runnable writer) {
    if (path == null) {
      return;
    }
    try {
      writer.run();
    } catch (UncheckedIOException | IllegalArgumentException e) {
      failures.add(e.getMessage());
    }
  }

  /** 0 if every output was written, else 1 after one error line per failed output. */
  int exitCode() {
    failures.forEach(f -> err.println("dp4j: error: " + f));
    err.flush();
    return failures.isEmpty() ? 0 : 1;
  }
}
