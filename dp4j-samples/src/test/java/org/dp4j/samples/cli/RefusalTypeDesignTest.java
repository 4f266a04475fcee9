package org.dp4j.samples.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Issue 16: a refusal of bad input has its own type ({@link org.dp4j.InvalidSettingException}), so the command line
 * can tell it from a bug. A source scan keeps library code from checking its arguments with Guava's {@code
 * checkArgument} (whose plain IllegalArgumentException the command line reports as an internal error). The one
 * reviewed exception is {@code RunReport}, whose checks catch bugs of the code that builds a report.
 */
class RefusalTypeDesignTest {
  @Test
  void libraryArgumentChecksThrowTheRefusalType() throws IOException {
    Path root = Path.of("").toAbsolutePath();
    while (root != null && !Files.exists(root.resolve("dp4j-listeners"))) {
      root = root.getParent();
    }
    assumeTrue(root != null, "run from inside the repository");
    List<String> guava = new ArrayList<>();
    int typed = 0;
    for (String module : List.of("dp4j-core", "dp4j-listeners", "dp4j-spark")) {
      Path src = root.resolve(module).resolve("src/main/java");
      if (!Files.isDirectory(src)) {
        continue;
      }
      try (Stream<Path> files = Files.walk(src)) {
        for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
          String text = Files.readString(f);
          if (text.contains("import static com.google.common.base.Preconditions.checkArgument;")) {
            guava.add(f.getFileName().toString());
          }
          if (text.contains("import static org.dp4j.InvalidSettingException.checkArgument;")) {
            typed++;
          }
        }
      }
    }
    assertThat(typed).as("library classes using the typed check").isGreaterThan(100);
    assertThat(guava).as("use org.dp4j.InvalidSettingException.checkArgument (see NOTES or docs/reports.md#refusals)")
        .containsOnly("RunReport.java");
  }
}
