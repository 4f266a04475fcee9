package org.dp4j.samples.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.IntStream;
import org.dp4j.data.LabelledImages;
import org.dp4j.data.MnistSplit;
import org.dp4j.data.MnistVariant;
import org.dp4j.io.OutputPathException;
import org.dp4j.io.OutputPaths;
import org.dp4j.listeners.LedgerReport;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.dataset.DataSet;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code dp4j experiment frontier}: MNIST test accuracy against certified ε for DP-MBCD and DP-SGD on the same ReLU
 * MLP (see {@link FrontierExperiment}).
 */
@Command(name = "frontier", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Test accuracy vs certified epsilon on MNIST: DP-MBCD (Chen & Liu 2025; lifted ReLU MLP, MSE output, "
        + "noise temperature calibrated so that min(SAFE hidden state, composition) = epsilon; only the last iterate "
        + "released, replace one record) beside DP-SGD (same hidden widths, softmax output, PLD-calibrated noise "
        + "multiplier; every iterate released, add/remove one record), each at its own hyperparameters.",
        "With several --mbcd settings, each epsilon first runs every setting once on --search-train-size records and "
            + "picks the best by accuracy on the last --validation-size training records (a validation split; the "
            + "search is not counted in epsilon), then trains the chosen one on the first --train-size records.",
        "Prints a table (or --json); --chart writes the PNG, --report the JSON.",
        "Example: dp4j experiment frontier --epsilons 1,3,8 --seeds 3 --chart frontier.png --report frontier.json"})
final class FrontierCommand implements Callable<Integer> {
  /** The DP-MBCD settings searched by default: b:K:eta:C:rho:mu (see {@link FrontierSettings.Mbcd}). */
  static final String DEFAULT_MBCD = "1000:10:1:1:1:0,2500:10:1:1:1:0,2500:20:1:1:1:0,1000:10:1:0.1:1:0,"
      + "2500:20:1:0.1:1:0,1000:20:0.99:1:1:0.01,1000:10:0.4:1:2:0";
  /** DP-SGD: the MLP defaults of {@code dp4j train} (README "Accuracy"), 20 epochs to bound the cost. */
  static final String DEFAULT_SGD = "2048:20:0.2:2:0.9";

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Option(names = "--epsilons", split = ",", defaultValue = "1,3,8", paramLabel = "E,...",
      description = "Target certified epsilons (default: 1,3,8).")
  double[] epsilons;

  @Option(names = "--seeds", defaultValue = "3", paramLabel = "N",
      description = "Runs per algorithm and epsilon (initial weights from seeds 1..N; secure noise and batches).")
  int seeds;

  @Option(names = "--train-size", paramLabel = "N",
      description = "Train on the first N training images (default: all 60,000).")
  Integer trainSize;

  @Option(names = "--search-train-size", defaultValue = "10000", paramLabel = "N",
      description = "Training images of each search run, the first N of the 50,000 before the validation split "
          + "(default: 10000).")
  int searchTrainSize;

  @Option(names = "--test-size", paramLabel = "N",
      description = "Evaluate on the first N test images (default: all 10,000).")
  Integer testSize;

  @Option(names = "--validation-size", defaultValue = "" + FrontierExperiment.VALIDATION_SIZE, paramLabel = "N",
      description = "Search only: the last N training images are the validation split (default: 10000).")
  int validationSize;

  @Option(names = "--hidden", split = ",", defaultValue = "256,256", paramLabel = "W,...",
      description = "Hidden ReLU widths of both networks (default: 256,256).")
  int[] hidden;

  @Option(names = "--mbcd", paramLabel = "b:K:eta:C:rho:mu[,...]",
      description = "DP-MBCD settings to search (batch, epochs, step, clip norm, rho, L2 strong convexity mu); "
          + "eta*(rho^2+1+mu) <= 2 is required (certified L_F <= 1). Default: " + DEFAULT_MBCD + " (a comma-separated "
          + "list, or several --mbcd).")
  List<String> mbcd;

