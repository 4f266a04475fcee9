package org.dp4j.samples.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.dp4j.InvalidSettingException;
import org.dp4j.accounting.NeighbouringRelation;
import org.dp4j.accounting.ThreatModel;
import org.dp4j.data.LabelledVectors;
import org.dp4j.data.SyntheticClassification;
import org.dp4j.listeners.RunReport;
import org.dp4j.mbcd.BatchReduction;
import org.dp4j.mbcd.BlockStepRule;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code dp4j experiment madelon}: constant (C) vs linearly decreasing (D) noise for DP-MBCD on the paper's
 * "Madelon" setting (Chen &amp; Liu App. D.2, Table 4; docs/accountants.md#dp-mbcd), see {@link MadelonExperiment}.
 */
@Command(name = "madelon", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Constant vs linearly decreasing DP-MBCD noise on synthetic make_classification-style data "
        + "(6000 x 20, 5 classes, 80/20 split; Chen & Liu App. D.2, an analogue of Table 4): lifted ReLU MLP "
        + "20-200-200-200-200-5 with MSE on one-hot targets, b = 960 (N = 5), rho = 1, eta = 0.05; schedule C: "
        + "o = 0.005; schedule D: o(k) = 0.002 + 0.00025*(K-1-k) (defaults; every value is a flag).",
        "Prints, per K and schedule, test accuracy (mean +- sample std over the repetitions) and the privacy of "
            + "releasing the final blocks: RDP at alpha = 2 summed over the 5 blocks (the paper's 'privacy loss') and "
            + "epsilon at delta, in paper mode (the paper's constants) and safe mode (certified constants).",
        "Example: dp4j experiment madelon --json"})
final class MadelonCommand implements Callable<Integer> {
  /** Features and classes of {@link SyntheticClassification#madelonLike()}. */
  private static final int FEATURES = 20;
  private static final int CLASSES = 5;

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Option(names = "--epochs", split = ",", defaultValue = "10,20,30,40", paramLabel = "K,...",
      description = "Epoch counts K (default: 10,20,30,40).")
  int[] epochs;

  @Option(names = "--repeats", defaultValue = "3", paramLabel = "R", description = "Runs per row (default: 3).")
  int repeats;

  @Option(names = "--samples", defaultValue = "6000", paramLabel = "N",
      description = "Examples generated; the first 80%% train, the rest test (default: 6000).")
  int samples;

  @Option(names = "--batch-size", defaultValue = "960", paramLabel = "B", description = "b (default: 960, N = 5).")
  int batchSize;

  @Option(names = "--hidden", split = ",", defaultValue = "200,200,200,200", paramLabel = "W,...",
      description = "Hidden widths (default: 200,200,200,200).")
  int[] hidden;

  @Option(names = "--learning-rate", defaultValue = "0.05", paramLabel = "ETA", description = "eta (default: 0.05).")
  double learningRate;

  @Option(names = "--rho", defaultValue = "1.0", paramLabel = "RHO",
      description = "Norm bound of every x_d, inputs included (default: 1).")
  double rho;

  @Option(names = "--clip-norm", defaultValue = "0.5", paramLabel = "C",
      description = "Per-example block-gradient clip norm; safe S_g = 2C (default: 0.5, so S_g = 1 = the paper's).")
  double clipNorm;

  @Option(names = "--constant-noise", defaultValue = "0.005", paramLabel = "O",
      description = "Schedule C's o (default: 0.005).")
  double constantNoise;

  @Option(names = "--final-noise", defaultValue = "0.002", paramLabel = "O",
      description = "Schedule D's o in the last epoch (default: 0.002).")
  double finalNoise;

  @Option(names = "--noise-decrement", defaultValue = "0.00025", paramLabel = "D",
      description = "Schedule D's decrease of o per epoch (default: 0.00025).")
  double decrement;

  @Option(names = "--proximal-point",
      description = "The paper's MNIST variant (exact proximal-point block steps); accounted in paper mode only.")
  boolean proximalPoint;

  @Option(names = "--batch-reduction", defaultValue = "mean", paramLabel = "mean|sum",
      description = "Block steps on batch means (default) or on batch sums as the paper's Eq. 15-17 print them "
          + "(docs/errata.md#dp-mbcd-batch-mean; safe accounting uses the equivalent mean parameters, paper mode the paper's).")
  BatchReduction batchReduction;

