package org.dp4j.samples.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.dp4j.accounting.NeighbouringRelation.ADD_REMOVE;
import static org.dp4j.accounting.NeighbouringRelation.REPLACE_ONE;
import static org.dp4j.accounting.ThreatModel.ALL_ITERATES_RELEASED;
import static org.dp4j.accounting.ThreatModel.LAST_ITERATE_ONLY;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.dp4j.accounting.NeighbouringRelation;
import org.dp4j.accounting.ThreatModel;
import org.dp4j.listeners.RunReport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 16: every command writes its JSON through {@link RunReport}, so each report carries the common fields
 * (schema version 1) and names its neighbouring relation and threat model with the enums' descriptions. Each
 * command runs on a tiny input; the expected relation and threat model are what its accountant proves (SGM and the
 * audit: add/remove, all iterates; DP-MBCD, DP-NMF, Ye–Shokri softmax: replace-one).
 */
class RunReportSchemaTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Path MNIST = Path.of(System.getProperty("user.dir")).resolve("../.cache/data/mnist")
      .normalize();

  @TempDir
  Path tmp;

  private static JsonNode assertSchema(String name, JsonNode j, String command, NeighbouringRelation relation,
      ThreatModel threatModel) {
    for (String field : RunReport.COMMON_FIELDS) {
      assertThat(j.has(field)).as("%s: common field %s in %s", name, field, j.fieldNames()).isTrue();
    }
    assertThat(j.get("schemaVersion").asInt()).as(name).isEqualTo(1);
    assertThat(j.get("command").asText()).as(name).isEqualTo(command);
    assertThat(j.get("neighbouringRelation").asText()).as(name).isEqualTo(relation.description());
    assertThat(j.get("threatModel").asText()).as(name).isEqualTo(threatModel.description());
    assertThat(j.get("delta").asDouble()).as(name).isEqualTo(1e-5);
    assertThat(j.get("assumptions").isArray()).as(name).isTrue();
    assertThat(j.get("perEpoch").isArray()).as(name).isTrue();
    boolean certified = j.get("certified").asBoolean();
    assertThat(j.get("notCertifiedBecause").isNull()).as(name).isEqualTo(certified);
    if (certified && !j.path("rows").isArray()) {   // a table of runs (madelon) has no single epsilon
      assertThat(j.get("epsilon").asDouble()).as(name).isPositive();
      assertThat(j.get("epsilonAccountant").asText()).as(name).isNotBlank();
    } else {
      assertThat(j.get("epsilon").isNull()).as(name).isTrue();
    }
    return j;
  }

  private static JsonNode stdout(String... argv) throws Exception {
    CliRun r = CliRun.of(argv);
    assertThat(r.status()).as(r.err()).isZero();
    return JSON.readTree(r.out());
  }

  private JsonNode report(String... argv) throws Exception {
    Path file = tmp.resolve("report-" + Math.abs(Arrays.hashCode(argv)) + ".json");
    String[] withReport = Arrays.copyOf(argv, argv.length + 2);
    withReport[argv.length] = "--report";
    withReport[argv.length + 1] = file.toString();
    CliRun r = CliRun.of(withReport);
    assertThat(r.status()).as(r.err()).isZero();
    return JSON.readTree(file.toFile());
  }

  @Test
  void accountingCommands() throws Exception {
    JsonNode sgm = assertSchema("account sgm", stdout("account", "sgm", "--sampling-rate", "0.01", "--steps", "100",
        "--noise-multiplier", "1.1", "--delta", "1e-5", "--json"), "dp4j account sgm", ADD_REMOVE,
        ALL_ITERATES_RELEASED);
    assertThat(sgm.get("epsilonAccountant").asText()).isEqualTo(sgm.get("accountant").asText());
    assertSchema("calibrate sgm", stdout("calibrate", "sgm", "--target-epsilon", "3", "--sampling-rate", "0.01",
        "--steps", "100", "--delta", "1e-5", "--json"), "dp4j calibrate sgm", ADD_REMOVE, ALL_ITERATES_RELEASED);
    String dpMbcd = "account dp-mbcd --dataset-size 4 --batch-size 2 --learning-rate 0.1 --lipschitz-f 0.9 "
        + "--lipschitz-t 1 --sensitivity 1 --delta 1e-5 --epochs 2 --noise-variance 0.01 --json";
    JsonNode safe = assertSchema("account dp-mbcd", stdout(dpMbcd.split(" ")), "dp4j account dp-mbcd", REPLACE_ONE,
        LAST_ITERATE_ONLY);
    assertThat(safe.get("perEpoch")).hasSize(2);
    JsonNode paper = assertSchema("account dp-mbcd paper", stdout((dpMbcd + " --mode paper").split(" ")),
        "dp4j account dp-mbcd", REPLACE_ONE, LAST_ITERATE_ONLY);
    assertThat(paper.get("certified").asBoolean()).isFalse();
    assertSchema("account kong-ribero", stdout(("account kong-ribero -k 10 -b 2 -T 23 --lambda 0.1 -C 1 --sigma 0.5 "
        + "-m 1 -M 1 --delta 1e-5 --json").split(" ")), "dp4j account kong-ribero", REPLACE_ONE, LAST_ITERATE_ONLY);
  }

  @Test
  void nmfAndMadelon() throws Exception {
    JsonNode nmf = assertSchema("nmf", stdout("nmf", "--rows", "40", "--columns", "12", "--rank", "3", "--batch-size",
        "10", "--epochs", "2", "--noise-variance", "0.01", "--learning-rate", "0.1", "--clip-norm", "0.5", "--json"),
        "dp4j nmf", REPLACE_ONE, LAST_ITERATE_ONLY);
    assertThat(nmf.get("perEpoch")).hasSize(2);
    assertThat(nmf.get("perEpoch").get(1).get("epsilonComposition").asDouble())
        .isEqualTo(nmf.get("epsilonComposition").asDouble());
    List<String> madelon = List.of("experiment", "madelon", "--samples", "200", "--batch-size", "32", "--hidden",
        "8", "--epochs", "1", "--repeats", "1", "--insecure-seed", "5", "--delta", "1e-5", "--json");
    JsonNode table = assertSchema("madelon", stdout(madelon.toArray(String[]::new)), "dp4j experiment madelon",
        REPLACE_ONE, LAST_ITERATE_ONLY);
    assertThat(table.get("rows").get(0).get("epsilon").asDouble()).isPositive();
  }

  @Test
  void trainingAndAuditOnMnist() throws Exception {
    assumeTrue(Files.isDirectory(MNIST), "MNIST not fetched (scripts/fetch-data.sh)");
    String data = MNIST.toString();
    JsonNode sgd = assertSchema("train dp-sgd", report("train", "--noise-multiplier", "1.0", "--epochs", "2",
        "--batch-size", "100", "--train-size", "1000", "--data-dir", data), "dp4j train", ADD_REMOVE,
        ALL_ITERATES_RELEASED);
    assertThat(sgd.get("algorithm").asText()).isEqualTo("dp-sgd");
    assertThat(sgd.get("dataset").asText()).isEqualTo("mnist");
    assertThat(sgd.get("perEpoch")).hasSize(2);
    assertThat(sgd.get("perEpoch").get(1).get("testAccuracy").asDouble()).isEqualTo(sgd.get("testAccuracy")
        .asDouble());
    assertThat(sgd.get("perEpoch").get(1).get("epsilonComposition").asDouble()).isEqualTo(sgd.get("epsilon")
        .asDouble());
    JsonNode softmax = assertSchema("train softmax", report("train", "--model", "softmax", "--sampler",
        "shuffle-once", "--noise-multiplier", "3", "--epochs", "1", "--batch-size", "100", "--train-size", "300",
        "--data-dir", data), "dp4j train", REPLACE_ONE, ALL_ITERATES_RELEASED);
    assertThat(softmax.get("assumptions").size()).isPositive();
    assertSchema("train dp-mbcd", report("train", "--algorithm", "dp-mbcd", "--dataset", "mnist", "--data-dir", data,
        "--train-size", "4", "--batch-size", "2", "--epochs", "2", "--learning-rate", "0.1", "--noise-variance",
        "0.01", "--clip-norm", "0.5", "--hidden", "4"), "dp4j train", REPLACE_ONE, LAST_ITERATE_ONLY);
    JsonNode audit = assertSchema("audit", stdout("audit", "--noise-multiplier", "1", "--train-size", "600",
        "--batch-size", "60", "--epochs", "1", "--canaries", "20", "--data-dir", data, "--json"), "dp4j audit",
        ADD_REMOVE, ALL_ITERATES_RELEASED);
    assertThat(audit.get("epsilon").asDouble()).isEqualTo(audit.get("epsilonCertified").asDouble());
  }
}
