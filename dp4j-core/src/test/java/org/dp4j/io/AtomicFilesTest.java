package org.dp4j.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AtomicFilesTest {
  @Test
  void replacesTheFileAndLeavesNothingElse(@TempDir Path dir) throws IOException {
    Path target = dir.resolve("sub/report.json");
    AtomicFiles.writeString(target, "old");
    AtomicFiles.writeString(target, "new");
    assertThat(Files.readString(target)).isEqualTo("new");
    assertThat(list(target.getParent())).containsExactly(target);
  }

  @Test
  void aFailingWriterKeepsTheOldFileAndDeletesItsTemporaryFile(@TempDir Path dir) throws IOException {
    Path target = dir.resolve("ledger.csv");
    AtomicFiles.writeString(target, "old");
    assertThatThrownBy(() -> AtomicFiles.write(target, out -> {
      out.write(new byte[100_000]);
      throw new IOException("disk full (simulated)");
    })).isInstanceOf(IOException.class).hasMessageContaining("simulated");
    assertThat(Files.readString(target)).isEqualTo("old");
    assertThat(list(dir)).containsExactly(target);
  }

  @Test
  void aFolderIsNotAFile(@TempDir Path dir) throws IOException {
    Files.createDirectory(dir.resolve("out"));
    assertThatThrownBy(() -> AtomicFiles.writeString(dir.resolve("out"), "x"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("is a folder");
    assertThat(dir.resolve("out")).isDirectory();
  }

  /**
   * A writer killed with SIGKILL half-way leaves the previous file intact; its temporary file survives the kill
   * (nothing can delete it then) and is removed by the next successful write.
   */
  @Test
  void aWriterKilledMidWriteKeepsThePreviousFile(@TempDir Path dir) throws Exception {
    Path target = dir.resolve("checkpoint.zip");
    AtomicFiles.writeString(target, "epoch 1");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process child = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
        KilledWriter.class.getName(), target.toString()).redirectErrorStream(true).start();
    try (BufferedReader r = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      do {
        line = r.readLine();
      } while (line != null && !line.equals(KilledWriter.READY));
      assertThat(line).as("the child reached the middle of its write").isEqualTo(KilledWriter.READY);
      child.destroyForcibly();
      assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(Files.readString(target)).isEqualTo("epoch 1");
    List<Path> leftovers = AtomicFiles.leftovers(target);
    assertThat(leftovers).hasSize(1);
    assertThat(Files.size(leftovers.get(0))).isEqualTo(KilledWriter.BYTES_BEFORE_PAUSE);

    AtomicFiles.writeString(target, "epoch 2");
    assertThat(Files.readString(target)).isEqualTo("epoch 2");
    assertThat(list(dir)).containsExactly(target);
  }

  private static List<Path> list(Path dir) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.toList();
    }
  }

  /** Child process: starts a write, flushes part of it, says so, and waits to be killed. */
  static final class KilledWriter {
    static final String READY = "half-written";
    static final int BYTES_BEFORE_PAUSE = 1 << 20;

    public static void main(String[] args) throws IOException {
      AtomicFiles.write(Path.of(args[0]), out -> {
        out.write(new byte[BYTES_BEFORE_PAUSE]);
        out.flush();
        System.out.println(READY);
        System.out.flush();
        try {
          Thread.sleep(60_000);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        out.write("never reached".getBytes(StandardCharsets.UTF_8));
      });
    }
  }
}
