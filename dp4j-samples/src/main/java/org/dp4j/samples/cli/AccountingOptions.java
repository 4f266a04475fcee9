package org.dp4j.samples.cli;

import java.util.List;
import org.dp4j.accounting.Orders;
import org.dp4j.accounting.RdpConversion;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/** Options shared by every accounting command: δ, Rényi orders, conversion, output format. */
final class AccountingOptions {
  @Option(names = "--delta", paramLabel = "D", required = true, description = "Target delta in (0, 1).")
  double delta;

  @Option(names = "--orders", paramLabel = "A", split = ",",
      description = "Renyi orders > 1, comma-separated (default: 1.1..10.9 step 0.1, 11..63, 128, 256, 512, 1024).")
  List<Double> orders;

  @Option(names = "--conversion", paramLabel = "improved|classic", defaultValue = "improved",
      description = "RDP to (epsilon, delta) conversion: improved (Balle et al. 2020, default) or classic "
          + "(Mironov 2017).")
  String conversion;

  @Option(names = "--json", description = "Print one JSON object instead of a text report.")
  boolean json;

  Orders orders(CommandLine cmd) {
    if (orders == null || orders.isEmpty()) {
      return Orders.DEFAULT;
    }
    double[] values = orders.stream().mapToDouble(Double::doubleValue).toArray();
    for (double a : values) {
      if (!(a > 1)) {
        throw new CommandLine.ParameterException(cmd, "--orders must all be > 1, was " + a);
      }
    }
    return Orders.sortedOf(values);
  }

  RdpConversion conversion(CommandLine cmd) {
    return switch (conversion.toLowerCase(java.util.Locale.ROOT)) {
      case "improved" -> RdpConversion.IMPROVED;
      case "classic" -> RdpConversion.CLASSIC;
      default -> throw new CommandLine.ParameterException(cmd,
          "--conversion must be 'improved' or 'classic', was '" + conversion + "'");
    };
  }

  double delta(CommandLine cmd) {
    Checks.delta(cmd, delta);
    return delta;
  }
}
