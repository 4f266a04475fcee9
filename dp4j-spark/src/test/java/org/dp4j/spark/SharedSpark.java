package org.dp4j.spark;

import org.apache.spark.api.java.JavaSparkContext;

/**
 * One Spark context for every test of this module (a context takes seconds to start): local[2,3] — two threads,
 * and up to three attempts per task so that Spark's own retry can be exercised (dp4j refuses the retried attempt).
 */
final class SharedSpark {
  private static JavaSparkContext context;

  private SharedSpark() {
  }

  static synchronized JavaSparkContext context() {
    if (context == null) {
      context = EmbeddedSpark.context("local[2,3]", "dp4j-spark-tests");
    }
    return context;
  }
}
