package org.dp4j.samples.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code dp4j experiment frontier}: the DP-MBCD temperature calibration against the accountant command (an independent
 * path: the constants L_F, L_T, S_g are derived here by hand and passed as flags) and against the composition bound in
 * closed form, input validation, and the JSON/PNG of a tiny run on the real MNIST files (skipped without them).
 */
class FrontierExperimentTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int[] WIDTHS = {784, 16, 16, 10};
  private static final Path MNIST = Path.of(System.getProperty("user.dir")).resolve("../.cache/data/mnist")
      .normalize();

  @TempDir
  Path tmp;

  /**
   * b = 1000, n = 5000, K = 2, η = 0.9, C = 0.1, ρ = 1, μ = 0.1: safe L_F = max(1 − ημ, |1 − η(ρ² + 1 + μ)|)
   * = max(0.91, 0.89) = 0.91, L_T = 1 (no prox), S_g = 2C = 0.2, three blocks. The calibrated o must give ε = 1 in
   * {@code dp4j account dp-mbcd} with these constants, and any smaller o must give more.
   */
  @Test
  void calibratedTemperatureGivesTargetInTheAccountCommand() throws Exception {
    FrontierSettings.Mbcd s = FrontierSettings.Mbcd.parse("1000:2:0.9:0.1:1:0.1");
    FrontierExperiment.MbcdPrivacy p = FrontierExperiment.calibrateMbcd(s, 5000, WIDTHS, 1.0, 1e-5);
    CliRun r = CliRun.of("account", "dp-mbcd", "--dataset-size", "5000", "--batch-size", "1000", "--epochs", "2",
        "--learning-rate", "0.9", "--noise-variance", Double.toString(p.noise()), "--lipschitz-f", "0.91",
        "--lipschitz-t", "1", "--sensitivity", "0.2", "--blocks", "3", "--delta", "1e-5", "--json");
    assertThat(r.status()).as(r.err()).isZero();
    double hidden = JSON.readTree(r.out()).get("epsilon").asDouble();
    assertThat(p.hiddenState()).isCloseTo(hidden, within(1e-9 * hidden));
    assertThat(p.epsilon()).isEqualTo(Math.min(p.hiddenState(), p.composition())).isLessThanOrEqualTo(1.0)
        .isGreaterThan(1.0 - 1e-4);
    // minimal: 1e-5 less noise already exceeds the target (bisection to a relative 1e-6)
    assertThat(FrontierExperiment.mbcdPrivacy(s, 5000, WIDTHS, p.noise() / (1 + 1e-5), 1e-5).epsilon())
        .isGreaterThan(1.0);
  }

  /**
   * Composition of the clipped block steps in closed form (Mironov 2017, Prop. 7 and Prop. 1): each record is in one
   * batch per epoch, each of the 3 blocks takes a Gaussian step with Δ = 2ηC/b under variance 2ηo, so RDP(α) =
   * α·3Kη C²/(b²o); the improved conversion (Balle et al. 2020, Thm 21) minimised over a fine continuous grid of α is a
   * lower bound of dp4j's grid minimum, which must lie within 3% of it.
   */
  @Test
  void compositionBoundMatchesClosedForm() {
    FrontierSettings.Mbcd s = FrontierSettings.Mbcd.parse("500:3:1:1:1:0");
    double o = 2e-4;
    double eta = 1;
    double c = 1;
    double perAlpha = 3 * 3 * eta * c * c / (500.0 * 500.0 * o);
    double best = Double.POSITIVE_INFINITY;
    for (int i = 0; i <= 200_000; i++) {
      double alpha = 1 + Math.pow(10, -3 + 7.0 * i / 200_000);
      double e = alpha * perAlpha + Math.log((alpha - 1) / alpha) - (Math.log(1e-5) + Math.log(alpha)) / (alpha - 1);
      best = Math.min(best, e);
    }
    double composition = FrontierExperiment.mbcdPrivacy(s, 4000, WIDTHS, o, 1e-5).composition();
    assertThat(composition).isGreaterThanOrEqualTo(best * (1 - 1e-9)).isLessThan(best * 1.03);
  }

  @Test
  void settingsRefuseUncertifiedStepsAndMalformedSpecs() {
    assertThatThrownBy(() -> FrontierExperiment.calibrateMbcd(FrontierSettings.Mbcd.parse("1000:2:1:1:1:0"), 5000,
        WIDTHS, 0, 1e-5)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("target epsilon");
    assertThatThrownBy(() -> FrontierSettings.Mbcd.parse("1000:2:1.5:1:1:0"))
        .hasMessageContaining("eta*(rho^2 + 1 + mu) must be <= 2").hasMessageContaining("1.5*2.0 = 3.0");
    assertThatThrownBy(() -> FrontierSettings.Sgd.parse("1024:10:0.2:2")).hasMessageContaining("b:K:C:lr:momentum");
    assertThatThrownBy(() -> FrontierSettings.Mbcd.parse("10.5:2:1:1:1:0")).hasMessageContaining("integers");
  }

  @Test
  void refusesBadInputBeforeAnyWork() {
    CliRun.of("experiment", "frontier", "--epsilons", "1,0").assertRefusedNaming("--epsilons must be finite and > 0");
    CliRun.of("experiment", "frontier", "--seeds", "0").assertRefusedNaming("--seeds must be > 0, was 0");
    CliRun.of("experiment", "frontier", "--delta", "1").assertRefusedNaming("--delta must be in (0, 1)");
    CliRun.of("experiment", "frontier", "--mbcd", "1000:10:2:1:1:0").assertRefusedNaming("eta*(rho^2 + 1 + mu)");
    CliRun.of("experiment", "frontier", "--sgd", "1024:x:0.2:2:0.9").assertRefusedNaming("'x' is not a number");
    CliRun.of("experiment", "frontier", "--hidden", "0").assertRefusedNaming("--hidden must be > 0, was 0");
    CliRun.of("experiment", "frontier", "--search-only", "--mbcd", "1000:10:1:1:1:0")
        .assertRefusedNaming("--search-only needs at least two --mbcd settings");
    CliRun.of("experiment", "frontier", "--test-size", "0").assertRefusedNaming("--test-size must be > 0, was 0");
  }

  @Test
  void refusesTrainSizeOutsideTheData() {
    assumeTrue(Files.isDirectory(MNIST), "MNIST not fetched (scripts/fetch-data.sh)");
    Path data = MNIST;
    CliRun.of("experiment", "frontier", "--data-dir", data.toString(), "--train-size", "70000")
        .assertRefusedNaming("--train-size must be in [largest batch size 2500, 60000], was 70000");
    CliRun.of("experiment", "frontier", "--data-dir", data.toString(), "--search-train-size", "55000")
        .assertRefusedNaming("--search-train-size must be in [largest DP-MBCD batch size 2500, 50000]");
    CliRun.of("experiment", "frontier", "--data-dir", data.toString(), "--test-size", "10001")
        .assertRefusedNaming("--test-size must be in [1, 10000], was 10001");
  }

  /** A tiny run (100 training, 200 validation, 300 test images, 2 seeds, a 2-setting search): every ε within the target, JSON and PNG written. */
  @Test
  void tinyRunWritesTableJsonAndChart() throws Exception {
    assumeTrue(Files.isDirectory(MNIST), "MNIST not fetched (scripts/fetch-data.sh)");
    Path data = MNIST;
    Path report = tmp.resolve("f.json");
    Path chart = tmp.resolve("f.png");
    CliRun r = CliRun.of("experiment", "frontier", "--data-dir", data.toString(), "--epsilons", "8", "--seeds", "2",
        "--train-size", "100", "--search-train-size", "100", "--validation-size", "200", "--test-size", "300",
        "--hidden", "4", "--mbcd", "50:1:1:1:1:0,50:1:0.9:0.5:1:0.1",
        "--sgd", "50:1:1:0.5:0", "--report", report.toString(), "--chart", chart.toString());
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(r.out()).contains("| 8.0 | dp-mbcd |", "| 8.0 | dp-sgd |", "DP-MBCD search", "not counted in epsilon");
    JsonNode j = JSON.readTree(report.toFile());
    assertThat(j.get("search")).hasSize(2);
    assertThat(j.get("testRecords").asInt()).isEqualTo(300);
    assertThat(j.get("rows")).hasSize(2);
    assertThat(j.get("certified").asBoolean()).isTrue();
    for (JsonNode row : j.get("rows")) {
      assertThat(row.get("certified").asBoolean()).isTrue();
      assertThat(row.get("accuracies")).hasSize(2);
      assertThat(row.get("epsilon").asDouble()).isLessThanOrEqualTo(8.0 * (1 + 1e-9)).isGreaterThan(7.99);
      double mean = (row.get("accuracies").get(0).asDouble() + row.get("accuracies").get(1).asDouble()) / 2;
      assertThat(row.get("accuracyMean").asDouble()).isCloseTo(mean, within(1e-12));
    }
    assertThat(j.get("rows").get(0).get("neighbouringRelation").asText()).isEqualTo("replace one record");
    assertThat(j.get("rows").get(1).get("neighbouringRelation").asText()).isEqualTo("add/remove one record");
    BufferedImage png = ImageIO.read(chart.toFile());
    assertThat(png.getWidth()).isEqualTo(FrontierChart.WIDTH);
    assertThat(png.getHeight()).isEqualTo(FrontierChart.HEIGHT);
  }

  /** Sample std (n − 1) of 0.5, 0.7, 0.9 is 0.2. */
  @Test
  void rowStatistics() {
    FrontierExperiment.Row row = new FrontierExperiment.Row("dp-sgd", 3, "s", "z", 3, null, 3, "t", "r",
        List.of(0.5, 0.7, 0.9));
    assertThat(row.mean()).isCloseTo(0.7, within(1e-12));
    assertThat(row.std()).isCloseTo(0.2, within(1e-12));
    assertThat(String.format(Locale.ROOT, "%.1f", row.std())).isEqualTo("0.2");
  }
}
