package org.dp4j.samples.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AveragedEvaluationTest {
  @Test
  void averagedRunReportsTheAverageAndTheLastIterate(@TempDir Path dir) throws Exception {
    Path data = Files.createDirectories(dir.resolve("data"));
    ScatterNetTrainTest.writeIdx(data, "train", 48);
    ScatterNetTrainTest.writeIdx(data, "t10k", 16);
    Path report = dir.resolve("r.json");
    CliRun run = CliRun.of("train", "--features", "scatternet", "--model", "linear", "--data-dir", data.toString(),
        "--feature-cache", dir.resolve("fc").toString(), "--noise-multiplier", "1", "--epochs", "2",
        "--batch-size", "16", "--average-decay", "0.9", "--report", report.toString());
    assertThat(run.status()).as(run.err()).isZero();
    assertThat(run.out()).contains("parameter averaging: test accuracy is measured on the exponential moving average",
        "decay min(0.9, t/(9+t))", "epsilon, delta and the neighbouring relation are unchanged",
        "with the averaged parameters", "with the last iterate");
    JsonNode j = new ObjectMapper().readTree(report.toFile());
    assertThat(j.get("averageDecay").asDouble()).isEqualTo(0.9);
    assertThat(j.get("averageUpdates").asLong()).isEqualTo(6);   // 2 epochs of 48/16 = 3 Poisson steps
    assertThat(j.get("evaluatedParameters").asText()).startsWith("exponential moving average");
    assertThat(j.get("lastIterateTestAccuracyPerEpoch")).hasSize(2);
    assertThat(j.get("testAccuracyPerEpoch")).hasSize(2);
  }

  @Test
  void averagingIsRefusedWhereItIsNotCoveredOrNotSupported() {
    CliRun.of("train", "--epsilon", "3", "--model", "softmax", "--average-decay", "0.99")
        .assertRefusedNaming("hidden-state epsilon covers only the last iterate");
    CliRun.of("train", "--epsilon", "3", "--algorithm", "dp-mbcd", "--average-decay", "0.99")
        .assertRefusedNaming("hidden-state epsilon covers only the last iterate");
    CliRun.of("train", "--epsilon", "3", "--average-decay", "1").assertRefusedNaming(
        "--average-decay must be in [0, 1), was 1.0");
    CliRun.of("train", "--epsilon", "3", "--average-decay", "0.9", "--spark", "local[1]")
        .assertRefusedNaming("not supported with --spark");
  }
}
