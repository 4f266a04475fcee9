package org.dp4j.samples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;

/**
 * Every Javadoc code example ({@code <pre>{@code …}</pre>}) in the main sources of every module compiles against
 * the real API. Each example becomes the body of a method in a class of the documented class's package, with that
 * file's imports. An example that uses objects it does not create declares them on its first lines as comments,
 * {@code // given: MultiLayerNetwork net; DataSetIterator train}, which become the method's parameters; an example
 * that declares a class or a method is compiled as class members instead.
 */
class JavadocExamplesCompileTest {
  private static final Pattern EXAMPLE = Pattern.compile("<pre>\\{@code\\s*\\n(.*?)}</pre>", Pattern.DOTALL);
  private static final Pattern GIVEN = Pattern.compile("^\\s*//\\s*given:\\s*(.*)$", Pattern.MULTILINE);
  private static final Pattern IMPORT = Pattern.compile("^import\\s+[^;]+;", Pattern.MULTILINE);
  private static final Pattern PACKAGE = Pattern.compile("^package\\s+([\\w.]+);", Pattern.MULTILINE);
  private static final Pattern MEMBER = Pattern.compile(
      "^\\s*(public |private |protected |static |final |@\\w+)*(class|interface|record|enum)\\s|"
          + "^\\s*(public |private |protected )\\S.*\\)\\s*(throws [\\w, .]+)?\\s*\\{\\s*$",
      Pattern.MULTILINE);

  /**
   * What a reader has imported: the dp4j API packages and the DL4J/ND4J types the examples use (on-demand imports,
   * so that the documented file's own single-type imports win).
   */
  private static final String READER_IMPORTS = Stream.of("java.util", "java.nio.file", "org.dp4j",
          "org.dp4j.accounting", "org.dp4j.accounting.event", "org.dp4j.accounting.ledger", "org.dp4j.accounting.pld",
          "org.dp4j.accounting.hiddenstate", "org.dp4j.clipping", "org.dp4j.data", "org.dp4j.io", "org.dp4j.mbcd",
          "org.dp4j.noise", "org.dp4j.prox", "org.dp4j.sampling", "org.dp4j.training", "org.dp4j.updater",
          "org.dp4j.listeners", "org.nd4j.linalg.api.ndarray", "org.nd4j.linalg.api.buffer", "org.nd4j.linalg.dataset", "org.nd4j.linalg.dataset.api.iterator",
          "org.nd4j.linalg.factory", "org.nd4j.linalg.activations", "org.nd4j.linalg.learning.config",
          "org.nd4j.linalg.lossfunctions", "org.deeplearning4j.nn.conf", "org.deeplearning4j.nn.conf.layers",
          "org.deeplearning4j.nn.multilayer", "org.deeplearning4j.nn.graph", "org.deeplearning4j.nn.transferlearning",
          "org.deeplearning4j.earlystopping", "org.deeplearning4j.earlystopping.saver",
          "org.deeplearning4j.earlystopping.scorecalc", "org.deeplearning4j.earlystopping.termination",
          "org.deeplearning4j.earlystopping.trainer")
      .map(p -> "import " + p + ".*;\n").collect(Collectors.joining());

  @Test
  void everyJavadocExampleCompiles() throws IOException {
    Path root = Path.of(System.getProperty("user.dir")).toAbsolutePath().getParent();
    List<Example> examples = new ArrayList<>();
    try (Stream<Path> modules = Files.list(root)) {
      for (Path module : modules.filter(p -> p.getFileName().toString().startsWith("dp4j-")).sorted().toList()) {
        Path main = module.resolve("src/main/java");
        if (!Files.isDirectory(main)) {
          continue;
        }
        try (Stream<Path> files = Files.walk(main)) {
          for (Path file : files.filter(p -> p.toString().endsWith(".java")).sorted().toList()) {
            examples.addAll(examplesIn(root.relativize(file).toString(), Files.readString(file)));
          }
        }
      }
    }
    assertThat(examples).as("Javadoc examples found under %s", root).hasSizeGreaterThan(50);

    JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    try (StandardJavaFileManager files = compiler.getStandardFileManager(diagnostics, Locale.ROOT, null)) {
      Path out = Files.createTempDirectory("javadoc-examples");
      List<String> options = List.of("-classpath", classPath, "-d", out.toString(), "-proc:none", "-nowarn",
          "-Xmaxerrs", "100000");
      compiler.getTask(null, files, diagnostics, options, null, examples.stream().map(Example::source).toList())
          .call();
    }
    List<String> errors = diagnostics.getDiagnostics().stream()
        .filter(d -> d.getKind() == Diagnostic.Kind.ERROR)
        .map(d -> ((Source) d.getSource()).origin + ": " + d.getMessage(Locale.ROOT).lines().map(String::strip)
            .collect(Collectors.joining(" ")))
        .distinct()
        .collect(Collectors.toList());
    assertThat(errors).as("Javadoc examples that do not compile (%d examples checked)", examples.size()).isEmpty();
  }

  private static List<Example> examplesIn(String path, String text) {
    Matcher pkg = PACKAGE.matcher(text);
    String packageName = pkg.find() ? pkg.group(1) : "";
    StringBuilder imports = new StringBuilder();
    Matcher imp = IMPORT.matcher(text);
    while (imp.find()) {
      imports.append(imp.group()).append('\n');
    }
    List<Example> list = new ArrayList<>();
    Matcher m = EXAMPLE.matcher(text);
    while (m.find()) {
      int line = (int) text.substring(0, m.start()).lines().count();
      String code = unescape(m.group(1).lines().map(l -> l.replaceFirst("^\\s*\\* ?", ""))
          .collect(Collectors.joining("\n")));
      list.add(new Example(path + ":" + line, packageName, imports.toString(), code, list.size()));
    }
    return list;
  }

  private static String unescape(String s) {
    return s.replace("&lt;", "<").replace("&gt;", ">").replace("&#64;", "@").replace("&#42;", "*")
        .replace("&amp;", "&");
  }

  private record Example(String origin, String packageName, String imports, String code, int index) {
    JavaFileObject source() {
      String simple = "JavadocExample_" + Integer.toHexString(origin.hashCode()) + "_" + index;
      List<String> given = new ArrayList<>();
      Matcher g = GIVEN.matcher(code);
      while (g.find()) {
        for (String declaration : g.group(1).split(";")) {
          if (!declaration.isBlank()) {
            given.add(declaration.strip());
          }
        }
      }
      String body = MEMBER.matcher(code).find() ? code
          : "void example(" + String.join(", ", given) + ") throws Exception {\n" + code + "\n}";
      String text = (packageName.isEmpty() ? "" : "package " + packageName + ";\n") + imports + READER_IMPORTS
          + "@SuppressWarnings(\"all\")\nclass " + simple + " {\n" + body + "\n}\n";
      return new Source(origin, packageName.replace('.', '/') + "/" + simple, text);
    }
  }

  private static final class Source extends SimpleJavaFileObject {
    final String origin;
    private final String text;

    Source(String origin, String path, String text) {
      super(URI.create("string:///" + path + Kind.SOURCE.extension), Kind.SOURCE);
      this.origin = origin;
      this.text = text;
    }

    @Override
    public CharSequence getCharContent(boolean ignoreEncodingErrors) {
      return text;
    }
  }
}