  @Option(names = "--delta", defaultValue = "1e-5", paramLabel = "D", description = "Delta (default: 1e-5).")
  double delta;

  @Option(names = "--data-seed", defaultValue = "" + SyntheticClassification.MADELON_SEED, paramLabel = "S",
      description = "Seed of the synthetic data (default: 2003).")
  long dataSeed;

  @Option(names = "--init-seed", defaultValue = "1", paramLabel = "S",
      description = "Initial weights of run r from S + r (default: 1).")
  long initSeed;

  @Option(names = "--insecure-seed", paramLabel = "S",
      description = "Seeded noise and partitions, for reproducible tests only: NOT private (default: secure).")
  Long insecureSeed;

  @Option(names = "--json", description = "Print one JSON object.")
  boolean json;

  @Override
  public Integer call() {
    CommandLine cmd = spec.commandLine();
    Checks.positive(cmd, "--samples", samples);
    if (batchSize >= 1 && hidden.length > 0 && Arrays.stream(hidden).allMatch(w -> w >= 1)) {
      // The data (FEATURES doubles per example) and the auxiliary store (2 x (sum of widths + CLASSES) floats per
      // training example) come with the network.
      Checks.mlpFits(cmd, FEATURES, hidden, CLASSES, samples,
          2.0 * (Arrays.stream(hidden).asLongStream().sum() + CLASSES) + 2.0 * FEATURES);
      for (int k : epochs) {
        Checks.totalSteps(cmd, "--epochs " + k, k, Math.max(1, samples * 4L / 5 / batchSize));
      }
    }
    Checks.delta(cmd, delta);
    MadelonExperiment experiment;
    try {
      LabelledVectors all = SyntheticClassification.madelonLike().samples(samples).seed(dataSeed).build().generate();
      int split = samples * 4 / 5;
      MadelonExperiment.Builder b = MadelonExperiment.builder(all.rows(0, split), all.rows(split, samples))
          .epochs(epochs).repeats(repeats).batchSize(batchSize).hidden(hidden).learningRate(learningRate).rho(rho)
          .clipNorm(clipNorm).constantNoise(constantNoise).decreasingNoise(finalNoise, decrement).delta(delta)
          .stepRule(proximalPoint ? BlockStepRule.PROXIMAL_POINT : BlockStepRule.GRADIENT).initSeed(initSeed)
          .batchReduction(batchReduction);
      if (insecureSeed != null) {
        b.insecureSeed(insecureSeed);
      }
      experiment = b.build();
    } catch (InvalidSettingException e) {
      throw new CommandLine.ParameterException(cmd, e.getMessage());
    }
    PrintWriter err = cmd.getErr();
    if (insecureSeed != null) {
      err.println("dp4j: warning: --insecure-seed: noise and partitions are reproducible, so NOT private");
    }
    List<MadelonExperiment.Row> rows = experiment.run(line -> {
      err.println(line);
      err.flush();
    });
    PrintWriter out = cmd.getOut();
    if (json) {
      out.println(report(experiment, rows).toJson());
    } else {
      out.print(table(experiment, rows));
    }
    out.flush();
    return 0;
  }

  private String setting(MadelonExperiment e) {
    return String.format(Locale.ROOT, "DP-MBCD on synthetic 'Madelon' (%d examples, 80/20 split, data seed %d), MLP %s "
            + "(MSE), b = %d, eta = %s, rho = %s, C = %s, %s block steps on batch %ss, %d run(s) per row%s", samples,
        dataSeed,
        Arrays.toString(e.widths()).replace(", ", "-").replace("[", "").replace("]", ""), batchSize, learningRate,
        rho, clipNorm, proximalPoint ? "proximal-point" : "clipped-gradient", batchReduction.name().toLowerCase(Locale.ROOT),
        repeats,
        insecureSeed != null ? " (INSECURE seeded noise)" : "");
  }

