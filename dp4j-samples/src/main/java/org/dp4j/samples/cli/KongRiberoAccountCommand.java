package org.dp4j.samples.cli;

import java.util.Locale;
import org.dp4j.accounting.Orders;
import org.dp4j.accounting.PrivacyGuarantee;
import org.dp4j.accounting.hiddenstate.KongRiberoAccountant;
import org.dp4j.accounting.hiddenstate.KongRiberoAccountant.Gradients;
import org.dp4j.accounting.hiddenstate.KongRiberoAccountant.LipschitzVariant;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code dp4j account kong-ribero}: last-iterate RDP of cyclic DP-SGD on weakly convex losses (Kong &amp; Ribero 2025; docs/accountants.md#kong-ribero). */
@Command(name = "kong-ribero", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Hidden-state privacy of cyclic (prox-)DP-SGD on m-weakly convex, M-smooth losses"
        + " (Kong & Ribero 2025, Thm 2.2 / 2.3, docs/accountants.md#kong-ribero).",
        "X_t = prox(X_{t-1} - lambda*g_t + N(0, sigma^2*I)) over l = k/b fixed batches visited cyclically,"
            + " per-example gradients clipped to C (or bounded by C, --unclipped).",
        "Neighbours: replace one record. Threat model: only the last iterate released. m and M are asserted by"
            + " you (a ReLU network is not smooth): the report is conditional on them.",
        "Example: dp4j account kong-ribero -k 10 -b 2 -T 23 --lambda 0.1 -C 1 --sigma 0.5 -m 1 -M 1 --orders 2"
            + " --delta 1e-5"})
final class KongRiberoAccountCommand extends HiddenStateAccountCommand<KongRiberoAccountant> {
  @Option(names = {"--dataset-size", "-k"}, paramLabel = "K", required = true, description = "k, training records.")
  long k;

  @Option(names = {"--batch-size", "-b"}, paramLabel = "B", required = true, description = "b, batch size; divides k.")
  long b;

  @Option(names = {"--iterations", "-T"}, paramLabel = "T", required = true,
      description = "T, iterations, fixed in advance; a partial pass counts as a whole one.")
  long iterations;

  @Option(names = {"--learning-rate", "--lambda"}, paramLabel = "LAMBDA", required = true,
      description = "lambda, the constant step size (<= 1/(2(m+M)) clipped, <= 1/(m+M) unclipped).")
  double learningRate;

  @Option(names = {"--clip-norm", "-C"}, paramLabel = "C", required = true,
      description = "C, per-example clip norm (with --unclipped: the asserted gradient bound).")
  double clipNorm;

  @Option(names = "--sigma", paramLabel = "SIGMA", required = true,
      description = "sigma, std of the noise added to every parameter per step (= lambda*z*C/b for noise z*C on"
          + " the clipped sum).")
  double sigma;

  @Option(names = {"--weak-convexity", "-m"}, paramLabel = "M_WEAK", required = true,
      description = "m >= 0, weak-convexity constant of every per-example loss (0: convex).")
  double weakConvexity;

  @Option(names = {"--smoothness", "-M"}, paramLabel = "M_SMOOTH", required = true,
      description = "M >= 0, smoothness constant of every per-example loss.")
  double smoothness;

  @Option(names = {"--domain-diameter", "--dh"}, paramLabel = "DH",
      description = "d_h, diameter of dom h when h is a bounded constraint: enables Thm 2.2.")
  Double domainDiameter;

  @Option(names = "--unclipped",
      description = "No clipping; every gradient is asserted to be bounded by C on dom h (eq. 19).")
  boolean unclipped;

  @Option(names = "--lipschitz-variant", paramLabel = "conservative|printed", defaultValue = "conservative",
      description = "L_lambda: conservative (default, erratum E1) or printed eq. (13).")
  String lipschitzVariant;

  @Option(names = "--refined-worst-case",
      description = "Also use the derived worst-position refinement (Kong & Ribero 2025; docs/errata.md#kong-ribero-theorem-2-3, not in the paper).")
  boolean refinedWorstCase;

  @Override
  KongRiberoAccountant accountant(CommandLine cmd, Orders orders) {
    KongRiberoAccountant.Builder builder = KongRiberoAccountant.builder().datasetSize(k).batchSize(b)
        .iterations(iterations)
        .stepSize(learningRate).clipNorm(clipNorm).noiseStd(sigma).weakConvexity(weakConvexity).smoothness(smoothness)
        .gradients(unclipped ? Gradients.UNCLIPPED_BOUNDED : Gradients.CLIPPED)
        .lipschitzVariant(switch (lipschitzVariant.toLowerCase(Locale.ROOT)) {
          case "conservative" -> LipschitzVariant.CONSERVATIVE;
          case "printed" -> LipschitzVariant.PRINTED_EQ13;
          default -> throw new CommandLine.ParameterException(cmd,
              "--lipschitz-variant must be 'conservative' or 'printed', was '" + lipschitzVariant + "'");
        })
        .refinedWorstCase(refinedWorstCase);
    if (domainDiameter != null) {
      builder.domainDiameter(domainDiameter);
    }
    return builder.build();
  }

  /** The printed L_λ of eq. (13) is the paper's constant, which erratum E1 shows is not a valid bound. */
  @Override
  java.util.Optional<String> notCertifiedBecause(KongRiberoAccountant accountant) {
    return "printed".equalsIgnoreCase(lipschitzVariant)
        ? java.util.Optional.of("--lipschitz-variant printed uses eq. (13) as printed, which does not bound L_lambda "
            + "(erratum E1); use the conservative default for a certified bound")
        : java.util.Optional.empty();
  }

  @Override
  String title() {
    return "Cyclic DP-SGD on weakly convex losses, hidden-state accounting (Kong & Ribero 2025)";
  }

  @Override
  void describe(GuaranteeReport report, KongRiberoAccountant accountant, PrivacyGuarantee guarantee) {
    report.extra("rho", accountant.rho()).extra("epochs", accountant.epochs());
  }
}
