package org.dp4j.samples.cli;

import java.nio.file.Path;
import java.util.Locale;
import org.dp4j.data.LabelledImages;
import org.dp4j.data.MnistSplit;
import org.dp4j.data.MnistVariant;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * The data options of the commands that train on MNIST or Fashion-MNIST ({@code train}, {@code audit}), as one
 * picocli mixin: which data set, where its IDX files are, and how many training images to use.
 */
final class MnistDataOptions {
  @Option(names = "--dataset", defaultValue = "mnist", paramLabel = "mnist|fashion-mnist",
      description = "Data set (default: mnist).")
  String dataset;

  @Option(names = "--train-size", paramLabel = "N", description = "Use only the first N training images.")
  Integer trainSize;

  @Option(names = "--data-dir", paramLabel = "DIR", description = "Folder with the four IDX files.")
  Path dataDir;

  /** {@code --dataset}, refused unless mnist or fashion-mnist. */
  MnistVariant variant(CommandLine cmd) {
    return switch (dataset.toLowerCase(Locale.ROOT)) {
      case "mnist" -> MnistVariant.MNIST;
      case "fashion-mnist" -> MnistVariant.FASHION_MNIST;
      default -> throw new CommandLine.ParameterException(cmd,
          "--dataset must be mnist or fashion-mnist, was '" + dataset + "'");
    };
  }

  /** The data set's name as reports write it: "mnist" or "fashion-mnist". */
  String name(CommandLine cmd) {
    return variant(cmd).name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  /** {@code --data-dir}, else the data set's folder under .cache/data of the working directory. */
  Path dir(CommandLine cmd) {
    return dataDir != null ? dataDir : variant(cmd).cacheDir(Path.of("").toAbsolutePath());
  }

  /** One split from {@link #dir}; a problem with the folder or its files is bad input naming --data-dir. */
  LabelledImages load(CommandLine cmd, MnistSplit split) {
    return Checks.mnist(cmd, dir(cmd), split);
  }

  /**
   * How many of the {@code available} training images to use: all of them, unless {@code --train-size} is given, which
   * is refused outside [{@code min}, available]; {@code minLabel} says what the minimum is ("batch size 256") and
   * {@code why} (may be empty) why.
   */
  int trainSize(CommandLine cmd, int available, int min, String minLabel, String why) {
    if (trainSize != null && (trainSize < min || trainSize > available)) {
      throw new CommandLine.ParameterException(cmd, "--train-size must be in [" + minLabel + ", " + available + "]"
          + why + ", was " + trainSize);
    }
    return trainSize != null ? trainSize : available;
  }
}
