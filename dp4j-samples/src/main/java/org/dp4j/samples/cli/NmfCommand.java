package org.dp4j.samples.cli;

import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.Callable;
import org.dp4j.accounting.NeighbouringRelation;
import org.dp4j.accounting.ledger.PrivacyLedger;
import org.dp4j.accounting.hiddenstate.NoiseTemperatureSchedule;
import org.dp4j.listeners.RunReport;
import org.dp4j.mbcd.DpMbcdAccounting;
import org.dp4j.listeners.LedgerReport;
import org.dp4j.mbcd.DpNmf;
import org.dp4j.mbcd.DpNmfMechanism;
import org.dp4j.mbcd.NmfStepRule;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code dp4j nmf}: DP-NMF (Chen &amp; Liu Alg. 3 with the corrections of docs/errata.md#dp-mbcd-nmf) on the synthetic problem of
 * Xu &amp; Yin 2013 / Chen &amp; Liu D.1.1, next to non-private mini-batch BCD with the same settings.
 */
@Command(name = "nmf", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"DP mini-batch BCD for non-negative matrix factorisation M = XY (Chen & Liu 2025, Alg. 3, "
        + "corrected: per-user clipping, Y updated every batch) on synthetic data: M = X0*Y0 with X0 (rows x rank) "
        + "and Y0 (rank x columns) uniform on [0, 1). Rows are users; one secret shuffle-once partition.",
        "Prints the relative error ||XY - M||_F / ||M||_F of the private run and of non-private mini-batch BCD, "
            + "and epsilon of the released item factors Y (replace one user; each user's row X_i stays with that "
            + "user and is not covered): the best certified bound for 'only the last iterate released' (the "
            + "hidden-state bound for fixed steps, or the composition bound of every Y step, which holds for both "
            + "step rules); the hidden-state number of curvature-scaled steps is the paper's claim "
            + "(epsilonPaperClaim), not a guarantee.",
        "Example: dp4j nmf --batch-size 100 --epochs 100"})
final class NmfCommand implements Callable<Integer> {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Option(names = "--batch-size", required = true, paramLabel = "B", description = "Users (rows) per batch.")
  int batchSize;

  @Option(names = "--epochs", defaultValue = "100", paramLabel = "K", description = "Epochs (default: 100).")
  int epochs;

  @Option(names = "--rows", defaultValue = "1000", paramLabel = "N", description = "Users (default: 1000).")
  int rows;

  @Option(names = "--columns", defaultValue = "200", paramLabel = "M", description = "Items (default: 200).")
  int columns;

  @Option(names = "--rank", defaultValue = "10", paramLabel = "D", description = "Rank (default: 10).")
  int rank;

  @Option(names = "--learning-rate", defaultValue = "1.0", paramLabel = "ETA", description = "eta (default: 1).")
  double learningRate;

  @Option(names = "--user-learning-rate", paramLabel = "ETA_X",
      description = "eta_X of the user rows X_i: their step (cap) and noise N(0, 2*eta_X*o*I) (default: --learning-rate). "
          + "A row's curvature ||YY^T|| sums over all items, Y's is a batch mean, so fixed steps need eta_X << eta.")
  Double userLearningRate;

  @Option(names = "--noise-variance", defaultValue = "0.001", paramLabel = "O",
      description = "Noise temperature o: N(0, 2*eta*o*I) per step on X rows and Y (default: 0.001, the paper's).")
  double noiseVariance;

  @Option(names = "--clip-norm", defaultValue = "1.0", paramLabel = "C",
      description = "Per-user clip norm of the X-row and Y gradient contributions; S_g = 2C (default: 1).")
  double clipNorm;

  @Option(names = "--step-rule", defaultValue = "curvature", paramLabel = "curvature|fixed",
      description = "curvature (default, the paper's): steps eta*min(1, KAPPA/||H||), H the block Hessian; the "
          + "step depends on the data, which the accounting does not cover (docs/errata.md#dp-mbcd-hessian-clipping). fixed: steps eta, "
          + "stable only if eta*||H|| <= 2.")
  String stepRule;

  @Option(names = "--kappa", defaultValue = "1.0", paramLabel = "KAPPA",
      description = "Curvature cap of the curvature step rule (default: 1; the paper's 1.1 with eta = 1 drove "
          + "non-private BCD to X = Y = 0 on this problem in our runs).")
  double kappa;

  @Option(names = "--delta", defaultValue = "1e-5", paramLabel = "D", description = "Delta (default: 1e-5).")
  double delta;

  @Option(names = "--seed", defaultValue = "2013", paramLabel = "S",
      description = "Seed of the synthetic data; the initial factors take the generator's next draw as their seed, "
          + "never the data's own draws (the noise and partition are secure).")
  long seed;

  @Option(names = "--json", description = "Print one JSON object.")
  boolean json;

