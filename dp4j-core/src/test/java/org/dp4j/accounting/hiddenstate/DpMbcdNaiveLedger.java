package org.dp4j.accounting.hiddenstate;

/**
 * Test reference only: the step recursion of docs/errata.md#dp-mbcd-step-recursion written literally, updating all N positions
 * at every step (O(N²) per epoch). The production {@link DpMbcdLedger} must agree with it.
 */
final class DpMbcdNaiveLedger {
  private final double eta;
  private final double lf;
  private final double lt;
  private final double sg;
  private final int b;
  private final double exponent;
  private final NoiseTemperatureSchedule schedule;
  final double[] g;
  double invC;
  private long t;

  DpMbcdNaiveLedger(double eta, double lf, double lt, double sg, int b, int batches, boolean paperMode,
      NoiseTemperatureSchedule schedule) {
    this.eta = eta;
    this.lf = lf;
    this.lt = lt;
    this.sg = sg;
    this.b = b;
    this.exponent = paperMode ? 1 / (lt * lt) : 1;
    this.schedule = schedule;
    this.g = new double[batches];
  }

  void step() {
    int n = g.length;
    int k = (int) (t / n);
    int j = (int) (t % n);
    double o = schedule.temperature(k, j);
    double lam = invC == 0 ? 0 : Math.pow(1 + 2 * eta * o / (lf * lf * invC), -exponent);
    double delta = eta * sg * sg / (4.0 * b * b * o);
    for (int j0 = 0; j0 < n; j0++) {
      g[j0] = j0 == j ? g[j0] + delta : g[j0] * lam;
    }
    invC = (lf * lt) * (lf * lt) * invC + 2 * eta * lt * lt * o;
    t++;
  }

  double rdp(double alpha) {
    double m = Double.NEGATIVE_INFINITY;
    for (double v : g) {
      m = Math.max(m, (alpha - 1) * alpha * v);
    }
    double s = 0;
    for (double v : g) {
      s += Math.expm1((alpha - 1) * alpha * v - m); // log1p(mean(expm1)) keeps tiny bounds accurate
    }
    return (m + Math.log1p(s / g.length)) / (alpha - 1);
  }
}
