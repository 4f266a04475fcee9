package org.dp4j.samples.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Enumeration;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;
import org.deeplearning4j.util.ModelSerializer;
import org.dp4j.listeners.LedgerCheckpoint;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code dp4j train --checkpoint/--resume} and the output files: refusals before any training. */
class TrainResumeTest {
  private static final Path MNIST = Path.of(System.getProperty("user.dir")).resolve("../.cache/data/mnist")
      .normalize();
  private static final String[] COMMON = {"train", "--noise-multiplier", "1.2", "--batch-size", "100",
      "--train-size", "1000"};

  private static String[] args(Path data, String... more) {
    String[] a = Arrays.copyOf(COMMON, COMMON.length + 2 + more.length);
    a[COMMON.length] = "--data-dir";
    a[COMMON.length + 1] = data.toString();
    System.arraycopy(more, 0, a, COMMON.length + 2, more.length);
    return a;
  }

  @Test
  void resumeRefusesFlagsThatContradictTheCheckpointAndARolledBackLedger(@TempDir Path dir) throws Exception {
    Assumptions.assumeTrue(Files.isDirectory(MNIST), "MNIST not fetched (scripts/fetch-data.sh)");
    Path epoch1 = dir.resolve("epoch1.zip");
    CliRun first = CliRun.of(args(MNIST, "--epochs", "1", "--checkpoint", epoch1.toString()));
    assertThat(first.status()).as(first.err()).isZero();
    assertThat(LedgerCheckpoint.read(epoch1.toFile()).settings()).containsEntry("--model", "mlp")
        .containsEntry("--hidden", "256").containsEntry("--clip-norm", "0.2").containsEntry("--train-size", "1000");

    String[][] conflicts = {
        {"--model", "cnn", "--model mlp"},
        {"--clip-norm", "5", "--clip-norm 0.2"},
        {"--learning-rate", "0.01", "--learning-rate 2.0"},
        {"--momentum", "0", "--momentum 0.9"},
        {"--hidden", "128", "--hidden 256"},
        {"--activation", "relu", "--activation tanh"},
        {"--dataset", "fashion-mnist", "--dataset mnist"},
        {"--batch-size", "200", "--batch-size 100"}};
    for (String[] c : conflicts) {
      String[] a = args(MNIST, "--epochs", "2", "--resume", epoch1.toString(), c[0], c[1]);
      if (c[0].equals("--batch-size")) {
        a[4] = "200"; // COMMON's --batch-size
        a = Arrays.copyOfRange(a, 0, a.length - 2);
      }
      CliRun r = CliRun.of(a);
      r.assertRefusedNaming(c[0]);
      assertThat(r.err()).contains("contradicts the checkpoint").contains(c[2]);
    }
    // The same values as recorded are accepted (they do not contradict), and --epochs may grow.
    Path epoch2 = dir.resolve("epoch2.zip");
    CliRun resumed = CliRun.of(args(MNIST, "--epochs", "2", "--resume", epoch1.toString(), "--clip-norm", "0.2",
        "--checkpoint", epoch2.toString()));
    assertThat(resumed.status()).as(resumed.err()).isZero();
    assertThat(resumed.out()).contains("resuming after epoch 1 (10 updates)", "epoch 2/2");
    // DL4J's epoch count in the saved models: the checkpoint of epoch k says k epochs were finished, so the resumed
    // run starts from epoch count 1 and its own checkpoint says 2 (both were one lower before the fix).
    assertThat(ModelSerializer.restoreMultiLayerNetwork(epoch1.toFile()).getEpochCount()).isEqualTo(1);
    assertThat(ModelSerializer.restoreMultiLayerNetwork(epoch2.toFile()).getEpochCount()).isEqualTo(2);

    // The epoch-1 ledger spliced into the epoch-2 checkpoint (what a rollback of the ledger looks like).
    Path rolledBack = dir.resolve("rolled-back.zip");
    splice(epoch2, epoch1, LedgerCheckpoint.ENTRY, rolledBack);
    CliRun refused = CliRun.of(args(MNIST, "--epochs", "3", "--resume", rolledBack.toString()));
    refused.assertRefusedNaming("--resume");
    assertThat(refused.err()).contains("accounts 10 private updates", "took 20", "another point of the run");
  }

