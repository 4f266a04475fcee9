package org.dp4j.bench;

import java.util.Arrays;

/**
 * Interleaved timing of training steps for the benchmarks (not tests): blocks of each step in turn, so that load
 * from other processes on a shared machine falls on all of them alike; min, 10th percentile and median per step.
 */
public final class StepTimings {
  private static final int BLOCK = 10;

  private StepTimings() {
  }

  /** Milliseconds per step, {@code rounds} blocks of {@value #BLOCK} steps each, after three warm-up rounds. */
  public static double[][] time(int rounds, Runnable... steps) {
    double[][] ms = new double[steps.length][rounds * BLOCK];
    for (int round = -3; round < rounds; round++) {      // three warm-up rounds, overwritten
      for (int s = 0; s < steps.length; s++) {
        for (int i = 0; i < BLOCK; i++) {
          long start = System.nanoTime();
          steps[s].run();
          ms[s][Math.max(round, 0) * BLOCK + i] = (System.nanoTime() - start) / 1e6;
        }
      }
    }
    return ms;
  }

  public static int stepsPer(int rounds) {
    return rounds * BLOCK;
  }

  public static double quantile(double[] xs, double q) {
    double[] s = xs.clone();
    Arrays.sort(s);
    return s[(int) Math.floor(q * (s.length - 1))];
  }

  /** One row: label, min, p10, median. */
  public static void print(String label, double[] ms) {
    System.out.printf("  %-30s %7.2f %7.2f %7.2f%n", label, quantile(ms, 0), quantile(ms, 0.1), quantile(ms, 0.5));
  }

  /** The ratio of two rows' min, p10 and median. */
  public static void printRatio(String label, double[] numerator, double[] denominator) {
    System.out.printf("  %-30s %7.3f %7.3f %7.3f%n", label, quantile(numerator, 0) / quantile(denominator, 0),
        quantile(numerator, 0.1) / quantile(denominator, 0.1), quantile(numerator, 0.5) / quantile(denominator, 0.5));
  }
}
