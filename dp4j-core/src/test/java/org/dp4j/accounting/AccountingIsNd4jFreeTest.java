package org.dp4j.accounting;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** docs/architecture.md#packages: the accounting package is math on doubles and never imports ND4J or DL4J. */
class AccountingIsNd4jFreeTest {
  @Test
  void noSourceFileOfTheAccountingPackageImportsNd4jOrDl4j() throws IOException {
    Path root = Path.of(System.getProperty("user.dir"), "src/main/java/org/dp4j/accounting");
    List<Path> sources;
    try (Stream<Path> files = Files.walk(root)) {
      sources = files.filter(p -> p.toString().endsWith(".java")).toList();
    }
    assertThat(sources).hasSizeGreaterThan(30);
    for (Path source : sources) {
      assertThat(Files.readString(source)).as(source.toString())
          .doesNotContain("import org.nd4j", "import org.deeplearning4j", "org.nd4j.linalg");
    }
  }
}
