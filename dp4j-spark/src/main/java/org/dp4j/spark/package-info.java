/**
 * Synchronous DP-SGD on Apache Spark ({@link org.dp4j.spark.SparkDpSgdTrainer}): executors Poisson-sample their
 * records with secure coins and return only clipped-gradient sums; the driver adds the noise once, applies the
 * update and steps the same privacy ledger as on one machine. A retried task refuses to run, so no sum is counted
 * twice. See docs/spark.md.
 */
package org.dp4j.spark;
