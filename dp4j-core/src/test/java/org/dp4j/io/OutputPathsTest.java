package org.dp4j.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OutputPathsTest {
  private static Map<String, Path> outputs(Object... nameAndPath) {
    Map<String, Path> m = new LinkedHashMap<>();
    for (int i = 0; i < nameAndPath.length; i += 2) {
      m.put((String) nameAndPath[i], (Path) nameAndPath[i + 1]);
    }
    return m;
  }

  @Test
  void createsMissingFoldersAndLeavesNoProbeBehind(@TempDir Path dir) throws IOException {
    OutputPaths.check(outputs("--report", dir.resolve("a/b/report.json"), "--csv", dir.resolve("ledger.csv")),
        Map.of());
    assertThat(dir.resolve("a/b")).isDirectory();
    try (Stream<Path> s = Files.list(dir.resolve("a/b"))) {
      assertThat(s.toList()).isEmpty();
    }
  }

  @Test
  void refusesAFolder(@TempDir Path dir) throws IOException {
    Files.createDirectory(dir.resolve("chart"));
    assertThatThrownBy(() -> OutputPaths.check(outputs("--chart", dir.resolve("chart")), Map.of()))
        .isInstanceOf(OutputPathException.class).hasMessageContaining("--chart").hasMessageContaining("is a folder");
    assertThat(dir.resolve("chart")).isDirectory();
  }

  @Test
  void refusesAFileWhereAFolderIsNeeded(@TempDir Path dir) throws IOException {
    Files.writeString(dir.resolve("plain"), "x");
    assertThatThrownBy(() -> OutputPaths.check(outputs("--report", dir.resolve("plain/report.json")), Map.of()))
        .isInstanceOf(OutputPathException.class).hasMessageContaining("is a file, not a folder");
  }

  @Test
  void refusesTwoOutputsNamingOneFileEvenThroughASymlink(@TempDir Path dir) throws IOException {
    Files.createDirectory(dir.resolve("real"));
    Files.createSymbolicLink(dir.resolve("link"), dir.resolve("real"));
    assertThatThrownBy(() -> OutputPaths.check(outputs("--checkpoint", dir.resolve("real/o"),
        "--report", dir.resolve("link/./o")), Map.of()))
        .isInstanceOf(OutputPathException.class).hasMessageContaining("--checkpoint and --report name the same file");
  }

  @Test
  void refusesReplacingAnInputOrWritingIntoAnInputFolder(@TempDir Path dir) throws IOException {
    Path ckpt = Files.writeString(dir.resolve("run.zip"), "x");
    assertThatThrownBy(() -> OutputPaths.check(outputs("--report", ckpt), Map.of("--resume", ckpt)))
        .isInstanceOf(OutputPathException.class).hasMessageContaining("is also the input --resume");
    Path data = Files.createDirectory(dir.resolve("data"));
    assertThatThrownBy(() -> OutputPaths.check(outputs("--csv", data.resolve("x.csv")), Map.of("--data-dir", data)))
        .isInstanceOf(OutputPathException.class).hasMessageContaining("inside the input folder --data-dir");
  }

  @Test
  void refusesAnUnwritableFolder() {
    // /proc is read-only even for root, which chmod-based tests cannot rely on.
    Path proc = Path.of("/proc/dp4j-report.json");
    org.junit.jupiter.api.Assumptions.assumeTrue(Files.isDirectory(Path.of("/proc")), "Linux /proc");
    assertThatThrownBy(() -> OutputPaths.check(outputs("--report", proc), Map.of()))
        .isInstanceOf(OutputPathException.class).hasMessageContaining("--report").hasMessageContaining("not writable");
  }
}
