package org.dp4j.accounting.pld;

import static org.dp4j.InvalidSettingException.checkArgument;

/**
 * In-place iterative radix-2 fast Fourier transform on separate real and imaginary arrays of one
 * power-of-two length. Twiddle factors come from a table of directly computed cos/sin values (each
 * within an ulp), not from a recurrence. Error: each butterfly a ± w·b adds a relative error of at
 * most η = μ + γ₄(√2 + μ) ≈ 5u (μ the twiddle error; Higham, <i>Accuracy and Stability of
 * Numerical Algorithms</i>, 2nd ed., §24.1, proof of Thm 24.2). Every output is built by log₂N levels
 * of butterflies over |twiddle| = 1, so by induction on the levels each computed coefficient is within
 * log₂N·η·Σ_j|x_j| of the exact one (componentwise form of the same bound; the inverse adds the
 * factor 1/N). {@link #RELATIVE_ERROR_PER_LEVEL} is η, rounded up to 8u.
 *
 * <pre>{@code
 * RadixTwoFft fft = new RadixTwoFft(8);
 * double[] re = {1, 2, 3, 4, 0, 0, 0, 0}, im = new double[8];
 * fft.forward(re, im);
 * fft.inverse(re, im);   // back to {1, 2, 3, 4, 0, 0, 0, 0} up to rounding
 * }</pre>
 */
final class RadixTwoFft {
  /** η of Higham's bound: 5 units of roundoff (twiddle error ≤ u plus γ₄(√2 + u)), rounded up. */
  public static final double RELATIVE_ERROR_PER_LEVEL = 8 * Math.ulp(1.0);

  private final int size;
  private final int levels;
  private final double[] cos;
  private final double[] sin;

  /** A transform of length {@code size}, a power of two ≥ 1. */
  public RadixTwoFft(int size) {
    checkArgument(size >= 1 && Integer.bitCount(size) == 1, "FFT size must be a power of two >= 1, was %s", size);
    this.size = size;
    this.levels = Integer.numberOfTrailingZeros(size);
    int half = Math.max(1, size / 2);
    cos = new double[half];
    sin = new double[half];
    for (int k = 0; k < half; k++) {
      double angle = 2 * Math.PI * k / size;
      cos[k] = Math.cos(angle);
      sin[k] = Math.sin(angle);
    }
  }

  public int size() {
    return size;
  }

  /** log₂ of the size: the number of butterfly levels. */
  public int levels() {
    return levels;
  }

  /** X_k = Σ_j x_j e^{−2πijk/N}, in place. */
  public void forward(double[] re, double[] im) {
    transform(re, im, -1);
  }

  /** x_j = (1/N) Σ_k X_k e^{+2πijk/N}, in place. */
  public void inverse(double[] re, double[] im) {
    transform(re, im, +1);
    double scale = 1.0 / size;
    for (int i = 0; i < size; i++) {
      re[i] *= scale;
      im[i] *= scale;
    }
  }

  private void transform(double[] re, double[] im, int sign) {
    checkArgument(re.length == size && im.length == size, "arrays must have length %s, were %s and %s", size,
        re.length, im.length);
    bitReverse(re, im);
    for (int len = 2; len <= size; len <<= 1) {
      int halfLen = len >> 1;
      int stride = size / len;
      for (int start = 0; start < size; start += len) {
        for (int j = 0; j < halfLen; j++) {
          double wr = cos[j * stride];
          double wi = sign * sin[j * stride];
          int a = start + j;
          int b = a + halfLen;
          double tr = re[b] * wr - im[b] * wi;
          double ti = re[b] * wi + im[b] * wr;
          re[b] = re[a] - tr;
          im[b] = im[a] - ti;
          re[a] += tr;
          im[a] += ti;
        }
      }
    }
  }

  private void bitReverse(double[] re, double[] im) {
    for (int i = 1, j = 0; i < size; i++) {
      int bit = size >> 1;
      for (; (j & bit) != 0; bit >>= 1) {
        j ^= bit;
      }
      j ^= bit;
      if (i < j) {
        double t = re[i];
        re[i] = re[j];
        re[j] = t;
        t = im[i];
        im[i] = im[j];
        im[j] = t;
      }
    }
  }
}
