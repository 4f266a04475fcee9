package org.dp4j.samples.bench;

import java.util.Arrays;
import java.util.function.DoubleSupplier;
import org.dp4j.accounting.Orders;
import org.dp4j.accounting.RdpConversion;
import org.dp4j.accounting.SampledGaussianAccountant;
import org.dp4j.accounting.SampledGaussianMechanism;
import org.dp4j.accounting.SgmCalibration;
import org.dp4j.accounting.event.DpEvent;
import org.dp4j.accounting.pld.PldAccountant;

/**
 * Benchmark of the composition accountant (not a test): ε of 10⁵ sampled-Gaussian steps over the
 * default 156 orders (per-step curve, composition and conversion from scratch each time), one
 * noise calibration, and the PLD accountant (discretisation, FFT composition of both directions and
 * the ε query, from scratch each time) for 10⁴ to 10⁵ steps. Prints the median and minimum of
 * repeated runs after a warm-up.
 *
 * <pre>java -cp dp4j-samples/target/dp4j.jar org.dp4j.samples.bench.AccountingBenchmark</pre>
 */
public final class AccountingBenchmark {
  private AccountingBenchmark() {}

  public static void main(String[] args) {
    double q = 256.0 / 60000;
    long steps = 100_000;
    time("epsilon, 1e5 SGM steps, default orders", 200, () -> new SampledGaussianAccountant(Orders.DEFAULT)
        .compose(new SampledGaussianMechanism(q, 1.1), steps)
        .guarantee(1e-5, RdpConversion.IMPROVED).epsilon());
    time("calibrate z for eps=3, delta=1e-5, q=256/60000, T=14063", 10, () -> SgmCalibration
        .noiseMultiplier(3, 1e-5, q, 14063, Orders.DEFAULT, RdpConversion.IMPROVED).noiseMultiplier());
    pld("PLD epsilon, 1e4 SGM steps, tolerance 0.02", q, 10_000, 0.02);
    pld("PLD epsilon, 14063 SGM steps (MNIST), tolerance 0.005", q, 14_063, 0.005);
    pld("PLD epsilon, 1e5 SGM steps, tolerance 0.05", q, 100_000, 0.05);
  }

  private static void pld(String label, double q, long steps, double tolerance) {
    PldAccountant accountant = PldAccountant.withTolerance(tolerance);
    time(label, 5, () -> accountant.compose(DpEvent.sampledGaussian(q, 1.1).times(steps)).epsilon(1e-5).epsilon());
  }

  private static void time(String label, int repeats, DoubleSupplier work) {
    double sink = 0;
    for (int i = 0; i < Math.max(3, repeats / 5); i++) {
      sink += work.getAsDouble();
    }
    long[] nanos = new long[repeats];
    double result = 0;
    for (int i = 0; i < repeats; i++) {
      long t0 = System.nanoTime();
      result = work.getAsDouble();
      nanos[i] = System.nanoTime() - t0;
      sink += result;
    }
    Arrays.sort(nanos);
    System.out.printf("%-60s median %8.3f ms  min %8.3f ms  (result %.6f, %d runs)%n", label,
        nanos[repeats / 2] / 1e6, nanos[0] / 1e6, result, repeats);
    if (Double.isNaN(sink)) {
      System.out.println("unexpected NaN");
    }
  }
}