  String table(MadelonExperiment e, List<MadelonExperiment.Row> rows) {
    StringBuilder s = new StringBuilder(setting(e)).append('\n');
    if (rows.stream().anyMatch(r -> !r.privacy().certified())) {
      s.insert(0, "NOT CERTIFIED: no certified epsilon for some rows (the proximal-point step has no safe or "
          + "composition bound); their only number is the paper's claim\n");
    }
    s.append(String.format(Locale.ROOT, "| K | noise | test accuracy | eps (certified) | eps safe hidden state | "
        + "eps composition | eps paper's claim (NOT certified) | RDP(2) safe | RDP(2) paper's claim |%n"));
    s.append("|---|---|---|---|---|---|---|---|---|\n");
    for (MadelonExperiment.Row r : rows) {
      MadelonExperiment.Privacy p = r.privacy();
      s.append(String.format(Locale.ROOT, "| %d | %s | %.4f ± %.4f | %s | %s | %s | %s | %s | %s |%n", r.epochs(),
          r.schedule().name(), r.mean(), r.std(), format(p.epsilon()), format(p.epsilonSafe()),
          format(p.epsilonComposition()), format(p.epsilonPaperClaim()), format(p.rdp2Safe()),
          format(p.rdp2PaperClaim())));
    }
    for (MadelonExperiment.Schedule sc : e.schedules()) {
      s.append(sc.name()).append(": ").append(sc.description()).append('\n');
    }
    s.append(String.format(Locale.ROOT, "RDP at alpha = 2 summed over the %d released blocks; epsilon at delta = %s "
        + "(improved conversion); %s, replace one record; eps (certified) = min(safe hidden state, composition of every "
        + "block step); paper's claim: the paper's L_F = |1 - eta*rho^2|, S_g = rho^2; "
        + "safe mode: S_g = 2C, L_F = max(|1 - eta*mu|, |1 - eta*(rho^2 + 1 + mu)|); hidden auxiliaries assumed not to leak (docs/threat-models.md#dp-mbcd-auxiliaries)%n",
        e.widths().length - 1, delta, ThreatModel.LAST_ITERATE_ONLY.description()));
    if (proximalPoint) {
      s.append("proximal-point block steps: a data-dependent map on unclipped updates, so no safe epsilon; the paper-mode "
          + "epsilon is the paper's claim, not a certified bound (docs/errata.md#dp-mbcd-sensitivity; docs/threat-models.md#dp-mbcd-auxiliaries)\n");
    }
    return s.toString();
  }

  private static String format(Double v) {
    return v == null ? "n/a" : String.format(Locale.ROOT, "%.4g", v);
  }

  private static final String PROXIMAL_POINT_NOT_CERTIFIED = "the proximal-point block step has no certified bound "
      + "(no safe or composition epsilon); epsilonPaperClaim reproduces the paper's accounting, not a guarantee";

  private RunReport report(MadelonExperiment e, List<MadelonExperiment.Row> rows) {
    boolean certified = rows.stream().allMatch(row -> row.privacy().certified());
    RunReport.Builder r = RunReport.builder("dp4j experiment madelon").algorithm("dp-mbcd")
        .dataset("synthetic madelon-like").relation(NeighbouringRelation.REPLACE_ONE)
        .table(certified, certified ? null : PROXIMAL_POINT_NOT_CERTIFIED, delta, ThreatModel.LAST_ITERATE_ONLY)
        .field("experiment", "madelon").field("samples", samples).field("dataSeed", dataSeed)
        .field("widths", e.widths()).field("batchSize", batchSize).field("learningRate", learningRate)
        .field("rho", rho).field("clipNorm", clipNorm).field("blockStep", proximalPoint ? "proximal-point" : "gradient")
        .field("batchReduction", batchReduction.name().toLowerCase(Locale.ROOT)).field("repeats", repeats)
        .field("secureNoise", insecureSeed == null);
    List<Map<String, Object>> list = new ArrayList<>();
    for (MadelonExperiment.Row row : rows) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("epochs", row.epochs());
      m.put("schedule", row.schedule().name());
      m.put("noise", row.schedule().description());
      m.put("accuracies", row.accuracies());
      m.put("accuracyMean", row.mean());
      m.put("accuracyStd", row.std());
      m.put("certified", row.privacy().certified());
      m.put("epsilon", row.privacy().epsilon());
      m.put("notCertifiedBecause", row.privacy().certified() ? null : PROXIMAL_POINT_NOT_CERTIFIED);
      m.put("epsilonSafe", row.privacy().epsilonSafe());
      m.put("epsilonComposition", row.privacy().epsilonComposition());
      m.put("epsilonPaperClaim", row.privacy().epsilonPaperClaim());
      m.put("rdp2Safe", row.privacy().rdp2Safe());
      m.put("rdp2PaperClaim", row.privacy().rdp2PaperClaim());
      list.add(m);
    }
    return r.field("rows", list).build();
  }
}