  @Option(names = "--sgd", defaultValue = DEFAULT_SGD, paramLabel = "b:K:C:lr:momentum",
      description = "DP-SGD settings: expected batch, epochs, clip norm, learning rate, Nesterov momentum (default: "
          + DEFAULT_SGD + ").")
  String sgd;

  @Option(names = "--delta", defaultValue = "1e-5", paramLabel = "D", description = "Delta (default: 1e-5).")
  double delta;

  @Option(names = "--data-dir", paramLabel = "DIR", description = "MNIST folder (default: .cache/data/mnist).")
  Path dataDir;

  @Option(names = "--search-only",
      description = "Run only the DP-MBCD search on the validation split (needs several --mbcd settings; no --chart).")
  boolean searchOnly;

  @Option(names = "--json", description = "Print one JSON object instead of the table.")
  boolean json;

  @Option(names = "--chart", paramLabel = "F.png", description = "Write the accuracy-vs-epsilon chart (PNG).")
  Path chart;

  @Option(names = "--report", paramLabel = "F.json", description = "Write the JSON report.")
  Path report;

  @Override
  public Integer call() {
    CommandLine cmd = spec.commandLine();
    List<FrontierSettings.Mbcd> candidates = new ArrayList<>();
    FrontierSettings.Sgd sgdSettings;
    try {
      for (String s : mbcd != null ? mbcd : List.of(DEFAULT_MBCD.split(","))) {
        for (String one : s.split(",")) {
          if (!one.isBlank()) {
            candidates.add(FrontierSettings.Mbcd.parse(one));
          }
        }
      }
      sgdSettings = FrontierSettings.Sgd.parse(sgd);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(cmd, "--mbcd/--sgd: " + e.getMessage());
    }
    validate(cmd, candidates, sgdSettings);
    Path dir = dataDir != null ? dataDir : MnistVariant.MNIST.cacheDir(Path.of("").toAbsolutePath());
    checkOutputs(cmd, dir);
    LabelledImages trainImages = Checks.mnist(cmd, dir, MnistSplit.TRAIN);
    LabelledImages testImages = Checks.mnist(cmd, dir, MnistSplit.TEST);
    int total = trainImages.size();
    int n = trainSize != null ? trainSize : total;
    int maxBatch = Math.max(sgdSettings.batchSize(), candidates.stream().mapToInt(FrontierSettings.Mbcd::batchSize)
        .max().orElse(1));
    if (n < maxBatch || n > total) {
      throw new CommandLine.ParameterException(cmd, "--train-size must be in [largest batch size " + maxBatch + ", "
          + total + "], was " + n);
    }
    boolean search = candidates.size() > 1;
    int searchable = total - validationSize;
    int largestMbcd = candidates.stream().mapToInt(FrontierSettings.Mbcd::batchSize).max().orElse(1);
    if (search && (searchTrainSize < largestMbcd || searchTrainSize > searchable)) {
      throw new CommandLine.ParameterException(cmd, "--search-train-size must be in [largest DP-MBCD batch size "
          + largestMbcd + ", " + searchable + "], was " + searchTrainSize);
    }
    int tests = testSize != null ? testSize : testImages.size();
    if (tests > testImages.size()) {
      throw new CommandLine.ParameterException(cmd, "--test-size must be in [1, " + testImages.size() + "], was "
          + tests);
    }
    int[] widths = widths();
    FrontierExperiment.Plan plan;
    try {
      plan = new FrontierExperiment.Plan(trainImages.toDataSet(range(0, n), DataType.FLOAT),
          testImages.toDataSet(range(0, tests), DataType.FLOAT),
          search ? trainImages.toDataSet(range(0, searchTrainSize), DataType.FLOAT) : null,
          search ? trainImages.toDataSet(range(searchable, total), DataType.FLOAT) : null,
          widths, epsilons, seeds, delta, candidates, sgdSettings, searchOnly);
      // refuse an epsilon no DP-MBCD temperature or DP-SGD noise reaches before any training
      for (double e : epsilons) {
        for (FrontierSettings.Mbcd c : candidates) {
          FrontierExperiment.checkReachable(c, n, widths, e, delta);
          if (search) {
            FrontierExperiment.checkReachable(c, searchTrainSize, widths, e, delta);
          }
        }
        FrontierExperiment.sgdSetup(sgdSettings, n, e, delta);
      }
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(cmd, e.getMessage());
    }
    PrintWriter err = cmd.getErr();
    FrontierExperiment.Result result = FrontierExperiment.run(plan, line -> {
      err.println(line);
      err.flush();
    });
    PrintWriter out = cmd.getOut();
    Map<String, Object> r = report(result, n, tests);
    out.print(json ? JsonLine.of(r) + System.lineSeparator() : table(result, n, tests));
    out.flush();
    RunOutputs outputs = new RunOutputs(err);
    outputs.write(report, () -> LedgerReport.writeJson(report, r));
    outputs.write(chart, () -> FrontierChart.writePng(chart, result.rows(), String.format(Locale.ROOT,
        "MNIST %s ReLU MLP, %d training images, delta = %s", architecture(), n, delta)));
    return outputs.exitCode();
  }

