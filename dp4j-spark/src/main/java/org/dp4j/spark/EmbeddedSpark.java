package org.dp4j.spark;

import static org.dp4j.InvalidSettingException.checkArgument;

import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;

/**
 * A Spark context for DP-SGD: {@code local[*]} (or {@code local[k]}) inside this JVM needs nothing installed; any
 * other master is a cluster's ({@code spark://…}, {@code yarn}, {@code k8s://…}), normally reached through
 * {@code spark-submit} with the shaded application jar (README, "Spark"). Local masters bind to the loopback
 * address only and run without the web UI. Speculative execution stays off ({@link SparkDpSgdTrainer} refuses it).
 *
 * <p>On Java 17, Spark needs the JDK's internals opened to it: {@link #JAVA_17_OPTIONS} (the dp4j launcher's manifest
 * and the test configuration carry them; {@code spark-submit} adds them itself).
 *
 * <pre>{@code
 * // given: List<LabelledRecord> records
 * try (JavaSparkContext sc = EmbeddedSpark.context("local[2]", "dp4j")) {
 *   org.apache.spark.api.java.JavaRDD<LabelledRecord> data = sc.parallelize(records)
 *       .persist(org.apache.spark.storage.StorageLevel.MEMORY_ONLY());
 * }
 * }</pre>
 */
public final class EmbeddedSpark {
  /** The JVM options Spark 3.5 needs on Java 17 (the same list as Spark's own launcher adds). */
  public static final String JAVA_17_OPTIONS = "--add-opens=java.base/java.lang=ALL-UNNAMED "
      + "--add-opens=java.base/java.lang.invoke=ALL-UNNAMED --add-opens=java.base/java.lang.reflect=ALL-UNNAMED "
      + "--add-opens=java.base/java.io=ALL-UNNAMED --add-opens=java.base/java.net=ALL-UNNAMED "
      + "--add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/java.util=ALL-UNNAMED "
      + "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED "
      + "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED "
      + "--add-opens=java.base/jdk.internal.ref=ALL-UNNAMED --add-opens=java.base/sun.nio.ch=ALL-UNNAMED "
      + "--add-opens=java.base/sun.nio.cs=ALL-UNNAMED --add-opens=java.base/sun.security.action=ALL-UNNAMED "
      + "--add-opens=java.base/sun.util.calendar=ALL-UNNAMED";

  private EmbeddedSpark() {
  }

  /** A context for {@code master}; for a local master, in this JVM on the loopback address without web UI. */
  public static JavaSparkContext context(String master, String appName) {
    checkArgument(master != null && !master.isBlank(), "a Spark master is required (e.g. local[*])");
    SparkConf conf = new SparkConf().setMaster(master).setAppName(appName)
        .set("spark.speculation", "false")
        .set("spark.ui.showConsoleProgress", "false");
    if (master.startsWith("local")) {
      conf.set("spark.ui.enabled", "false")
          .set("spark.driver.host", "127.0.0.1")
          .set("spark.driver.bindAddress", "127.0.0.1");
    }
    return new JavaSparkContext(conf);
  }
}
