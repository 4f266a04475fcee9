package org.dp4j.samples.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TrainCommandTest {
  private static final Path MNIST = Path.of(System.getProperty("user.dir")).resolve("../.cache/data/mnist")
      .normalize();

  @Test
  void trainsOnAnMnistSliceAndWritesEveryReport(@TempDir Path dir) throws Exception {
    Assumptions.assumeTrue(Files.isDirectory(MNIST), "MNIST not fetched (scripts/fetch-data.sh)");
    Path report = dir.resolve("report.json");
    CliRun r = CliRun.of("train", "--dataset", "mnist", "--model", "mlp", "--epsilon", "4", "--delta", "1e-5",
        "--epochs", "2", "--batch-size", "100", "--clip-norm", "1", "--learning-rate", "0.1", "--momentum", "0.9",
        "--train-size", "3000", "--data-dir", MNIST.toString(), "--report", report.toString(),
        "--csv", dir.resolve("ledger.csv").toString(), "--chart", dir.resolve("chart.png").toString());
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(r.out()).contains("epoch 1/2: test accuracy", "epoch 2/2", "all iterates released");
    JsonNode j = new ObjectMapper().readTree(report.toFile());
    assertThat(j.get("testAccuracy").asDouble()).isGreaterThan(0.7);
    assertThat(j.get("epsilon").asDouble()).isLessThanOrEqualTo(4.0).isGreaterThan(3.9);
    assertThat(j.get("delta").asDouble()).isEqualTo(1e-5);
    assertThat(j.get("epochs").asInt()).isEqualTo(2);
    assertThat(j.get("noiseMultiplier").asDouble()).isPositive();
    assertThat(j.get("stopReason").asText()).isEqualTo("completed");
    assertThat(j.get("epochsCompleted").asInt()).isEqualTo(2);
    assertThat(j.get("ledger")).hasSize(2);
    assertThat(j.get("ledger").get(1).get("epsilonHiddenState").isNull()).isTrue();
    assertThat(Files.readAllLines(dir.resolve("ledger.csv"))).hasSize(3);
    assertThat(ImageIO.read(dir.resolve("chart.png").toFile())).isNotNull();
  }

  @Test
  void trainsTheRowSequentialLstm(@TempDir Path dir) throws Exception {
    Assumptions.assumeTrue(Files.isDirectory(MNIST), "MNIST not fetched (scripts/fetch-data.sh)");
    Path report = dir.resolve("report.json");
    CliRun r = CliRun.of("train", "--model", "lstm", "--hidden", "8", "--noise-multiplier", "1.0", "--epochs", "1",
        "--batch-size", "250", "--train-size", "500", "--data-dir", MNIST.toString(), "--report", report.toString());
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(r.out()).contains(", lstm, 1 epochs of 2 steps", "epoch 1/1: test accuracy");
    JsonNode j = new ObjectMapper().readTree(report.toFile());
    assertThat(j.get("model").asText()).isEqualTo("lstm");
    assertThat(j.get("testAccuracy").asDouble()).isBetween(0.0, 1.0);
  }

  @Test
  void aBudgetBelowThePlanStopsEarlyAndSaysSo(@TempDir Path dir) throws Exception {
    Assumptions.assumeTrue(Files.isDirectory(MNIST), "MNIST not fetched (scripts/fetch-data.sh)");
    Path report = dir.resolve("report.json");
    CliRun r = CliRun.of("train", "--noise-multiplier", "1.0", "--budget", "0.8", "--epochs", "5", "--batch-size",
        "100", "--train-size", "2000", "--data-dir", MNIST.toString(), "--report", report.toString());
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(r.err()).contains("the budget allows");
    JsonNode j = new ObjectMapper().readTree(report.toFile());
    assertThat(j.get("stopReason").asText()).isEqualTo("budget");
    assertThat(j.get("epsilon").asDouble()).isLessThanOrEqualTo(0.8);
    assertThat(j.get("epochsCompleted").asInt()).isLessThan(5);
  }

  @Test
  void resumingFromACheckpointContinuesTheLedger(@TempDir Path dir) throws Exception {
    Assumptions.assumeTrue(Files.isDirectory(MNIST), "MNIST not fetched (scripts/fetch-data.sh)");
    String[] common = {"train", "--noise-multiplier", "1.2", "--batch-size", "100", "--train-size", "1000",
        "--data-dir", MNIST.toString()};
    Path ckpt = dir.resolve("run.zip");
    CliRun first = CliRun.of(concat(common, "--epochs", "1", "--checkpoint", ckpt.toString()));
    assertThat(first.status()).as(first.err()).isZero();
    Path resumedReport = dir.resolve("resumed.json");
    CliRun resumed = CliRun.of(concat(common, "--epochs", "2", "--resume", ckpt.toString(), "--report",
        resumedReport.toString()));
    assertThat(resumed.status()).as(resumed.err()).isZero();
    assertThat(resumed.out()).contains("resuming after epoch 1 (10 updates)").contains("epoch 2/2")
        .doesNotContain("epoch 1/2");
    Path straightReport = dir.resolve("straight.json");
    CliRun straight = CliRun.of(concat(common, "--epochs", "2", "--report", straightReport.toString()));
    assertThat(straight.status()).as(straight.err()).isZero();
    ObjectMapper json = new ObjectMapper();
    JsonNode a = json.readTree(resumedReport.toFile()).get("ledger");
    JsonNode b = json.readTree(straightReport.toFile()).get("ledger");
    assertThat(a).hasSize(2);
    for (int i = 0; i < 2; i++) {
      assertThat(a.get(i).get("steps").asLong()).isEqualTo(b.get(i).get("steps").asLong());
      assertThat(a.get(i).get("epsilonComposition").asDouble()).isEqualTo(b.get(i).get("epsilonComposition").asDouble());
    }
    CliRun other = CliRun.of("train", "--noise-multiplier", "2.0", "--batch-size", "100", "--train-size", "1000",
        "--data-dir", MNIST.toString(), "--epochs", "2", "--resume", ckpt.toString());
    assertThat(other.status()).isEqualTo(2);
    assertThat(other.err()).contains("cannot resume");
  }

  private static String[] concat(String[] a, String... b) {
    String[] c = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, c, a.length, b.length);
    return c;
  }

  @Test
  void badInputIsOneLine(@TempDir Path dir) {
    CliRun both = CliRun.of("train", "--epsilon", "3", "--noise-multiplier", "1");
    assertThat(both.status()).isEqualTo(2);
    assertThat(both.err()).contains("exactly one of --epsilon and --noise-multiplier");
    CliRun model = CliRun.of("train", "--epsilon", "3", "--model", "resnet");
    assertThat(model.status()).isEqualTo(2);
    assertThat(model.err().strip().lines().count()).isEqualTo(1);
    assertThat(model.err()).contains("--model");
    CliRun noData = CliRun.of("train", "--epsilon", "3", "--data-dir", dir.resolve("nothing").toString());
    assertThat(noData.status()).isEqualTo(2);
    assertThat(noData.err()).contains("fetch-data.sh");
    CliRun algorithm = CliRun.of("train", "--epsilon", "3", "--algorithm", "magic");
    assertThat(algorithm.status()).isEqualTo(2);
    assertThat(algorithm.err()).contains("--algorithm");
  }

  @Test
  void smallDataSetsAndUncoveredNoiseAreHandledBeforeTraining() throws Exception {
    Assumptions.assumeTrue(Files.isDirectory(MNIST), "MNIST not fetched (scripts/fetch-data.sh)");
    // q = 2048/3000 = 0.68: the sampled-Gaussian RDP used to fail to converge here
    CliRun small = CliRun.of("train", "--epsilon", "3", "--epochs", "1", "--train-size", "3000", "--data-dir",
        MNIST.toString(), "--accountant", "rdp");
    assertThat(small.status()).as(small.err()).isZero();
    assertThat(small.out()).contains("sampling rate q = 0.682667", "rdp calibration", "epsilon 3.0000");
    for (String accountant : new String[] {"pld", "rdp"}) {
      CliRun tiny = CliRun.of("train", "--noise-multiplier", "1e-308", "--epochs", "1", "--train-size", "3000",
          "--data-dir", MNIST.toString(), "--accountant", accountant);
      assertThat(tiny.status()).as(accountant).isEqualTo(2);
      assertThat(tiny.err()).contains("noise multiplier", "1.0E-308");
    }
    CliRun unknown = CliRun.of("train", "--epsilon", "3", "--accountant", "moments");
    assertThat(unknown.status()).isEqualTo(2);
    assertThat(unknown.err()).contains("--accountant must be pld or rdp");
  }
}
