package org.dp4j.samples.bench;

import java.util.Arrays;

/**
 * The timings of one benchmark case in milliseconds, with the quantiles reported (min, p10, median, max) and the
 * ratios to a baseline measured interleaved in the same process (on a shared machine the low quantiles are the
 * most reproducible, so all three ratios are given).
 *
 * @param name case name, e.g. {@code mlp.dp.t1}
 * @param baseline name of the case this one is compared with, or empty
 * @param ms one value per timed run
 */
public record Measurement(String name, String baseline, double[] ms) {

  public double min() {
    return quantile(0);
  }

  public double p10() {
    return quantile(0.1);
  }

  public double median() {
    return quantile(0.5);
  }

  public double max() {
    return quantile(1);
  }

  public int runs() {
    return ms.length;
  }

  /** Lower empirical quantile (no interpolation). */
  public double quantile(double q) {
    double[] sorted = ms.clone();
    Arrays.sort(sorted);
    return sorted[(int) Math.floor(q * (sorted.length - 1))];
  }
}
