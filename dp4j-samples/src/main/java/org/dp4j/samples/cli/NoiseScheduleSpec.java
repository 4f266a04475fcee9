package org.dp4j.samples.cli;

import java.util.Arrays;
import org.dp4j.accounting.hiddenstate.NoiseTemperatureSchedule;
import picocli.CommandLine;

/**
 * The value of {@code --noise-schedule}: a DP-MBCD noise temperature o(k) by epoch k (0-based), parsed into
 * a {@link NoiseTemperatureSchedule}.
 * <ul>
 *   <li>{@code constant:O}: o(k) = O;</li>
 *   <li>{@code linear:O0,O1}: o(k) = O0 + O1·k (O1 &lt; 0 decays; must stay &gt; 0 for every epoch run);</li>
 *   <li>{@code decreasing:OK,D}: the paper's "D" schedule o(k) = OK + D·(K−1−k), ending at OK in the last
 *       epoch (Chen &amp; Liu App. D.2);</li>
 *   <li>{@code piecewise:0=O,13=O'}: O from epoch 0, O' from epoch 13, ...</li>
 * </ul>
 *
 * @param schedule the parsed schedule
 * @param text the flag's value, as given
 */
record NoiseScheduleSpec(NoiseTemperatureSchedule schedule, String text) {
  static final String HELP = "Noise temperature by epoch k (0-based): constant:O, linear:O0,O1 (o = O0 + O1*k), "
      + "decreasing:OK,D (o = OK + D*(K-1-k), the paper's D schedule), piecewise:0=O,13=O2,... "
      + "Fixed before training, independent of the data.";

  static NoiseScheduleSpec parse(CommandLine cmd, String text, int epochs) {
    int colon = text.indexOf(':');
    if (colon < 0) {
      throw bad(cmd, text, "expected KIND:VALUES");
    }
    String kind = text.substring(0, colon);
    String[] parts = text.substring(colon + 1).split(",");
    try {
      NoiseTemperatureSchedule schedule = switch (kind) {
        case "constant" -> NoiseTemperatureSchedule.constant(numbers(cmd, text, parts, 1)[0]);
        case "linear" -> {
          double[] v = numbers(cmd, text, parts, 2);
          yield NoiseTemperatureSchedule.linearInEpoch(v[0], v[1]);
        }
        case "decreasing" -> {
          double[] v = numbers(cmd, text, parts, 2);
          yield NoiseTemperatureSchedule.decreasingTo(v[0], v[1], epochs);
        }
        case "piecewise" -> piecewise(cmd, text, parts);
        default -> throw bad(cmd, text, "KIND must be constant, linear, decreasing or piecewise");
      };
      return new NoiseScheduleSpec(schedule, text);
    } catch (IllegalArgumentException e) {
      throw bad(cmd, text, e.getMessage());
    }
  }

  private static NoiseTemperatureSchedule piecewise(CommandLine cmd, String text, String[] parts) {
    int[] starts = new int[parts.length];
    double[] temperatures = new double[parts.length];
    for (int i = 0; i < parts.length; i++) {
      String[] kv = parts[i].split("=");
      if (kv.length != 2) {
        throw bad(cmd, text, "piecewise pieces are EPOCH=O, got '" + parts[i] + "'");
      }
      starts[i] = Integer.parseInt(kv[0].trim());
      temperatures[i] = Double.parseDouble(kv[1].trim());
    }
    return NoiseTemperatureSchedule.piecewiseByEpoch(starts, temperatures);
  }

  private static double[] numbers(CommandLine cmd, String text, String[] parts, int count) {
    if (parts.length != count) {
      throw bad(cmd, text, "expected " + count + " comma-separated number(s)");
    }
    return Arrays.stream(parts).mapToDouble(p -> Double.parseDouble(p.trim())).toArray();
  }

  private static CommandLine.ParameterException bad(CommandLine cmd, String text, String why) {
    return new CommandLine.ParameterException(cmd, "--noise-schedule '" + text + "' is invalid: " + why);
  }
}
