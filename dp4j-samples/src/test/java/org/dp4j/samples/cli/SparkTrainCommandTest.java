package org.dp4j.samples.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code dp4j train --spark local[2]}: the report has the single-machine report's form, and its ε and step count are
 * those {@code dp4j account sgm} gives for the same q, z and steps (the distributed run is the same mechanism).
 */
class SparkTrainCommandTest {
  private static final Path MNIST = Path.of(System.getProperty("user.dir")).resolve("../.cache/data/mnist")
      .normalize();
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void sparkReportHasTheSingleMachineFormAndTheAccountedEpsilon(@TempDir Path dir) throws Exception {
    Assumptions.assumeTrue(Files.isDirectory(MNIST), "MNIST not fetched (scripts/fetch-data.sh)");
    String[] common = {"train", "--noise-multiplier", "1.0", "--epochs", "1", "--batch-size", "100",
        "--train-size", "1000", "--data-dir", MNIST.toString()};
    JsonNode spark = train(dir.resolve("spark.json"), common, "--spark", "local[2]");
    JsonNode local = train(dir.resolve("local.json"), common);

    assertThat(fields(spark)).isEqualTo(fields(local));
    assertThat(spark.get("steps").asLong()).isEqualTo(10);   // ceil(1000 / 100) steps in one epoch
    assertThat(spark.get("stopReason").asText()).isEqualTo("completed");
    for (String accountant : new String[] {"pld", "rdp"}) {
      CliRun account = CliRun.of("account", "sgm", "--sampling-rate", "0.1", "--steps", "10",
          "--noise-multiplier", "1.0", "--delta", "1e-5", "--accountant", accountant, "--json");
      assertThat(account.status()).as(account.err()).isZero();
      double expected = JSON.readTree(account.out()).get("epsilon").asDouble();
      double reported = spark.get("epsilonByAccountant").get("sampled-gaussian-" + accountant
          + " (all iterates released)").asDouble();
      assertThat(reported).as(accountant).isCloseTo(expected, within(1e-9 * expected));
    }
    assertThat(spark.get("epsilon").asDouble()).isEqualTo(local.get("epsilon").asDouble());
  }

  @Test
  void theRelaunchedJvmGetsSparksOptionsAndSparkSubmitsJvmIsNotRelaunched() {
    List<String> cmd = MemoryCaps.relaunchCommand(new String[] {"train", "--spark", "local[2]"}, List.of(),
        java.util.Map.of(), "java", "dp4j.jar").orElseThrow();
    // Later JVM options win: Spark's heap and JavaCPP caps come after the defaults; the Java 17 opens are there.
    assertThat(cmd.lastIndexOf("-Xmx3g")).isGreaterThan(cmd.indexOf(MemoryCaps.HEAP));
    assertThat(cmd.indexOf("-D" + MemoryCaps.MAX_PHYSICAL_BYTES + "=6g"))
        .isGreaterThan(cmd.indexOf("-D" + MemoryCaps.MAX_PHYSICAL_BYTES + "=" + MemoryCaps.MAX_PHYSICAL_BYTES_DEFAULT));
    assertThat(cmd).contains("--add-opens=java.base/sun.nio.ch=ALL-UNNAMED");
    assertThat(MemoryCaps.relaunchCommand(new String[] {"train", "--spark", "submit"}, List.of(), java.util.Map.of(),
        "java", "dp4j.jar")).isEmpty();
  }

  @Test
  void refusesSparkForWhatItDoesNotRun() {
    CliRun.of("train", "--algorithm", "dp-mbcd", "--noise-variance", "0.1", "--spark", "local[2]")
        .assertRefusedNaming("--spark runs DP-SGD");
    CliRun.of("train", "--model", "softmax", "--noise-multiplier", "1", "--spark", "local[2]")
        .assertRefusedNaming("--spark runs DP-SGD");
  }

  private static JsonNode train(Path report, String[] common, String... extra) throws Exception {
    List<String> args = new ArrayList<>(List.of(common));
    args.addAll(List.of(extra));
    args.addAll(List.of("--report", report.toString()));
    CliRun r = CliRun.of(args.toArray(String[]::new));
    assertThat(r.status()).as(r.err()).isZero();
    return JSON.readTree(report.toFile());
  }

  private static List<String> fields(JsonNode node) {
    List<String> names = new ArrayList<>();
    node.fieldNames().forEachRemaining(names::add);
    return names;
  }
}
