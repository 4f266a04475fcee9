package org.dp4j.samples.cli;

import org.dp4j.accounting.Orders;
import org.dp4j.accounting.PrivacyGuarantee;
import org.dp4j.accounting.hiddenstate.HiddenStateAccountant;
import org.dp4j.accounting.hiddenstate.ShiftedInterpolationCyclicAccountant;
import org.dp4j.accounting.hiddenstate.ShiftedInterpolationNoisyGdAccountant;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code dp4j account shifted-interpolation}: μ-GDP of the last iterate of noisy (cyclic) GD (Bok, Su &amp; Altschuler 2024; docs/accountants.md#shifted-interpolation). */
@Command(name = "shifted-interpolation", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Hidden-state Gaussian DP of noisy gradient descent by shifted interpolation (Bok, Su &"
        + " Altschuler 2024; docs/accountants.md#shifted-interpolation): --algorithm gd (full batch, Thm 4.1-4.3) or cgd (cyclic batches,"
        + " Thm 4.4-4.6).",
        "X <- Proj(X - eta*(mean gradient + N(0, sigma^2*I))). The smallest applicable mu is reported; epsilon by"
            + " the exact mu-GDP conversion.",
        "Neighbours: replace one record. Threat model: only the last iterate released. m, M and D are asserted"
            + " by you: the report is conditional on them.",
        "Example: dp4j account shifted-interpolation --algorithm cgd -n 60000 -b 1500 -L 10 --sigma 0.01"
            + " --eta 0.05 -m 0.002 -M 1 -E 50 --delta 1e-5"})
final class ShiftedInterpolationAccountCommand extends HiddenStateAccountCommand<HiddenStateAccountant> {
  @Option(names = "--algorithm", paramLabel = "gd|cgd", required = true,
      description = "gd: full-batch noisy GD; cgd: noisy cyclic GD over l = n/b fixed batches.")
  String algorithm;

  @Option(names = {"--dataset-size", "-n"}, paramLabel = "N", required = true, description = "n, training records.")
  long datasetSize;

  @Option(names = {"--batch-size", "-b"}, paramLabel = "B", description = "b, batch size, divides n (cgd only).")
  Long batchSize;

  @Option(names = {"--sensitivity", "-L"}, paramLabel = "L", required = true,
      description = "L, gradient sensitivity sup ||grad f_i - grad f_i'|| (2C under clipping to C).")
  double sensitivity;

  @Option(names = "--sigma", paramLabel = "SIGMA", required = true,
      description = "sigma, std of the noise on the averaged gradient (parameter noise eta*sigma).")
  double sigma;

  @Option(names = {"--learning-rate", "--eta"}, paramLabel = "ETA", required = true, description = "eta, step size.")
  double learningRate;

  @Option(names = {"--strong-convexity", "-m"}, paramLabel = "M_CONVEX", defaultValue = "0",
      description = "m >= 0, strong convexity of every f_i (default 0: convex).")
  double strongConvexity;

  @Option(names = {"--smoothness", "-M"}, paramLabel = "M_SMOOTH", required = true,
      description = "M, smoothness of every f_i.")
  double smoothness;

  @Option(names = {"--diameter", "-D"}, paramLabel = "D",
      description = "D, diameter of the convex set every iterate is projected onto (default: unconstrained).")
  Double diameter;

  @Option(names = {"--iterations", "-t"}, paramLabel = "T", description = "t, iterations (gd only).")
  Long iterations;

  @Option(names = {"--epochs", "-E"}, paramLabel = "E", description = "E, whole epochs (cgd only).")
  Long epochs;

  @Override
  HiddenStateAccountant accountant(CommandLine cmd, Orders orders) {
    double d = diameter == null ? Double.POSITIVE_INFINITY : diameter;
    return switch (algorithm) {
      case "gd" -> {
        unused(cmd, batchSize, "--batch-size", "by --algorithm gd (full batch)");
        unused(cmd, epochs, "--epochs", "by --algorithm gd (give --iterations)");
        yield ShiftedInterpolationNoisyGdAccountant.builder().datasetSize(datasetSize)
            .gradientSensitivity(sensitivity).noiseStd(sigma).stepSize(learningRate)
            .strongConvexity(strongConvexity).smoothness(smoothness).diameter(d)
            .iterations(needed(cmd, iterations, "--iterations", "by --algorithm gd")).build();
      }
      case "cgd" -> {
        unused(cmd, iterations, "--iterations", "by --algorithm cgd (give --epochs)");
        yield ShiftedInterpolationCyclicAccountant.builder().datasetSize(datasetSize)
            .batchSize(needed(cmd, batchSize, "--batch-size", "by --algorithm cgd"))
            .gradientSensitivity(sensitivity).noiseStd(sigma).stepSize(learningRate)
            .strongConvexity(strongConvexity).smoothness(smoothness).diameter(d)
            .epochs(needed(cmd, epochs, "--epochs", "by --algorithm cgd")).build();
      }
      default -> throw new CommandLine.ParameterException(cmd,
          "--algorithm must be 'gd' or 'cgd', was '" + algorithm + "'");
    };
  }

  @Override
  String title() {
    return "Noisy " + ("gd".equals(algorithm) ? "full-batch" : "cyclic")
        + " GD, hidden-state accounting by shifted interpolation (Bok, Su & Altschuler 2024)";
  }

  @Override
  void describe(GuaranteeReport report, HiddenStateAccountant accountant, PrivacyGuarantee guarantee) {
    report.extra("mu", accountant instanceof ShiftedInterpolationNoisyGdAccountant gd ? gd.mu()
        : ((ShiftedInterpolationCyclicAccountant) accountant).mu());
  }
}
