package org.dp4j.samples.cli;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * The report files of the commands that train ({@code train}, {@code audit}), as one picocli mixin: the JSON report
 * and the PNG chart. Both are written atomically after the run ({@link RunOutputs}); a failed write is reported and
 * turns the exit code non-zero without losing the other outputs.
 */
final class ReportFileOptions {
  @Option(names = "--report", paramLabel = "FILE", description = "Write the JSON report to FILE.")
  Path report;

  @Option(names = "--chart", paramLabel = "FILE", description = "Write a PNG chart to FILE (train: epsilon per "
      + "epoch; audit: canary scores and both epsilons).")
  Path chart;
}
