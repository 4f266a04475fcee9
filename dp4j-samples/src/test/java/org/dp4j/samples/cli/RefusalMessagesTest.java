package org.dp4j.samples.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bad input the issue found described misleadingly: each is now exit 2 with one line saying what is wrong. */
class RefusalMessagesTest {
  @TempDir
  Path tmp;

  @Test
  void dataDirThatIsAFile() throws IOException {
    Path file = Files.writeString(tmp.resolve("mnist.txt"), "x");
    CliRun r = CliRun.of("train", "--epsilon", "3", "--data-dir", file.toString());
    r.assertRefusedNaming("--data-dir: " + file + ": is a file, not a folder");
    assertThat(r.err()).doesNotContain("does not exist");
  }

  @Test
  void dataDirHoldingAFolderWhereAFileBelongs() throws IOException {
    Files.createDirectories(tmp.resolve("train-images-idx3-ubyte"));
    CliRun r = CliRun.of("train", "--epsilon", "3", "--data-dir", tmp.toString());
    r.assertRefusedNaming(tmp.resolve("train-images-idx3-ubyte") + ": is a folder, not a file");
    // the same message through the DP-MBCD and certified-softmax paths, which load the data themselves
    CliRun mbcd = CliRun.of("train", "--algorithm", "dp-mbcd", "--noise-variance", "0.01", "--epochs", "1",
        "--data-dir", tmp.toString());
    mbcd.assertRefusedNaming("is a folder, not a file");
    CliRun softmax = CliRun.of("train", "--model", "softmax", "--noise-multiplier", "3", "--data-dir", tmp.toString());
    softmax.assertRefusedNaming("is a folder, not a file");
  }

  @Test
  void integerOptionsAreShownAsIntegers() {
    CliRun epochs = CliRun.of("train", "--epsilon", "3", "--epochs", "0");
    epochs.assertRefusedNaming("--epochs must be > 0, was 0");
    assertThat(epochs.err()).doesNotContain("0.0");
    CliRun batch = CliRun.of("train", "--epsilon", "3", "--batch-size", "-5");
    batch.assertRefusedNaming("--batch-size must be > 0, was -5");
    CliRun steps = CliRun.of("account", "sgm", "--sampling-rate", "0.01", "--noise-multiplier", "1", "--steps", "0",
        "--delta", "1e-5");
    steps.assertRefusedNaming("--steps must be > 0, was 0");
  }

  @Test
  void modelListNamesEveryModel() {
    CliRun.of("train", "--epsilon", "3", "--model", "resnet")
        .assertRefusedNaming("--model must be mlp, cnn, lstm or softmax, was 'resnet'");
  }

  @Test
  void infiniteRenyiOrderIsRefused() {
    CliRun r = CliRun.of("account", "sgm", "--sampling-rate", "0.01", "--noise-multiplier", "1", "--steps", "100",
        "--delta", "1e-5", "--orders", "2,Infinity");
    r.assertRefusedNaming("--orders must all be finite and > 1, was Infinity");
  }

  @Test
  void calibrationAtADeltaCloseToOneIsRefusedAndJustBelowTheLimitWorks() {
    for (String delta : new String[] {"0.1", "0.9999", "0.999999"}) {
      for (String accountant : new String[] {"rdp", "pld"}) {
        CliRun r = CliRun.of("calibrate", "sgm", "--accountant", accountant, "--target-epsilon", "1", "--delta",
            delta, "--sampling-rate", "0.01", "--steps", "1000");
        r.assertRefusedNaming("--delta must be < 0.1 to calibrate noise, was " + delta);
      }
    }
    CliRun ok = CliRun.of("calibrate", "sgm", "--target-epsilon", "1", "--delta", "0.09", "--sampling-rate", "0.01",
        "--steps", "1000", "--json");
    assertThat(ok.status()).as(ok.err()).isZero();
    assertThat(ok.out()).contains("\"noiseMultiplier\"");
  }

  @Test
  void madelonHelpPrintsNoPicocliWarning() {
    PrintStream saved = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    CliRun r;
    try {
      r = CliRun.of("experiment", "madelon", "--help");
    } finally {
      System.setErr(saved);
    }
    assertThat(r.status()).isZero();
    assertThat(r.out()).contains("the first 80% train");
    assertThat(captured.toString(StandardCharsets.UTF_8) + r.err()).doesNotContain("WARN");
  }
}
