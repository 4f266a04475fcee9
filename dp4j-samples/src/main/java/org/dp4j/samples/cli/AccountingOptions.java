package org.dp4j.samples.cli;

import java.util.List;
import org.dp4j.accounting.Orders;
import org.dp4j.accounting.RdpConversion;
import org.dp4j.accounting.pld.PldAccountant;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/** Options shared by every accounting command: accountant, δ, Rényi orders, conversion, output format. */
final class AccountingOptions {
  /** Largest Rényi order accepted on the command line. */
  static final double MAX_ORDER = 1e6;

  @Option(names = "--delta", paramLabel = "D", required = true, description = "Target delta in (0, 1).")
  double delta;

  @Option(names = "--accountant", paramLabel = "rdp|pld", defaultValue = "rdp",
      description = "rdp (default): exact sampled-Gaussian Renyi DP, converted to (epsilon, delta). "
          + "pld: privacy loss distributions composed by FFT (tighter, e.g. 2.39 instead of 2.60 for the MNIST "
          + "example); epsilon is a certified upper bound and the JSON adds epsilonLower and epsilonErrorBound.")
  String accountant;

  @Option(names = "--pld-tolerance", paramLabel = "T",
      description = "pld only: target width of the discretisation error in epsilon (default 0.005; smaller is "
          + "slower).")
  Double pldTolerance;

  @Option(names = "--orders", paramLabel = "A", split = ",",
      description = "Renyi orders in (1, 1e6], comma-separated (default: 1.1..10.9 step 0.1, 11..63, 128, 256, "
          + "512, 1024).")
  List<Double> orders;

  @Option(names = "--conversion", paramLabel = "improved|classic",
      description = "rdp only: RDP to (epsilon, delta) conversion: improved (Balle et al. 2020, default) or "
          + "classic (Mironov 2017).")
  String conversion;

  @Option(names = "--json", description = "Print one JSON object instead of a text report.")
  boolean json;

  Orders orders(CommandLine cmd) {
    if (orders == null || orders.isEmpty()) {
      return Orders.DEFAULT;
    }
    double[] values = orders.stream().mapToDouble(Double::doubleValue).toArray();
    for (double a : values) {
      if (!(a > 1) || a == Double.POSITIVE_INFINITY) {
        // At order infinity the sampled Gaussian's Renyi divergence is infinite: no bound (Mironov 2017, Prop. 10).
        throw new CommandLine.ParameterException(cmd, "--orders must all be finite and > 1, was " + a
            + (a == Double.POSITIVE_INFINITY ? " (the Renyi divergence of order infinity is max-divergence, "
            + "infinite for the Gaussian mechanism: it gives no bound)" : ""));
      }
      if (!(a <= MAX_ORDER)) {
        throw new CommandLine.ParameterException(cmd, "--orders must all be <= 1e6, was " + a
            + " (larger orders are not supported: there the sampled-Gaussian RDP is only an upper bound, "
            + "see docs/accounting-sgm-rdp.md)");
      }
    }
    return Orders.sortedOf(values);
  }

  /** True for {@code --accountant pld}; rejects RDP-only options given with it. */
  boolean pld(CommandLine cmd) {
    boolean pld = switch (accountant.toLowerCase(java.util.Locale.ROOT)) {
      case "rdp" -> false;
      case "pld" -> true;
      default -> throw new CommandLine.ParameterException(cmd,
          "--accountant must be 'rdp' or 'pld', was '" + accountant + "'");
    };
    if (pld && (orders != null || conversion != null)) {
      throw new CommandLine.ParameterException(cmd, "--orders and --conversion apply to --accountant rdp only");
    }
    if (!pld && pldTolerance != null) {
      throw new CommandLine.ParameterException(cmd, "--pld-tolerance applies to --accountant pld only");
    }
    return pld;
  }

  PldAccountant pldAccountant(CommandLine cmd) {
    if (pldTolerance == null) {
      return PldAccountant.withDefaults();
    }
    if (!(pldTolerance > 0 && pldTolerance <= 1)) {
      throw new CommandLine.ParameterException(cmd, "--pld-tolerance must be in (0, 1], was " + pldTolerance);
    }
    return PldAccountant.withTolerance(pldTolerance);
  }

  RdpConversion conversion(CommandLine cmd) {
    if (conversion == null) {
      return RdpConversion.IMPROVED;
    }
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
