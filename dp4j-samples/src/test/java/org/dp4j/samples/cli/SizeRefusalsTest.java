package org.dp4j.samples.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Sizes that would overflow an index or exhaust memory are refused up front: exit 2, the flag and the limit. */
class SizeRefusalsTest {
  @Test
  void nmfRowsBeyondAnArrayIndex() {
    CliRun r = CliRun.of("nmf", "--batch-size", "100", "--rows", "2000000000");
    r.assertRefusedNaming("--rows 2000000000");
    assertThat(r.err()).contains("4.00e+11 elements", "2147483647");
  }

  @Test
  void nmfRowsBeyondTheHeap() {
    // 2e7 x 100 doubles fit an index but need 8 * 2 * 2e9 bytes = 30 GB, above any test JVM's -Xmx.
    CliRun r = CliRun.of("nmf", "--batch-size", "100", "--rows", "20000000", "--columns", "100");
    r.assertRefusedNaming("--rows 20000000");
    assertThat(r.err()).contains("needs at least", "memory limit", "-Xmx");
  }

  @Test
  void trainHiddenWidthBeyondAnArrayIndex() {
    CliRun r = CliRun.of("train", "--epsilon", "3", "--hidden", "2000000000");
    r.assertRefusedNaming("--hidden 2000000000");
    assertThat(r.err()).contains("1.57e+12 elements"); // 784 x 2e9 weights in the first layer
  }

  @Test
  void madelonEpochsBeyondAStepCount() {
    CliRun r = CliRun.of("experiment", "madelon", "--epochs", "2147483647");
    r.assertRefusedNaming("--epochs 2147483647");
    // 6000 samples, 80% train, batches of 960: N = 5 steps per epoch
    assertThat(r.err()).contains("2147483647 epochs x 5 steps", "more than the 2147483647");
  }
}
