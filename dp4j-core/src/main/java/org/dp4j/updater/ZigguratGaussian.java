package org.dp4j.updater;

/**
 * Standard normal samples by the ziggurat method with 128 blocks (Marsaglia &amp; Tsang 2000), in the form of
 * Doornik 2005 ("An improved ziggurat method to generate normal random samples", ZIGNOR), which takes the block
 * index and the uniform from disjoint bits of one 64-bit word. About 99% of samples cost one word, one table
 * look-up and one comparison.
 */
final class ZigguratGaussian {
  private static final int BLOCKS = 128;
  /** Start of the tail, and the common area of the blocks (Marsaglia &amp; Tsang 2000, 128 blocks). */
  private static final double R = 3.442619855899;
  private static final double V = 9.91256303526217e-3;
  private static final double[] X = new double[BLOCKS + 1];
  private static final double[] RATIO = new double[BLOCKS];

  static {
    double f = Math.exp(-0.5 * R * R);
    X[0] = V / f;
    X[1] = R;
    X[BLOCKS] = 0;
    for (int i = 2; i < BLOCKS; i++) {
      X[i] = Math.sqrt(-2 * Math.log(V / X[i - 1] + f));
      f = Math.exp(-0.5 * X[i] * X[i]);
    }
    for (int i = 0; i < BLOCKS; i++) {
      RATIO[i] = X[i + 1] / X[i];
    }
  }

  private ZigguratGaussian() {
  }

  static double next(AesKeystream bits) {
    while (true) {
      long word = bits.nextLong();
      int i = (int) (word & (BLOCKS - 1));
      double u = 2 * ((word >>> 11) * 0x1.0p-53) - 1;    // bits 11..63; the block index uses bits 0..6
      if (Math.abs(u) < RATIO[i]) {
        return u * X[i];
      }
      if (i == 0) {
        return tail(bits, u < 0);
      }
      double x = u * X[i];
      double f0 = Math.exp(-0.5 * (X[i] * X[i] - x * x));
      double f1 = Math.exp(-0.5 * (X[i + 1] * X[i + 1] - x * x));
      if (f1 + bits.nextOpenUniform() * (f0 - f1) < 1.0) {
        return x;
      }
    }
  }

  /** Marsaglia's tail method beyond R (Marsaglia 1964). */
  private static double tail(AesKeystream bits, boolean negative) {
    double x;
    double y;
    do {
      x = Math.log(bits.nextOpenUniform()) / R;
      y = Math.log(bits.nextOpenUniform());
    } while (-2 * y < x * x);
    return negative ? x - R : R - x;
  }
}
