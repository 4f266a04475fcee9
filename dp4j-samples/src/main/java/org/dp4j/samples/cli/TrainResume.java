package org.dp4j.samples.cli;

import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import org.dp4j.listeners.InvalidCheckpointException;
import org.dp4j.listeners.LedgerCheckpoint;
import picocli.CommandLine;

/**
 * The {@code dp4j train} settings a checkpoint records, and their use on {@code --resume}: a flag the checkpoint
 * records is taken from it when not given, and refused, naming both values, when given with another value (the
 * restored network keeps its own architecture, clip norm and updater, so a different flag would be silently
 * ignored while the report stated it). Flags a resumed run honours: {@code --epochs} (with
 * {@code --noise-multiplier}; with {@code --epsilon} the calibrated noise changes and the ledger refuses it),
 * the output files, {@code --data-dir} and {@code --seed} (no effect: the weights come from the checkpoint).
 * The mechanism (noise, sampling rate, δ, budget) is checked by the ledger's fingerprint.
 */
final class TrainResume {
  /** The recorded flags, in the order they are checked. */
  static final String[] FLAGS = {"--algorithm", "--dataset", "--model", "--hidden", "--activation", "--clip-norm",
      "--learning-rate", "--momentum", "--batch-size", "--train-size", "--accountant"};

  private TrainResume() {}

  /** The effective DP-SGD settings of a run, to store in its checkpoints. */
  static Map<String, String> settings(TrainCommand c, int[] widths, String activation, double clip, double lr,
      double momentum, int batch, int trainSize) {
    Map<String, String> s = new LinkedHashMap<>();
    s.put("--algorithm", "dp-sgd");
    s.put("--dataset", c.dataOptions.dataset.toLowerCase(Locale.ROOT));
    s.put("--model", c.model.toLowerCase(Locale.ROOT));
    if (widths != null) {
      s.put("--hidden", join(widths));
      s.put("--activation", activation.toLowerCase(Locale.ROOT));
    }
    s.put("--clip-norm", Double.toString(clip));
    s.put("--learning-rate", Double.toString(lr));
    s.put("--momentum", Double.toString(momentum));
    s.put("--batch-size", Integer.toString(batch));
    s.put("--train-size", Integer.toString(trainSize));
    s.put("--accountant", c.accountant.toLowerCase(Locale.ROOT));
    return s;
  }

  /**
   * Reads the settings stored in {@code c.resume}, refuses given flags that contradict them and fills in the ones
   * not given.
   */
  static void adopt(CommandLine cmd, TrainCommand c) {
    if (!Files.isRegularFile(c.resume)) {
      throw new CommandLine.ParameterException(cmd, "--resume " + c.resume
          + (Files.isDirectory(c.resume) ? " is a folder, not a checkpoint file" : " does not exist"));
    }
    Map<String, String> saved;
    try {
      saved = LedgerCheckpoint.read(c.resume.toFile()).settings();
    } catch (InvalidCheckpointException | UncheckedIOException e) {
      throw new CommandLine.ParameterException(cmd, "--resume: " + e.getMessage());
    }
    if (saved.isEmpty()) {
      throw new CommandLine.ParameterException(cmd, "--resume " + c.resume + " records no dp4j train settings (it "
          + "was written through the Java API); dp4j train cannot check its flags against it");
    }
    CommandLine.ParseResult parsed = cmd.getParseResult();
    for (String flag : FLAGS) {
      String value = saved.get(flag);
      if (parsed.hasMatchedOption(flag)) {
        String given = given(c, flag);
        if (value == null || !same(flag, value, given)) {
          throw new CommandLine.ParameterException(cmd, String.format("%s %s contradicts the checkpoint %s, which "
              + "was trained with %s; a resumed run keeps the checkpoint's settings (drop %s or start a new run)",
              flag, given, c.resume, value == null ? "no " + flag + " (" + describeModel(saved) + ")"
                  : flag + " " + value, flag));
        }
      } else if (value != null) {
        try {
          set(c, flag, value);
        } catch (IllegalArgumentException e) {
          throw new CommandLine.ParameterException(cmd, "--resume " + c.resume + " records an unreadable " + flag
              + " '" + value + "'");
        }
      }
    }
  }

  private static String describeModel(Map<String, String> saved) {
    return "--model " + saved.getOrDefault("--model", "?");
  }

  private static String given(TrainCommand c, String flag) {
    return switch (flag) {
      case "--algorithm" -> c.algorithm.name().toLowerCase(Locale.ROOT).replace('_', '-');
      case "--dataset" -> c.dataOptions.dataset;
      case "--model" -> c.model;
      case "--hidden" -> join(c.hidden);
      case "--activation" -> c.activation;
      case "--clip-norm" -> String.valueOf(c.clipNorm);
      case "--learning-rate" -> String.valueOf(c.learningRate);
      case "--momentum" -> String.valueOf(c.momentum);
      case "--batch-size" -> String.valueOf(c.batchSize);
      case "--train-size" -> String.valueOf(c.dataOptions.trainSize);
      case "--accountant" -> c.accountant;
      default -> throw new IllegalStateException("unknown recorded flag " + flag);
    };
  }

  private static boolean same(String flag, String saved, String given) {
    return switch (flag) {
      case "--clip-norm", "--learning-rate", "--momentum" -> Double.parseDouble(saved) == Double.parseDouble(given);
      default -> saved.equalsIgnoreCase(given);
    };
  }

  private static void set(TrainCommand c, String flag, String value) {
    switch (flag) {
      case "--algorithm" -> c.algorithm = new TrainCommand.AlgorithmConverter().convert(value);
      case "--dataset" -> c.dataOptions.dataset = value;
      case "--model" -> c.model = value;
      case "--hidden" -> c.hidden = Arrays.stream(value.split(",")).mapToInt(Integer::parseInt).toArray();
      case "--activation" -> c.activation = value;
      case "--clip-norm" -> c.clipNorm = Double.parseDouble(value);
      case "--learning-rate" -> c.learningRate = Double.parseDouble(value);
      case "--momentum" -> c.momentum = Double.parseDouble(value);
      case "--batch-size" -> c.batchSize = Integer.parseInt(value);
      case "--train-size" -> c.dataOptions.trainSize = Integer.parseInt(value);
      case "--accountant" -> c.accountant = value;
      default -> throw new IllegalStateException("unknown recorded flag " + flag);
    }
  }

  private static String join(int[] widths) {
    return Arrays.stream(widths).mapToObj(Integer::toString).collect(Collectors.joining(","));
  }
}
