package org.dp4j.accounting.hiddenstate;

/**
 * log((1/n)·Σ e^{x_i}), the average over a secret uniform position used by hidden-state bounds (joint
 * convexity, Ye &amp; Shokri Lemma 5.1; Chen &amp; Liu Eq. 39).
 */
final class LogMeanExp {
  private LogMeanExp() {}

  /**
   * Computed as max + log1p(mean(expm1(x − max))): no overflow for large x and full relative accuracy when
   * every x is tiny (where log(Σe^x) − log n would cancel). +∞ if any x is +∞; x must not be empty or NaN.
   */
  static double of(double[] x) {
    double max = Double.NEGATIVE_INFINITY;
    for (double v : x) {
      max = Math.max(max, v);
    }
    if (!Double.isFinite(max)) {
      return max;
    }
    double sum = 0;
    for (double v : x) {
      sum += Math.expm1(v - max);
    }
    return max + Math.log1p(sum / x.length);
  }
}
