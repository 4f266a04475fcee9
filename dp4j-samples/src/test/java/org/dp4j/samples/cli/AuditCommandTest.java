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

/**
 * {@code dp4j audit} on a slice of MNIST (3000 images, 2 epochs of q = 0.1, 200 canaries: seconds). The coins and
 * the noise are secure, so the numbers vary from run to run: the assertions are ones a correct implementation meets
 * in every run (the non-private baseline separates its canaries perfectly; a private run at ε = 4 cannot show more
 * than its own certified bound except with probability 5%, and with 200 canaries at this noise it shows far less).
 */
class AuditCommandTest {
  private static final Path MNIST = Path.of(System.getProperty("user.dir")).resolve("../.cache/data/mnist")
      .normalize();
  private static final String[] SLICE = {"--train-size", "3000", "--batch-size", "300", "--epochs", "2",
      "--canaries", "200", "--json"};

  @Test
  void privateRunReportsBothEpsilonsInJsonAndPng(@TempDir Path dir) throws Exception {
    Assumptions.assumeTrue(Files.isDirectory(MNIST), "MNIST not fetched (scripts/fetch-data.sh)");
    Path chart = dir.resolve("audit.png");
    CliRun r = run("--epsilon", "4", "--chart", chart.toString());
    assertThat(r.status()).as(r.err()).isZero();
    JsonNode j = new ObjectMapper().readTree(r.out());
    for (String key : new String[] {"epsilonLowerBound", "epsilonCertified", "confidence", "canaries",
        "correctGuesses", "guesses", "delta", "setting", "trainingSeconds"}) {
      assertThat(j.has(key)).as(key).isTrue();
    }
    assertThat(j.get("epsilonCertified").asDouble()).isLessThanOrEqualTo(4.0).isGreaterThan(3.9);
    assertThat(j.get("epsilonLowerBound").asDouble()).isLessThan(j.get("epsilonCertified").asDouble());
    assertThat(j.get("canaries").asInt()).isEqualTo(200);
    assertThat(j.get("confidence").asDouble()).isEqualTo(0.95);
    assertThat(j.get("nonPrivate").asBoolean()).isFalse();
    assertThat(j.get("correctGuesses").asInt()).isLessThanOrEqualTo(j.get("guesses").asInt());
    assertThat(ImageIO.read(chart.toFile())).isNotNull();
  }

  /** No noise: included Dirac canaries move, excluded ones do not; the bound is far above any private ε. */
  @Test
  void nonPrivateBaselineIsLabelledAndItsBoundIsHigh() throws Exception {
    Assumptions.assumeTrue(Files.isDirectory(MNIST), "MNIST not fetched (scripts/fetch-data.sh)");
    CliRun r = run("--noise-multiplier", "0");
    assertThat(r.status()).as(r.err()).isZero();
    JsonNode j = new ObjectMapper().readTree(r.out());
    assertThat(j.get("nonPrivate").asBoolean()).isTrue();
    assertThat(j.get("epsilonCertified").isNull()).isTrue();
    assertThat(j.get("certified").asText()).contains("NOT private");
    assertThat(j.get("correctGuesses").asInt()).isEqualTo(j.get("guesses").asInt());
    assertThat(j.get("epsilonLowerBound").asDouble()).isGreaterThan(2.5);
  }

  @Test
  void blackBoxInputCanariesRun() throws Exception {
    Assumptions.assumeTrue(Files.isDirectory(MNIST), "MNIST not fetched (scripts/fetch-data.sh)");
    CliRun r = run("--epsilon", "4", "--canary-type", "input");
    assertThat(r.status()).as(r.err()).isZero();
    JsonNode j = new ObjectMapper().readTree(r.out());
    assertThat(j.get("setting").asText()).startsWith("black-box");
    assertThat(j.get("trainingRecords").asInt()).isBetween(3000, 3200);
    assertThat(j.get("epsilonLowerBound").asDouble()).isLessThan(j.get("epsilonCertified").asDouble());
  }

  @Test
  void refusesBadInput() {
    CliRun.of("audit", "--noise-multiplier", "-1").assertRefusedNaming("--noise-multiplier must be finite and >= 0");
    CliRun.of("audit", "--epsilon", "2", "--noise-multiplier", "1")
        .assertRefusedNaming("exactly one of --epsilon and --noise-multiplier");
    CliRun.of("audit", "--epsilon", "2", "--confidence", "1").assertRefusedNaming("--confidence must be in (0, 1)");
    CliRun.of("audit", "--epsilon", "2", "--canaries", "1").assertRefusedNaming("--canaries must be >= 2, was 1");
  }

  private static CliRun run(String... extra) {
    String[] args = new String[3 + SLICE.length + extra.length];
    args[0] = "audit";
    args[1] = "--data-dir";
    args[2] = MNIST.toString();
    System.arraycopy(SLICE, 0, args, 3, SLICE.length);
    System.arraycopy(extra, 0, args, 3 + SLICE.length, extra.length);
    return CliRun.of(args);
  }
}
