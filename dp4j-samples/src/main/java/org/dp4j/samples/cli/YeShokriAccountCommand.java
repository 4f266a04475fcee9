package org.dp4j.samples.cli;

import java.util.Locale;
import org.dp4j.accounting.Orders;
import org.dp4j.accounting.hiddenstate.YeShokriAccountant;
import org.dp4j.accounting.hiddenstate.YeShokriConfig;
import org.dp4j.accounting.hiddenstate.YeShokriConvexFixedBatchAccountant;
import org.dp4j.accounting.hiddenstate.YeShokriFixedBatchAccountant;
import org.dp4j.accounting.hiddenstate.YeShokriNaiveBaselineAccountant;
import org.dp4j.accounting.hiddenstate.YeShokriShuffleAccountant;
import org.dp4j.accounting.hiddenstate.YeShokriWithoutReplacementAccountant;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code dp4j account ye-shokri}: the last-iterate bounds of Ye &amp; Shokri 2022 (docs/accountants.md#ye-shokri). */
@Command(name = "ye-shokri", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Hidden-state privacy of noisy mini-batch gradient descent on a smooth (strongly) convex loss"
        + " (Ye & Shokri 2022, docs/accountants.md#ye-shokri).",
        "theta <- theta - eta*(batch-mean gradient) + N(0, 2*eta*sigma^2*I); m = floor(n/b) steps per epoch.",
        "Theorems: convex-fixed-batch (Thm 4.3, convex), fixed-batch (Thm 4.4), shuffle (Thm 5.2, shuffle once),"
            + " without-replacement (Thm 5.3, fresh batch each step), naive-baseline (Thm 4.5).",
        "Neighbours: replace one record. Threat model: only the last iterate released. lambda and beta are"
            + " asserted by you: the report is conditional on them.",
        "Example: dp4j account ye-shokri --theorem shuffle -n 50 -b 4 -K 10 --eta 0.02 --lambda 1 --beta 4"
            + " --sg 4 --sigma 2 --orders 10 --delta 1e-5"})
final class YeShokriAccountCommand extends HiddenStateAccountCommand<YeShokriAccountant> {
  @Option(names = "--theorem", paramLabel = "THM", required = true,
      description = "convex-fixed-batch | fixed-batch | shuffle | without-replacement | naive-baseline")
  String theorem;

  @Option(names = {"--dataset-size", "-n"}, paramLabel = "N", required = true, description = "n, training records.")
  long datasetSize;

  @Option(names = {"--batch-size", "-b"}, paramLabel = "B", required = true, description = "b, batch size.")
  int batchSize;

  @Option(names = {"--epochs", "-K"}, paramLabel = "K", required = true, description = "K, whole epochs.")
  int epochs;

  @Option(names = {"--learning-rate", "--eta"}, paramLabel = "ETA", required = true, description = "eta, step size.")
  double learningRate;

  @Option(names = {"--strong-convexity", "--lambda"}, paramLabel = "LAMBDA", required = true,
      description = "lambda >= 0: the loss is lambda-strongly convex (0: convex, only convex-fixed-batch).")
  double strongConvexity;

  @Option(names = {"--smoothness", "--beta"}, paramLabel = "BETA", required = true,
      description = "beta: the loss is beta-smooth.")
  double smoothness;

  @Option(names = {"--sensitivity", "--sg"}, paramLabel = "SG",
      description = "S_g, per-example gradient sensitivity (replace-one). Or --clip-norm.")
  Double sensitivity;

  @Option(names = {"--clip-norm", "-C"}, paramLabel = "C", description = "Per-example clip norm C (S_g = 2C).")
  Double clipNorm;

  @Option(names = "--sigma", paramLabel = "SIGMA",
      description = "sigma, the theory's noise: N(0, 2*eta*sigma^2*I) per step. Or --noise-multiplier.")
  Double sigma;

  @Option(names = {"--noise-multiplier", "--sigma-mul"}, paramLabel = "Z",
      description = "Algorithm 3's sigma_mul: noise eta*sigma_mul*C/b per step.")
  Double noiseMultiplier;

  @Option(names = {"--bn-noise-multiplier", "--sigma-bn"}, paramLabel = "SBN",
      description = "sigma_bn of privately released normalisation statistics: adds alpha/sigma_bn^2.")
  Double normalisationNoiseMultiplier;

  @Option(names = "--first-term", paramLabel = "stated|tight", defaultValue = "stated",
      description = "First term of Thm 4.4/5.2: stated (default) or tight (the proof's Eq. 118).")
  String firstTerm;

  @Override
  YeShokriAccountant accountant(CommandLine cmd, Orders orders) {
    YeShokriConfig.Builder b = YeShokriConfig.builder().datasetSize(datasetSize).batchSize(batchSize).epochs(epochs)
        .stepSize(learningRate).strongConvexity(strongConvexity).smoothness(smoothness)
        .firstTerm(switch (firstTerm.toLowerCase(Locale.ROOT)) {
          case "stated" -> YeShokriConfig.FirstTerm.STATED;
          case "tight" -> YeShokriConfig.FirstTerm.TIGHT;
          default -> throw new CommandLine.ParameterException(cmd,
              "--first-term must be 'stated' or 'tight', was '" + firstTerm + "'");
        });
    if ((sensitivity == null) == (clipNorm == null)) {
      throw new CommandLine.ParameterException(cmd, "give exactly one of --sensitivity and --clip-norm");
    }
    if ((sigma == null) == (noiseMultiplier == null)) {
      throw new CommandLine.ParameterException(cmd, "give exactly one of --sigma and --noise-multiplier");
    }
    if (sensitivity != null) {
      b.gradientSensitivity(sensitivity);
    } else {
      b.clipNorm(clipNorm);
    }
    if (sigma != null) {
      b.sigma(sigma);
    } else {
      b.noiseMultiplier(noiseMultiplier);
    }
    if (normalisationNoiseMultiplier != null) {
      b.normalisationNoiseMultiplier(normalisationNoiseMultiplier);
    }
    YeShokriConfig config = b.build();
    return switch (theorem) {
      case "convex-fixed-batch" -> new YeShokriConvexFixedBatchAccountant(config);
      case "fixed-batch" -> new YeShokriFixedBatchAccountant(config);
      case "shuffle" -> new YeShokriShuffleAccountant(config);
      case "without-replacement" -> new YeShokriWithoutReplacementAccountant(config);
      case "naive-baseline" -> new YeShokriNaiveBaselineAccountant(config);
      default -> throw new CommandLine.ParameterException(cmd, "--theorem must be convex-fixed-batch, fixed-batch,"
          + " shuffle, without-replacement or naive-baseline, was '" + theorem + "'");
    };
  }

  @Override
  String title() {
    return "Noisy mini-batch GD, hidden-state accounting (Ye & Shokri 2022)";
  }
}