  private void validate(CommandLine cmd, List<FrontierSettings.Mbcd> candidates, FrontierSettings.Sgd sgdSettings) {
    if (epsilons.length == 0) {
      throw new CommandLine.ParameterException(cmd, "--epsilons needs at least one value");
    }
    for (double e : epsilons) {
      Checks.positive(cmd, "--epsilons", e);
    }
    Checks.positive(cmd, "--seeds", seeds);
    Checks.positive(cmd, "--search-train-size", searchTrainSize);
    Checks.positive(cmd, "--validation-size", validationSize);
    if (testSize != null) {
      Checks.positive(cmd, "--test-size", testSize);
    }
    if (trainSize != null) {
      Checks.positive(cmd, "--train-size", trainSize);
    }
    for (int w : hidden) {
      Checks.positive(cmd, "--hidden", w);
    }
    Checks.delta(cmd, delta);
    if (searchOnly && (candidates.size() < 2 || chart != null)) {
      throw new CommandLine.ParameterException(cmd, "--search-only needs at least two --mbcd settings and no --chart");
    }
    if (candidates.isEmpty()) {
      throw new CommandLine.ParameterException(cmd, "--mbcd needs at least one setting");
    }
    // the DP-MBCD auxiliary store: 2 x (sum of widths + 10) floats per training example
    Checks.mlpFits(cmd, 784, hidden, 10, trainSize != null ? trainSize : 60_000,
        2.0 * (Arrays.stream(hidden).asLongStream().sum() + 10));
    for (FrontierSettings.Mbcd c : candidates) {
      Checks.totalSteps(cmd, "--mbcd " + c.spec(), c.epochs(), Math.max(1, 60_000 / c.batchSize()));
    }
    Checks.totalSteps(cmd, "--sgd " + sgdSettings.spec(), sgdSettings.epochs(),
        Math.max(1, 60_000 / sgdSettings.batchSize()));
  }

  private void checkOutputs(CommandLine cmd, Path dir) {
    Map<String, Path> outputs = new LinkedHashMap<>();
    if (chart != null) {
      outputs.put("--chart", chart);
    }
    if (report != null) {
      outputs.put("--report", report);
    }
    try {
      OutputPaths.check(outputs, Map.of("--data-dir", dir));
    } catch (OutputPathException e) {
      throw new CommandLine.ParameterException(cmd, e.getMessage());
    }
  }

  private int[] widths() {
    return IntStream.concat(IntStream.concat(IntStream.of(784), Arrays.stream(hidden)), IntStream.of(10)).toArray();
  }

  private String architecture() {
    return Arrays.stream(widths()).mapToObj(Integer::toString).reduce((a, b) -> a + "-" + b).orElseThrow();
  }

