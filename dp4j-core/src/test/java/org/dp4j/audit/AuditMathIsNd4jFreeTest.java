package org.dp4j.audit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * docs/auditing.md#code: the audit's statistics (the package org.dp4j.audit itself, not its whitebox and blackbox
 * subpackages, which train networks) are math on doubles and never import ND4J or DL4J.
 */
class AuditMathIsNd4jFreeTest {
  @Test
  void noSourceFileOfTheAuditPackageImportsNd4jOrDl4j() throws IOException {
    Path root = Path.of(System.getProperty("user.dir"), "src/main/java/org/dp4j/audit");
    List<Path> sources;
    try (Stream<Path> files = Files.list(root)) {
      sources = files.filter(p -> p.toString().endsWith(".java")).toList();
    }
    assertThat(sources).extracting(p -> p.getFileName().toString())
        .contains("OneRunAudit.java", "CanaryGuesses.java", "GuessPlan.java");
    for (Path source : sources) {
      assertThat(Files.readString(source)).as(source.toString())
          .doesNotContain("import org.nd4j", "import org.deeplearning4j", "org.nd4j.linalg");
    }
  }
}
