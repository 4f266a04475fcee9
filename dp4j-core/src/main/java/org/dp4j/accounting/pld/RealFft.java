package org.dp4j.accounting.pld;

import static org.dp4j.InvalidSettingException.checkArgument;

/**
 * Fourier transform of a real sequence of power-of-two length N ≥ 2 through one complex
 * {@link RadixTwoFft} of length N/2 (even samples as real parts, odd samples as imaginary parts,
 * then one split step X_k = E_k + e^{−2πik/N} O_k; Press et al., <i>Numerical Recipes</i>, 3rd ed.,
 * §12.3.2). Only X_0 … X_{N/2} are kept: the rest is their complex conjugate. The split step is one
 * more butterfly level, so each coefficient stays within log₂N·η·Σ|x_j| of the exact one
 * ({@link RadixTwoFft#RELATIVE_ERROR_PER_LEVEL}).
 *
 * <pre>{@code
 * RealFft fft = new RealFft(8);
 * double[] re = new double[5], im = new double[5];
 * fft.forward(new double[] {1, 2, 3, 4, 0, 0, 0, 0}, re, im);
 * double[] x = new double[8];
 * fft.inverse(re, im, x);     // {1, 2, 3, 4, 0, 0, 0, 0} up to rounding
 * }</pre>
 */
final class RealFft {
  private final int size;
  private final int half;
  private final RadixTwoFft complex;
  private final double[] cos;
  private final double[] sin;
  private final double[] workRe;
  private final double[] workIm;

  /** A transform of real sequences of length {@code size}, a power of two ≥ 2. */
  public RealFft(int size) {
    checkArgument(size >= 2 && Integer.bitCount(size) == 1, "real FFT size must be a power of two >= 2, was %s",
        size);
    this.size = size;
    this.half = size / 2;
    this.complex = new RadixTwoFft(half);
    cos = new double[half + 1];
    sin = new double[half + 1];
    for (int k = 0; k <= half; k++) {
      double angle = 2 * Math.PI * k / size;
      cos[k] = Math.cos(angle);
      sin[k] = Math.sin(angle);
    }
    workRe = new double[half];
    workIm = new double[half];
  }

  public int size() {
    return size;
  }

  /** cos(2πm/N) from the table (within u), m in [0, N). */
  public double cosine(long m) {
    int i = (int) (m <= half ? m : size - m);
    return cos[i];
  }

  /** sin(2πm/N) from the table (within u), m in [0, N). */
  public double sine(long m) {
    return m <= half ? sin[(int) m] : -sin[(int) (size - m)];
  }

  /** log₂N, the butterfly levels of the error bound. */
  public int levels() {
    return complex.levels() + 1;
  }

  /** X_k = Σ_j x_j e^{−2πijk/N} for k = 0 … N/2, into re/im of length N/2 + 1. */
  public void forward(double[] x, double[] re, double[] im) {
    checkArgument(x.length == size && re.length == half + 1 && im.length == half + 1,
        "need x of length %s and outputs of length %s", size, half + 1);
    for (int j = 0; j < half; j++) {
      workRe[j] = x[2 * j];
      workIm[j] = x[2 * j + 1];
    }
    complex.forward(workRe, workIm);
    for (int k = 0; k <= half; k++) {
      double zr = workRe[k % half];
      double zi = workIm[k % half];
      double cr = workRe[(half - k) % half];
      double ci = -workIm[(half - k) % half];   // conj(Z_{n−k})
      double er = 0.5 * (zr + cr);
      double ei = 0.5 * (zi + ci);
      // O_k = (Z_k − conj(Z_{n−k})) / (2i)
      double or = 0.5 * (zi - ci);
      double oi = -0.5 * (zr - cr);
      // W^k = e^{−2πik/N} = cos − i sin
      re[k] = er + cos[k] * or + sin[k] * oi;
      im[k] = ei + cos[k] * oi - sin[k] * or;
    }
  }

  /** The real x of length N whose spectrum is (re, im) for k = 0 … N/2 (Hermitian symmetry assumed). */
  public void inverse(double[] re, double[] im, double[] x) {
    checkArgument(x.length == size && re.length == half + 1 && im.length == half + 1,
        "need x of length %s and inputs of length %s", size, half + 1);
    for (int k = 0; k < half; k++) {
      double xr = re[k];
      double xi = im[k];
      double cr = re[half - k];
      double ci = -im[half - k];   // conj(X_{n−k})
      double er = 0.5 * (xr + cr);
      double ei = 0.5 * (xi + ci);
      double dr = 0.5 * (xr - cr);
      double di = 0.5 * (xi - ci);
      // O_k = d · W^{−k} = d · (cos + i sin)
      double or = dr * cos[k] - di * sin[k];
      double oi = dr * sin[k] + di * cos[k];
      // Z_k = E_k + i O_k
      workRe[k] = er - oi;
      workIm[k] = ei + or;
    }
    complex.inverse(workRe, workIm);
    for (int j = 0; j < half; j++) {
      x[2 * j] = workRe[j];
      x[2 * j + 1] = workIm[j];
    }
  }
}
