package org.dp4j.samples.cli;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import org.dp4j.data.DataFileException;
import org.dp4j.data.LabelledImages;
import org.dp4j.data.MnistLoader;
import org.dp4j.data.MnistSplit;
import picocli.CommandLine;

/** Range checks for command-line values; each failure names the flag, the value and the constraint. */
final class Checks {
  private Checks() {}

  static void positive(CommandLine cmd, String flag, double value) {
    if (!(value > 0) || !Double.isFinite(value)) {
      throw new CommandLine.ParameterException(cmd, flag + " must be finite and > 0, was " + value);
    }
  }

  /** An integer option: the message shows the value as given ("was 0", not "was 0.0"). */
  static void positive(CommandLine cmd, String flag, long value) {
    if (value <= 0) {
      throw new CommandLine.ParameterException(cmd, flag + " must be > 0, was " + value);
    }
  }

  /**
   * Loads one MNIST split from {@code dir}; any problem with the folder or its files (missing, a file given as the
   * folder, unreadable, corrupt) is bad input naming {@code --data-dir} and the file.
   */
  static LabelledImages mnist(CommandLine cmd, Path dir, MnistSplit split) {
    try {
      return MnistLoader.load(dir, split);
    } catch (DataFileException e) {
      throw new CommandLine.ParameterException(cmd, "--data-dir: " + e.getMessage());
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

  /**
   * Refuses, before anything is allocated, a size that needs more than the Java heap ({@code -Xmx}; ND4J caps its
   * off-heap memory at the same size by default) or more than 2^31 - 1 elements in one array.
   *
   * @param what the flags and sizes, e.g. "--rows 2000000000 x --columns 200"
   * @param elements the largest single array, in elements
   * @param bytes a lower bound of the memory the run needs
   */
  static void fitsInMemory(CommandLine cmd, String what, double elements, double bytes) {
    if (elements > Integer.MAX_VALUE) {
      throw new CommandLine.ParameterException(cmd, String.format(Locale.ROOT, "%s: an array of %.3g "
          + "elements, more than the 2147483647 a Java/ND4J array index allows", what, elements));
    }
    long limit = Runtime.getRuntime().maxMemory();
    if (bytes > limit) {
      throw new CommandLine.ParameterException(cmd, String.format(Locale.ROOT, "%s needs at least %.0f MB, "
          + "more than the %d MB memory limit of this run (-Xmx, e.g. java -Xmx8g -jar dp4j.jar ...)", what,
          bytes / (1 << 20), limit >> 20));
    }
  }

  /** Refuses a run of more than 2^31 - 1 steps (the trainers count steps in an int). */
  static void totalSteps(CommandLine cmd, String what, long epochs, long stepsPerEpoch) {
    if ((double) epochs * stepsPerEpoch > Integer.MAX_VALUE) {
      throw new CommandLine.ParameterException(cmd, String.format(Locale.ROOT, "%s: %d epochs x %d "
          + "steps = %.3g steps, more than the 2147483647 a run can take", what, epochs, stepsPerEpoch,
          (double) epochs * stepsPerEpoch));
    }
  }

  /**
   * Refuses an MLP {@code inputs}-{@code widths}-{@code outputs} too large to train: its largest weight matrix
   * must be one array, and parameters, gradient, updater state and clipped sum (4 floats per parameter) plus
   * {@code floatsPerExample} floats for each of {@code examples} examples must fit in memory.
   */
  static void mlpFits(CommandLine cmd, int inputs, int[] widths, int outputs, long examples, double floatsPerExample) {
    double params = 0;
    double largest = 0;
    int in = inputs;
    for (int w : widths) {
      params += (double) in * w + w;
      largest = Math.max(largest, (double) in * w);
      in = w;
    }
    params += (double) in * outputs + outputs;
    largest = Math.max(largest, (double) in * outputs);
    String hidden = Arrays.toString(widths).replace(" ", "").replace("[", "").replace("]", "");
    fitsInMemory(cmd, String.format(Locale.ROOT, "--hidden %s (%.3g parameters)", hidden, params), largest,
        4 * (4 * params + floatsPerExample * examples));
  }
}
