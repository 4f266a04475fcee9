package org.dp4j.samples.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CertifiedSoftmaxTrainingTest {
  private static final Path MNIST = Path.of(System.getProperty("user.dir")).resolve("../.cache/data/mnist")
      .normalize();

  @Test
  void softmaxOnAnMnistSliceReportsBothEpsilons(@TempDir Path dir) throws Exception {
    Assumptions.assumeTrue(Files.isDirectory(MNIST), "MNIST not fetched (scripts/fetch-data.sh)");
    Path report = dir.resolve("report.json");
    CliRun r = CliRun.of("train", "--model", "softmax", "--sampler", "shuffle-once", "--l2", "0.01",
        "--feature-clip", "1", "--noise-multiplier", "1", "--epochs", "3", "--batch-size", "100",
        "--train-size", "3000", "--data-dir", MNIST.toString(), "--report", report.toString());
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(r.out()).contains("shuffle-once partition of 30 batches of 100", "epoch 1/3: test accuracy",
        "epoch 3/3", "all iterates released", "certified hidden-state epsilon", "replace-one");
    JsonNode j = new ObjectMapper().readTree(report.toFile());
    // Raw pixels scaled to norm 1 learn slowly (83% after these 90 steps without noise or clipping): a sanity bound.
    assertThat(j.get("testAccuracy").asDouble()).isGreaterThan(0.5);
    assertThat(j.get("epsilonHiddenState").isNumber()).isTrue();
    double hidden = j.get("epsilonHiddenState").asDouble();
    double composition = j.get("epsilon").asDouble();
    assertThat(hidden).isPositive().isLessThan(composition);
    assertThat(j.get("epsilonComposition").asDouble()).isEqualTo(composition);
    assertThat(j.get("hiddenStateCertified").asBoolean()).isTrue();
    assertThat(j.get("neighbouringRelation").asText()).isEqualTo("replace one record");
    assertThat(j.get("ledger")).hasSize(3);
    // η defaults to 0.9 of Cor. 6.3's limit 2/((L²+1)/2 + 2λ) = 2/1.02.
    assertThat(j.get("learningRate").asDouble()).isEqualTo(0.9 * 2 / 1.02);
  }

  @Test
  void momentumAndUncertifiableSettingsAreRefused() {
    String[] base = {"train", "--model", "softmax", "--sampler", "shuffle-once", "--l2", "0.01",
        "--feature-clip", "1", "--noise-multiplier", "3", "--data-dir", "."};
    CliRun.of(concat(base, "--momentum", "0.9"))
        .assertRefusedNaming("--momentum 0.9: the certified hidden-state bound (Ye & Shokri Cor. 6.3) needs plain SGD");
    CliRun.of("train", "--model", "softmax", "--sampler", "poisson", "--noise-multiplier", "3")
        .assertRefusedNaming("--model softmax trains with --sampler shuffle-once");
    CliRun.of("train", "--model", "mlp", "--sampler", "shuffle-once", "--noise-multiplier", "3")
        .assertRefusedNaming("are for --model softmax");
    CliRun.of("train", "--sampler", "cyclic", "--noise-multiplier", "3")
        .assertRefusedNaming("--sampler must be poisson or shuffle-once, was 'cyclic'");
    CliRun.of("train", "--model", "softmax", "--epsilon", "3").assertRefusedNaming("needs --noise-multiplier");
  }

  @Test
  void aStepAboveTheCorollarysLimitIsRefused() {
    Assumptions.assumeTrue(Files.isDirectory(MNIST), "MNIST not fetched (scripts/fetch-data.sh)");
    CliRun.of("train", "--model", "softmax", "--sampler", "shuffle-once", "--l2", "0.01", "--feature-clip", "1",
        "--noise-multiplier", "3", "--learning-rate", "2", "--batch-size", "250", "--train-size", "1000",
        "--data-dir", MNIST.toString()).assertRefusedNaming("η < 2/(λ+β)");
  }

  private static String[] concat(String[] a, String... b) {
    String[] r = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, r, a.length, b.length);
    return r;
  }
}
