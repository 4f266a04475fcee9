package org.dp4j.samples.cli;

import org.dp4j.accounting.Orders;
import org.dp4j.accounting.PrivacyGuarantee;
import org.dp4j.accounting.hiddenstate.LangevinLsiAccountant;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code dp4j account langevin}: the log-Sobolev bound of full-batch noisy GD (Boninsegna's survey; docs/accountants.md#langevin-lsi). */
@Command(name = "langevin", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Hidden-state privacy of full-batch noisy projected GD on a strongly convex smooth loss"
        + " through the log-Sobolev inequality (Chourasia, Ye & Shokri 2021; Boninsegna's survey; docs/accountants.md#langevin-lsi).",
        "theta <- Proj(theta - (eta/n)*(sum of gradients + N(0, sigma^2*S_g^2*I))); converges to"
            + " 2*alpha/(lambda*eta*sigma^2) as K grows.",
        "Neighbours: replace one record. Threat model: only the last iterate released. lambda and beta are"
            + " asserted by you: the report is conditional on them.",
        "Example: dp4j account langevin --lambda 0.1 --beta 1.5 --eta 0.5 --sigma 2 -K 100 --orders 2"
            + " --delta 1e-5"})
final class LangevinAccountCommand extends HiddenStateAccountCommand<LangevinLsiAccountant> {
  @Option(names = {"--strong-convexity", "--lambda"}, paramLabel = "LAMBDA", required = true,
      description = "lambda, strong convexity of the mean loss.")
  double strongConvexity;

  @Option(names = {"--smoothness", "--beta"}, paramLabel = "BETA", required = true,
      description = "beta, smoothness of the mean loss.")
  double smoothness;

  @Option(names = {"--learning-rate", "--eta"}, paramLabel = "ETA", required = true,
      description = "eta, constant step size, < 1/beta.")
  double learningRate;

  @Option(names = "--sigma", paramLabel = "SIGMA", required = true,
      description = "sigma, noise multiplier relative to the sensitivity S_g of the gradient sum.")
  double sigma;

  @Option(names = {"--iterations", "-K"}, paramLabel = "K", required = true, description = "K, full-batch steps.")
  long iterations;

  @Override
  LangevinLsiAccountant accountant(CommandLine cmd, Orders orders) {
    return LangevinLsiAccountant.builder().strongConvexity(strongConvexity).smoothness(smoothness)
        .stepSize(learningRate).noiseMultiplier(sigma)
        .iterations(iterations).build();
  }

  @Override
  String title() {
    return "Full-batch noisy GD, hidden-state accounting by the log-Sobolev inequality";
  }

  @Override
  void describe(GuaranteeReport report, LangevinLsiAccountant accountant, PrivacyGuarantee guarantee) {
    report.extra("rho", accountant.rho()).extra("rhoLimit", accountant.rhoLimit());
  }
}
