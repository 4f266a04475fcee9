package org.dp4j;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * The dp4j version that produced a report (from the build's {@code dp4j-version.properties}), so a number in an
 * old report can be traced to the code that computed it.
 *
 * <pre>{@code
 * String v = Dp4jVersion.get();   // e.g. "0.1.0-SNAPSHOT"
 * }</pre>
 */
public final class Dp4jVersion {
  private static final String VERSION = load();

  private Dp4jVersion() {}

  public static String get() {
    return VERSION;
  }

  private static String load() {
    try (InputStream in = Dp4jVersion.class.getResourceAsStream("dp4j-version.properties")) {
      if (in == null) {
        return "unknown (dp4j-version.properties missing from the class path)";
      }
      Properties p = new Properties();
      p.load(in);
      return p.getProperty("version", "unknown");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read dp4j-version.properties", e);
    }
  }
}