  @Override
  public Integer call() {
    CommandLine cmd = spec.commandLine();
    validate(cmd);
    Random rnd = new Random(seed);
    INDArray m = uniform(rnd, rows, rank).mmul(uniform(rnd, rank, columns));
    // DpNmf draws X0 then Y0 exactly as above: seeded with `seed` they were 0.3 times the generating factors
    long initSeed = rnd.nextLong();
    double etaX = userLearningRate != null ? userLearningRate : learningRate;
    NmfStepRule rule = switch (stepRule.toLowerCase(Locale.ROOT)) {
      case "curvature" -> NmfStepRule.CURVATURE_SCALED;
      case "fixed" -> NmfStepRule.FIXED;
      default -> throw new CommandLine.ParameterException(cmd, "--step-rule must be curvature or fixed, was '"
          + stepRule + "'");
    };
    double k = kappa;
    DpNmf reference = DpNmf.builder(m, rank).batchSize(batchSize).epochs(epochs).learningRate(learningRate)
        .userLearningRate(etaX).stepRule(rule, k).initialisation(initSeed, 0.3).nonPrivate().build();
    reference.train();
    DpNmf dp = DpNmf.builder(m, rank).batchSize(batchSize).epochs(epochs).learningRate(learningRate)
        .userLearningRate(etaX).stepRule(rule, k).initialisation(initSeed, 0.3).clipNorm(clipNorm)
        .noiseSchedule(NoiseTemperatureSchedule.constant(noiseVariance)).build();
    dp.train();
    PrivacyLedger ledger = ledger(dp.mechanism());
    RunReport r = RunReport.builder("dp4j nmf").algorithm("dp-nmf").dataset("synthetic")
        .relation(NeighbouringRelation.REPLACE_ONE).ledger(ledger)
        .perEpoch(RunReport.perEpochRows(ledger, List.of())).field("rows", rows).field("columns", columns)
        .field("rank", rank).field("batchSize", batchSize).field("epochs", epochs).field("learningRate", learningRate)
        .field("userLearningRate", etaX)
        .field("noiseVariance", noiseVariance).field("clipNorm", clipNorm)
        .field("stepRule", rule.name().toLowerCase(Locale.ROOT)).field("relativeError", dp.relativeError())
        .field("relativeErrorNonPrivate", reference.relativeError())
        .field("released", "item factors Y (user rows X_i stay with their users and are not covered)")
        .build();
    PrintWriter out = cmd.getOut();
    if (json) {
      out.println(r.toJson());
    } else {
      LedgerReport.notCertifiedBecause(ledger).ifPresent(out::println);
      out.printf(Locale.ROOT, "DP-NMF %dx%d rank %d, batch %d, %d epochs, eta %s, o %s, clip %s, %s steps%n",
          rows, columns, rank, batchSize, epochs, learningRate, noiseVariance, clipNorm,
          rule.name().toLowerCase(Locale.ROOT));
      out.printf(Locale.ROOT, "relative error: DP-MBCD %.4f, non-private mini-batch BCD %.4f%n", dp.relativeError(),
          reference.relativeError());
      out.printf(Locale.ROOT, "item factors Y: epsilon %s (certified, %s)%n",
          r.epsilon().isEmpty() ? "n/a" : String.format(Locale.ROOT, "%.4g", r.epsilon().getAsDouble()),
          ledger.claimedThreatModel().description());
      out.println(LedgerReport.summary(ledger).lines().filter(l -> !l.startsWith("NOT CERTIFIED"))
          .collect(java.util.stream.Collectors.joining("\n")));
    }
    out.flush();
    return 0;
  }

  /**
   * The run's ledger, one row per epoch: the hidden-state accountant of Y (the paper's claim for curvature-scaled
   * steps) and the composition bound of every released Y step (certified for both step rules).
   */
  private PrivacyLedger ledger(DpNmfMechanism m) {
    PrivacyLedger ledger = DpMbcdAccounting.builder().delta(delta).build().ledger(m);
    for (int k = 1; k <= epochs; k++) {
      for (int j = 0; j < m.numBatchesPerEpoch(); j++) {
        ledger.tryStep();
      }
      ledger.closeEpoch(k);
    }
    return ledger;
  }

  private void validate(CommandLine cmd) {
    Checks.positive(cmd, "--batch-size", batchSize);
    Checks.positive(cmd, "--epochs", epochs);
    Checks.positive(cmd, "--rows", rows);
    Checks.positive(cmd, "--columns", columns);
    Checks.positive(cmd, "--rank", rank);
    Checks.positive(cmd, "--learning-rate", learningRate);
    if (userLearningRate != null) {
      Checks.positive(cmd, "--user-learning-rate", userLearningRate);
    }
    Checks.positive(cmd, "--noise-variance", noiseVariance);
    Checks.positive(cmd, "--clip-norm", clipNorm);
    Checks.delta(cmd, delta);
    Checks.positive(cmd, "--kappa", kappa);
    if (batchSize > rows) {
      throw new CommandLine.ParameterException(cmd, "--batch-size must be <= --rows = " + rows + ", was " + batchSize);
    }
    if (rank > Math.min(rows, columns)) {
      throw new CommandLine.ParameterException(cmd, "--rank must be <= min(rows, columns) = "
          + Math.min(rows, columns) + ", was " + rank);
    }
    // M (rows x columns) is held once on the heap and once by ND4J; the non-private reference and the private fit
    // each keep X (rows x rank), Y (rank x columns) and their working copies: all doubles.
    double cells = (double) rows * columns;
    double factors = (double) rows * rank + (double) rank * columns;
    Checks.fitsInMemory(cmd, "--rows " + rows + " x --columns " + columns + " (rank " + rank + ")",
        Math.max(cells, (double) rows * rank), 8 * (2 * cells + 4 * factors));
    Checks.totalSteps(cmd, "--epochs " + epochs, epochs, rows / batchSize);
  }

  private static INDArray uniform(Random rnd, int r, int c) {
    double[] a = new double[r * c];
    for (int i = 0; i < a.length; i++) {
      a[i] = rnd.nextDouble();
    }
    return Nd4j.createFromArray(a).reshape(r, c);
  }
}
