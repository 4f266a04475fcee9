package org.dp4j;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every package of every module's main sources says what it is for in a {@code package-info.java} with a Javadoc
 * comment of at least one sentence, so that the generated API documentation has no blank package pages.
 */
class PackageDocumentationTest {

  @Test
  void everyPackageHasADocumentedPackageInfo() throws IOException {
    Path root = Path.of(System.getProperty("user.dir")).toAbsolutePath().getParent();
    List<Path> packages = new ArrayList<>();
    try (Stream<Path> modules = Files.list(root)) {
      for (Path module : modules.filter(p -> p.getFileName().toString().startsWith("dp4j-")).toList()) {
        Path main = module.resolve("src/main/java");
        if (Files.isDirectory(main)) {
          try (Stream<Path> dirs = Files.walk(main)) {
            packages.addAll(dirs.filter(Files::isDirectory).filter(PackageDocumentationTest::hasJavaSources).toList());
          }
        }
      }
    }
    assertThat(packages).as("packages under %s", root).hasSizeGreaterThan(15);
    List<String> undocumented = new ArrayList<>();
    for (Path dir : packages) {
      Path info = dir.resolve("package-info.java");
      String text = Files.exists(info) ? Files.readString(info) : "";
      if (!text.matches("(?s).*/\\*\\*.*\\w+.*\\..*\\*/\\s*package\\s+[\\w.]+;.*")) {
        undocumented.add(root.relativize(dir).toString());
      }
    }
    assertThat(undocumented).as("packages without a documented package-info.java").isEmpty();
  }

  private static boolean hasJavaSources(Path dir) {
    try (Stream<Path> files = Files.list(dir)) {
      return files.anyMatch(f -> f.toString().endsWith(".java") && !f.endsWith("package-info.java"));
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