  String table(FrontierExperiment.Result result, int n, int tests) {
    StringBuilder s = new StringBuilder(String.format(Locale.ROOT, "MNIST, ReLU MLP %s, %d training images, %d "
        + "run(s) per row (secure noise and batches), test accuracy on the first %d test images; delta = %s%n",
        architecture(), n, seeds, tests, delta));
    if (!result.search().isEmpty()) {
      s.append(String.format(Locale.ROOT, "DP-MBCD search (validation: the last %d training images; %d training "
          + "images per run; one run each; not counted in epsilon):%n", validationSize,
          searchTrainSize));
      s.append("| target eps | DP-MBCD setting | o | validation accuracy |\n|---|---|---|---|\n");
      for (FrontierExperiment.SearchRow r : result.search()) {
        s.append(String.format(Locale.ROOT, "| %s | %s | %.4g | %.4f |%n", r.targetEpsilon(), r.settings().describe(),
            r.noise(), r.validationAccuracy()));
      }
    }
    s.append("| target eps | algorithm | settings | noise | test accuracy (mean ± std) | eps certified | "
        + "eps hidden state (SAFE) | eps composition | threat model, neighbours |\n|---|---|---|---|---|---|---|---|---|\n");
    for (FrontierExperiment.Row r : result.rows()) {
      s.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %.4f ± %.4f | %.4g | %s | %.4g | %s, %s |%n",
          r.targetEpsilon(), r.algorithm(), r.settings(), r.noise(), r.mean(), r.std(), r.epsilon(),
          r.epsilonHiddenState() == null ? "n/a" : String.format(Locale.ROOT, "%.4g", r.epsilonHiddenState()),
          r.epsilonComposition(), r.threatModel(), r.relation()));
    }
    return s.toString();
  }

  private Map<String, Object> report(FrontierExperiment.Result result, int n, int tests) {
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("experiment", "frontier");
    r.put("dataset", "mnist");
    r.put("architecture", architecture());
    r.put("trainingRecords", n);
    r.put("testRecords", tests);
    r.put("seeds", seeds);
    r.put("secureNoise", true);
    r.put("delta", delta);
    r.put("certified", true);
    r.put("epsilons", epsilons);
    r.put("sgdSettings", sgd);
    List<Map<String, Object>> search = new ArrayList<>();
    for (FrontierExperiment.SearchRow s : result.search()) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("targetEpsilon", s.targetEpsilon());
      m.put("settings", s.settings().spec());
      m.put("noiseTemperature", s.noise());
      m.put("certified", true);   // calibrated to a certified bound: min(SAFE hidden state, composition)
      m.put("epsilon", s.epsilon());
      m.put("validationAccuracy", s.validationAccuracy());
      search.add(m);
    }
    r.put("search", search);
    r.put("searchNote", search.isEmpty() ? null : "one run per DP-MBCD setting on the first " + searchTrainSize
        + " training images, validation on the last " + validationSize
        + "; the search itself is not counted in epsilon");
    List<Map<String, Object>> rows = new ArrayList<>();
    for (FrontierExperiment.Row row : result.rows()) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("algorithm", row.algorithm());
      m.put("targetEpsilon", row.targetEpsilon());
      m.put("settings", row.settings());
      m.put("noise", row.noise());
      m.put("accuracies", row.accuracies());
      m.put("accuracyMean", row.mean());
      m.put("accuracyStd", row.std());
      m.put("certified", true);   // the trainer's own ledger: its best certified bound, checked against the target
      m.put("epsilon", row.epsilon());
      m.put("epsilonHiddenState", row.epsilonHiddenState());
      m.put("epsilonComposition", row.epsilonComposition());
      m.put("threatModel", row.threatModel());
      m.put("neighbouringRelation", row.relation());
      rows.add(m);
    }
    r.put("rows", rows);
    return r;
  }

  private static int[] range(int from, int to) {
    return IntStream.range(from, to).toArray();
  }
}
