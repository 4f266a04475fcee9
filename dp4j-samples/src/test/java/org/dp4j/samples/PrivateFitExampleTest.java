package org.dp4j.samples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** The JSON contract of the sample (used by tools outside the build), on one epoch (the graph on 6,000 records). */
class PrivateFitExampleTest {
  private static final Path MNIST = Path.of(System.getProperty("user.dir")).resolve("../.cache/data/mnist")
      .normalize();

  @Test
  void printsOneJsonObjectWithTheContractFields() throws Exception {
    Assumptions.assumeTrue(Files.isDirectory(MNIST), "MNIST not fetched (scripts/fetch-data.sh)");
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PrivateFitExample.run(new String[] {"--data-dir", MNIST.toString(), "--epochs", "1", "--graph-train-size",
        "6000", "--json"},
        new PrintStream(bytes, true, StandardCharsets.UTF_8));
    String out = bytes.toString(StandardCharsets.UTF_8).trim();
    assertThat(out.lines()).hasSize(1);
    JsonNode j = new ObjectMapper().readTree(out);
    JsonNode mln = j.get("multiLayerNetwork");
    assertThat(mln.get("testAccuracy").asDouble()).isGreaterThan(0.7);
    assertThat(mln.get("epsilon").asDouble()).isLessThanOrEqualTo(3.0).isGreaterThan(2.9);
    assertThat(mln.get("delta").asDouble()).isEqualTo(1e-5);
    assertThat(mln.get("steps").asLong()).isEqualTo(30);   // ⌈60000 / 2048⌉ steps in one epoch
    JsonNode graph = j.get("computationGraph");
    assertThat(graph.get("testAccuracy").asDouble()).isGreaterThan(0.2);   // 12 noisy steps; chance is 0.1
    assertThat(graph.get("epsilon").asDouble()).isLessThanOrEqualTo(3.0).isGreaterThan(2.9);
    assertThat(graph.get("delta").asDouble()).isEqualTo(1e-5);
    assertThat(graph.get("steps").asLong()).isEqualTo(12);   // ⌈6000 / 512⌉ steps in one epoch
  }

  @Test
  void refusesUnknownModelsAndParts() {
    assertThatThrownBy(() -> PrivateFitExample.run(new String[] {"--model", "resnet"}, System.out))
        .hasMessageContaining("--model must be pooled-mlp, mlp or cnn, was resnet");
    assertThatThrownBy(() -> PrivateFitExample.run(new String[] {"--only", "graph"}, System.out))
        .hasMessageContaining("--only must be multiLayerNetwork or computationGraph, was graph");
  }
}
