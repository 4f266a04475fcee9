/**
 * Benchmarks: private steps against DL4J's non-private {@code fit} on the same batch, interleaved in one process
 * ({@link org.dp4j.samples.bench.InterleavedTimer}), and accounting speed. Run with {@code OMP_NUM_THREADS=1} on small
 * machines; results are ratios, not absolute times.
 */
package org.dp4j.samples.bench;
