package org.dp4j.samples.cli;

import org.dp4j.accounting.SampledGaussianMechanism;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * How many DP-SGD steps at which sampling rate: either {@code --sampling-rate Q --steps T} or
 * {@code --epochs E --dataset-size N --batch-size B} (q = B/N, T = ceil(E·N/B), as TF Privacy).
 */
final class SgmScheduleOptions {
  @Option(names = "--sampling-rate", paramLabel = "Q", description = "Poisson sampling rate q in (0, 1].")
  Double samplingRate;

  @Option(names = "--steps", paramLabel = "T", description = "Number of steps T >= 1.")
  Long steps;

  @Option(names = "--epochs", paramLabel = "E", description = "Epochs (alternative to --sampling-rate/--steps).")
  Double epochs;

  @Option(names = "--dataset-size", paramLabel = "N", description = "Records in the training set.")
  Long datasetSize;

  @Option(names = "--batch-size", paramLabel = "B", description = "Expected batch size (q = B/N).")
  Long batchSize;

  /** Resolved (q, T), and a note when dp4j train would take a different number of steps (else null). */
  record Schedule(double samplingRate, long steps, String note) {
    Schedule(double samplingRate, long steps) {
      this(samplingRate, steps, null);
    }

    /** Adds the note, if any, to both formats of the report. */
    GuaranteeReport annotate(GuaranteeReport report) {
      return note == null ? report : report.detail("stepsNote", note, java.util.List.of("note: " + note));
    }
  }

  Schedule resolve(CommandLine cmd) {
    boolean direct = samplingRate != null || steps != null;
    boolean byEpochs = epochs != null || datasetSize != null || batchSize != null;
    if (direct && byEpochs) {
      throw new CommandLine.ParameterException(cmd,
          "give either --sampling-rate and --steps, or --epochs, --dataset-size and --batch-size, not both");
    }
    if (byEpochs) {
      require(cmd, epochs, "--epochs");
      require(cmd, datasetSize, "--dataset-size");
      require(cmd, batchSize, "--batch-size");
      Checks.positive(cmd, "--epochs", epochs);
      Checks.positive(cmd, "--dataset-size", datasetSize);
      Checks.positive(cmd, "--batch-size", batchSize);
      if (batchSize > datasetSize) {
        throw new CommandLine.ParameterException(cmd,
            "--batch-size must be <= --dataset-size (" + datasetSize + "), was " + batchSize);
      }
      long total = SampledGaussianMechanism.stepsForEpochs(epochs, datasetSize, batchSize);
      long trainSteps = epochs.longValue() * ((datasetSize + batchSize - 1) / batchSize);
      // dp4j train's Poisson sampler takes ⌈n/b⌉ steps per epoch; say so rather than understate that run's ε
      String note = epochs == Math.rint(epochs) && trainSteps != total ? String.format(java.util.Locale.ROOT,
          "T = ceil(E*n/b) = %d steps (TF Privacy's convention); dp4j train takes E*ceil(n/b) = %d steps for these "
              + "settings: use --sampling-rate %s --steps %d to account for that run", total, trainSteps,
          (double) batchSize / datasetSize, trainSteps) : null;
      return new Schedule((double) batchSize / datasetSize, total, note);
    }
    require(cmd, samplingRate, "--sampling-rate");
    require(cmd, steps, "--steps");
    Checks.samplingRate(cmd, samplingRate);
    Checks.positive(cmd, "--steps", steps);
    return new Schedule(samplingRate, steps);
  }

  private static void require(CommandLine cmd, Object value, String flag) {
    if (value == null) {
      throw new CommandLine.ParameterException(cmd, "missing " + flag
          + " (give --sampling-rate and --steps, or --epochs, --dataset-size and --batch-size)");
    }
  }
}
