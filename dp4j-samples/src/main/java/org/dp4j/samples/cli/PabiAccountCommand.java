package org.dp4j.samples.cli;

import org.dp4j.accounting.Orders;
import org.dp4j.accounting.PrivacyGuarantee;
import org.dp4j.accounting.hiddenstate.PabiAccountant;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code dp4j account pabi}: privacy amplification by iteration for cyclic noisy SGD (Boninsegna's survey; docs/errata.md#pabi-corrected). */
@Command(name = "pabi", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Hidden-state privacy of noisy SGD over fixed disjoint batches by privacy amplification by"
        + " iteration (Feldman et al. 2018 Thm 22, corrected as in docs/errata.md#pabi-corrected), worst batch position.",
        "theta <- theta - (eta/B)*(sum of gradients + N(0, 4*sigma^2*L^2*I)), Q = n/B batches visited cyclically,"
            + " no clipping.",
        "Neighbours: replace one record. Threat model: only the last iterate released. Convexity, beta and L are"
            + " asserted by you: the report is conditional on them.",
        "Example: dp4j account pabi -n 100 -B 10 -T 5 --sigma 1 --eta 0.1 --beta 1 -L 1 --orders 2 --delta 1e-5"})
final class PabiAccountCommand extends HiddenStateAccountCommand<PabiAccountant> {
  @Option(names = {"--dataset-size", "-n"}, paramLabel = "N", required = true, description = "n, training records.")
  long datasetSize;

  @Option(names = {"--batch-size", "-B"}, paramLabel = "B", required = true, description = "B, batch size; divides n.")
  long batchSize;

  @Option(names = {"--epochs", "-T"}, paramLabel = "T", required = true, description = "T, epochs of Q = n/B steps.")
  long epochs;

  @Option(names = "--sigma", paramLabel = "SIGMA", required = true,
      description = "sigma, noise multiplier relative to the sensitivity 2L of a batch-gradient sum.")
  double sigma;

  @Option(names = {"--learning-rate", "--eta"}, paramLabel = "ETA", required = true,
      description = "eta, constant step size, <= 2/beta.")
  double learningRate;

  @Option(names = {"--smoothness", "--beta"}, paramLabel = "BETA", required = true,
      description = "beta, smoothness of every (convex) loss.")
  double smoothness;

  @Option(names = {"--lipschitz", "-L"}, paramLabel = "L", required = true,
      description = "L, Lipschitz constant of every loss (gradient norm bound).")
  double lipschitz;

  @Override
  PabiAccountant accountant(CommandLine cmd, Orders orders) {
    return PabiAccountant.builder().datasetSize(datasetSize).batchSize(batchSize).epochs(epochs)
        .noiseMultiplier(sigma).stepSize(learningRate)
        .smoothness(smoothness).lipschitzConstant(lipschitz).build();
  }

  @Override
  String title() {
    return "Cyclic noisy SGD, hidden-state accounting by privacy amplification by iteration";
  }

  @Override
  void describe(GuaranteeReport report, PabiAccountant accountant, PrivacyGuarantee guarantee) {
    report.extra("rho", accountant.rho());
  }
}