  @Test
  void dpMbcdRefusesCheckpointAndResume(@TempDir Path dir) {
    CliRun c = CliRun.of("train", "--algorithm", "dp-mbcd", "--epsilon", "3", "--checkpoint",
        dir.resolve("c.zip").toString());
    c.assertRefusedNaming("--checkpoint and --resume are not supported with --algorithm dp-mbcd");
    CliRun r = CliRun.of("train", "--algorithm", "dp-mbcd", "--epsilon", "3", "--resume",
        dir.resolve("c.zip").toString());
    r.assertRefusedNaming("dp-mbcd");
  }

  @Test
  void outputPathsAreCheckedBeforeTraining(@TempDir Path dir) throws IOException {
    Path same = dir.resolve("o");
    CliRun collide = CliRun.of(args(dir, "--epochs", "1", "--checkpoint", same.toString(), "--report",
        same.toString()));
    collide.assertRefusedNaming("--checkpoint and --report name the same file");

    Path folder = Files.createDirectory(dir.resolve("chart"));
    CliRun chart = CliRun.of(args(dir.resolve("data"), "--epochs", "1", "--chart", folder.toString()));
    chart.assertRefusedNaming("--chart");
    assertThat(chart.err()).contains("is a folder");
    assertThat(folder).isDirectory();

    Path file = Files.writeString(dir.resolve("plain"), "x");
    CliRun underFile = CliRun.of(args(dir.resolve("data"), "--epochs", "1", "--csv",
        file.resolve("ledger.csv").toString()));
    underFile.assertRefusedNaming("--csv");
    assertThat(underFile.err()).contains("is a file, not a folder");

    Path old = Files.writeString(dir.resolve("old.zip"), "an earlier run's checkpoint");
    CliRun overwrite = CliRun.of(args(dir.resolve("data"), "--epochs", "1", "--checkpoint", old.toString()));
    overwrite.assertRefusedNaming("--checkpoint");
    assertThat(overwrite.err()).contains("already exists", "--resume");
    assertThat(Files.readString(old)).isEqualTo("an earlier run's checkpoint");

    CliRun missing = CliRun.of(args(dir.resolve("data"), "--epochs", "1", "--resume",
        dir.resolve("none.zip").toString()));
    missing.assertRefusedNaming("--resume");
    assertThat(missing.err()).contains("does not exist");
    CliRun notACheckpoint = CliRun.of(args(dir.resolve("data"), "--epochs", "1", "--resume", file.toString()));
    notACheckpoint.assertRefusedNaming("--resume");
    assertThat(notACheckpoint.err()).contains("not a zip file");
    try (Stream<Path> s = Files.list(dir)) {
      assertThat(s.map(p -> p.getFileName().toString()).toList())
          .containsExactlyInAnyOrder("chart", "plain", "old.zip");
    }
  }

  @Test
  void aFailedOutputAtTheEndStillWritesTheOthersAndSaysWhy() {
    StringWriter err = new StringWriter();
    RunOutputs outputs = new RunOutputs(new PrintWriter(err, true));
    boolean[] written = new boolean[1];
    outputs.write(Path.of("report.json"), () -> {
      throw new UncheckedIOException("cannot write report report.json: no space left on device",
          new IOException("no space left on device"));
    });
    outputs.write(Path.of("ledger.csv"), () -> written[0] = true);
    assertThat(outputs.exitCode()).isEqualTo(1);
    assertThat(written[0]).isTrue();
    assertThat(err.toString()).isEqualTo("dp4j: error: cannot write report report.json: no space left on device"
        + System.lineSeparator());
  }

  private static void splice(Path base, Path donor, String name, Path out) throws IOException {
    try (ZipFile b = new ZipFile(base.toFile()); ZipFile d = new ZipFile(donor.toFile());
        ZipOutputStream zip = new ZipOutputStream(new FileOutputStream(out.toFile()))) {
      for (Enumeration<? extends ZipEntry> e = b.entries(); e.hasMoreElements(); ) {
        ZipEntry entry = e.nextElement();
        ZipFile from = entry.getName().equals(name) ? d : b;
        zip.putNextEntry(new ZipEntry(entry.getName()));
        try (InputStream in = from.getInputStream(from.getEntry(entry.getName()))) {
          in.transferTo(zip);
        }
      }
    }
  }

}
