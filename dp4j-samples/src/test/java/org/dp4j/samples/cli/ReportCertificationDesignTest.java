package org.dp4j.samples.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.dp4j.data.MnistVariant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Design rule of issue 21: a report's {@code epsilon} is always a guarantee. Every command's report is produced on a
 * tiny run (certified and uncertified variants) and every JSON object in it that says {@code "certified": false}
 * must have no {@code epsilon}; every top-level report carries {@code certified}; an uncertified text report says so
 * on its first line. A source scan keeps new report code from writing an {@code "epsilon"} key outside the reviewed
 * builders.
 */
class ReportCertificationDesignTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path tmp;

  /** Checks every object of the tree; returns how many objects carried "certified". */
  private static int assertEpsilonOnlyIfCertified(JsonNode node, String where) {
    int seen = 0;
    if (node.isObject()) {
      JsonNode epsilon = node.get("epsilon");
      if (epsilon != null && !epsilon.isNull() && !where.endsWith(".budget")) {
        // an epsilon (other than a budget's limit) is only ever written next to "certified": true
        assertThat(node.has("certified") && node.get("certified").asBoolean())
            .as("%s: epsilon without certified = true: %s", where, node).isTrue();
      }
      if (node.has("certified")) {
        seen++;
        boolean certified = node.get("certified").asBoolean();
        JsonNode eps = node.get("epsilon");
        if (!certified) {
          assertThat(eps == null || eps.isNull()).as("%s: epsilon must be null when certified is false: %s", where,
              node).isTrue();
          assertThat(node.path("notCertifiedBecause").asText()).as("%s: a reason", where).isNotBlank();
        } else if (!node.has("rows")) {
          // a table (rows of runs) certifies every row; a single report names its certified epsilon
          assertThat(eps != null && eps.isNumber()).as("%s: certified without an epsilon: %s", where, node).isTrue();
        }
      }
      for (Map.Entry<String, JsonNode> f : (Iterable<Map.Entry<String, JsonNode>>) node::fields) {
        seen += assertEpsilonOnlyIfCertified(f.getValue(), where + "." + f.getKey());
      }
    } else if (node.isArray()) {
      for (int i = 0; i < node.size(); i++) {
        seen += assertEpsilonOnlyIfCertified(node.get(i), where + "[" + i + "]");
      }
    }
    return seen;
  }

  private static JsonNode checked(String name, JsonNode report, boolean expectCertified) {
    assertThat(report.has("certified")).as("%s: a report must say whether epsilon is certified", name).isTrue();
    assertThat(report.get("certified").asBoolean()).as(name).isEqualTo(expectCertified);
    assertEpsilonOnlyIfCertified(report, name);
    return report;
  }

  private static JsonNode stdoutJson(String... argv) throws IOException {
    CliRun r = CliRun.of(argv);
    assertThat(r.status()).as(r.err()).isZero();
    return JSON.readTree(r.out());
  }

  @Test
  void accountCommands() throws Exception {
    String dpMbcd = "account dp-mbcd --dataset-size 4 --batch-size 2 --learning-rate 0.1 --lipschitz-f 0.9 "
        + "--lipschitz-t 1 --sensitivity 1 --delta 1e-5 --epochs 2 --noise-variance 0.01";
    checked("account dp-mbcd safe", stdoutJson((dpMbcd + " --json").split(" ")), true);
    JsonNode paper = checked("account dp-mbcd paper", stdoutJson((dpMbcd + " --mode paper --json").split(" ")), false);
    assertThat(paper.get("epsilonPaperClaim").asDouble()).isPositive();
    CliRun text = CliRun.of((dpMbcd + " --mode paper").split(" "));
    assertThat(text.out().lines().findFirst().orElseThrow()).startsWith("NOT CERTIFIED: ");
    String kong = "account kong-ribero -k 10 -b 2 -T 23 --lambda 0.1 -C 1 --sigma 0.5 -m 1 -M 1 --delta 1e-5";
    checked("account kong-ribero", stdoutJson((kong + " --json").split(" ")), true);
    checked("account kong-ribero printed", stdoutJson((kong + " --lipschitz-variant printed --json").split(" ")),
        false);
    checked("account sgm", stdoutJson("account", "sgm", "--sampling-rate", "0.01", "--steps", "100",
        "--noise-multiplier", "1.1", "--delta", "1e-5", "--json"), true);
    checked("calibrate sgm", stdoutJson("calibrate", "sgm", "--target-epsilon", "3", "--sampling-rate", "0.01",
        "--steps", "100", "--delta", "1e-5", "--json"), true);
  }

  @Test
  void nmf() throws Exception {
    String[] base = {"nmf", "--rows", "40", "--columns", "12", "--rank", "3", "--batch-size", "10", "--epochs", "2",
        "--noise-variance", "0.01", "--learning-rate", "0.1", "--clip-norm", "0.5", "--json"};
    // curvature-scaled steps: the hidden-state number is the paper's claim; the composition bound is certified
    JsonNode curvature = checked("nmf curvature", stdoutJson(base), true);
    assertThat(curvature.get("epsilon").asDouble()).isEqualTo(curvature.get("epsilonComposition").asDouble());
    assertThat(curvature.get("epsilonPaperClaim").asDouble()).isLessThan(curvature.get("epsilon").asDouble());
    List<String> fixed = new ArrayList<>(List.of(base));
    fixed.addAll(List.of("--step-rule", "fixed"));
    checked("nmf fixed", stdoutJson(fixed.toArray(String[]::new)), true);
  }

  @Test
  void madelonExperiment() throws Exception {
    String[] tiny = {"experiment", "madelon", "--samples", "200", "--batch-size", "32", "--hidden", "8", "--epochs",
        "1", "--repeats", "1", "--insecure-seed", "5", "--json"};
    checked("madelon", stdoutJson(tiny), true);
    List<String> pp = new ArrayList<>(List.of(tiny));
    pp.add("--proximal-point");
    JsonNode j = checked("madelon proximal-point", stdoutJson(pp.toArray(String[]::new)), false);
    assertThat(j.get("rows").get(0).get("epsilonPaperClaim").asDouble()).isPositive();
    pp.remove("--json");
    assertThat(CliRun.of(pp.toArray(String[]::new)).out()).startsWith("NOT CERTIFIED: ");
  }

  @Test
  void trainDpMbcdThePapersMnistSettingHasNoCertifiedEpsilon() throws Exception {
    Path data = mnist();
    assumeTrue(data != null, "no .cache/data/mnist: run scripts/fetch-data.sh");
    String[] common = {"train", "--algorithm", "dp-mbcd", "--dataset", "mnist", "--data-dir", data.toString(),
        "--train-size", "4", "--batch-size", "2", "--epochs", "2", "--learning-rate", "0.1", "--noise-variance",
        "0.01", "--clip-norm", "0.5", "--hidden", "4"};
    // the issue's case: proximal-point steps on batch sums in paper mode
    Path report = tmp.resolve("pp.json");
    Path csv = tmp.resolve("pp.csv");
    List<String> pp = new ArrayList<>(List.of(common));
    pp.addAll(List.of("--mode", "paper", "--proximal-point", "--batch-reduction", "sum", "--report",
        report.toString(), "--csv", csv.toString()));
    CliRun r = CliRun.of(pp.toArray(String[]::new));
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(r.out().lines().findFirst().orElseThrow()).startsWith("NOT CERTIFIED: ");
    JsonNode j = checked("train dp-mbcd proximal-point", JSON.readTree(report.toFile()), false);
    assertThat(j.get("epsilonPaperClaim").asDouble()).isPositive();
    assertThat(j.get("epsilonComposition").isNull()).isTrue();
    assertThat(j.get("epsilonLastIterate").isNull()).isTrue();
    assertThat(j.get("notCertifiedBecause").asText()).contains("paper's claim");
    assertThat(Files.readAllLines(csv).get(0)).contains("epsilon_last_iterate,epsilon_paper_claim");
    // a budget on it is refused unless the user explicitly stops on the paper's claim, which the report then states
    List<String> budget = new ArrayList<>(pp);
    budget.addAll(List.of("--budget", "1000"));
    CliRun refused = CliRun.of(budget.toArray(String[]::new));
    assertThat(refused.status()).isEqualTo(2);
    assertThat(refused.err()).contains("budgetFromPaperClaim");
    budget.add("--budget-from-paper-claim");
    CliRun fromClaim = CliRun.of(budget.toArray(String[]::new));
    assertThat(fromClaim.status()).as(fromClaim.err()).isZero();
    JsonNode b = checked("train dp-mbcd budget from paper claim", JSON.readTree(report.toFile()), false);
    assertThat(b.get("budgetFromPaperClaim").asBoolean()).isTrue();
    assertThat(b.get("budget").get("stopsOn").asText()).contains("NOT a certified bound");
    // the gradient step in paper mode: certified (SAFE hidden state and composition), the paper's claim aside
    Path safe = tmp.resolve("g.json");
    List<String> g = new ArrayList<>(List.of(common));
    g.addAll(List.of("--mode", "paper", "--report", safe.toString()));
    assertThat(CliRun.of(g.toArray(String[]::new)).status()).isZero();
    JsonNode gj = checked("train dp-mbcd paper gradient", JSON.readTree(safe.toFile()), true);
    assertThat(gj.get("epsilon").asDouble()).isGreaterThan(gj.get("epsilonPaperClaim").asDouble());
  }

  /**
   * Source scan: only the reviewed report builders write a key named exactly "epsilon"; any other report code must
   * go through them (RunReport, LedgerReport) or be reviewed and added here.
   */
  @Test
  void onlyReviewedBuildersWriteAnEpsilonKey() throws IOException {
    Path root = Path.of("").toAbsolutePath();
    while (root != null && !Files.exists(root.resolve("dp4j-listeners"))) {
      root = root.getParent();
    }
    assumeTrue(root != null, "run from inside the repository");
    Pattern put = Pattern.compile("put\\(\\s*\"epsilon\"");
    List<String> writers = new ArrayList<>();
    for (String module : List.of("dp4j-core", "dp4j-listeners", "dp4j-samples")) {
      try (Stream<Path> files = Files.walk(root.resolve(module).resolve("src/main/java"))) {
        for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
          Matcher m = put.matcher(Files.readString(f));
          while (m.find()) {
            writers.add(f.getFileName().toString());
          }
        }
      }
    }
    // RunReport: the certified ε of every command's report; LedgerReport: the certified ε and the budget's ε;
    // MadelonCommand's rows and DpMbcdTrainRun's per-epoch rows: the certified ε next to "certified";
    // PrivateFitExample: the privacy listener's ε (its ledger's bound for the run, with δ, neighbours and threat
    // model), the issue's JSON contract; FrontierCommand's search and frontier rows: calibrated certified ε next to
    // "certified": true
    assertThat(writers).containsOnly("RunReport.java", "LedgerReport.java", "MadelonCommand.java",
        "DpMbcdTrainRun.java", "PrivateFitExample.java", "FrontierCommand.java");
  }

  private static Path mnist() {
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null) {
      if (Files.isDirectory(MnistVariant.MNIST.cacheDir(dir))) {
        return MnistVariant.MNIST.cacheDir(dir);
      }
      dir = dir.getParent();
    }
    return null;
  }
}
