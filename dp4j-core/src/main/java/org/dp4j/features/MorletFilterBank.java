package org.dp4j.features;

import static com.google.common.base.Preconditions.checkElementIndex;
import static org.dp4j.InvalidSettingException.checkArgument;

/**
 * The 2-D Morlet filter bank of a scattering transform, in the Fourier domain: J·L band-pass wavelets
 * ψ<sub>j,θ</sub> (scale 2<sup>j</sup>, j &lt; J; angle index θ &lt; L) and one Gaussian low-pass φ<sub>J</sub>, on a
 * size×size grid (row-major arrays of size², frequency index 0 first, as a DFT).
 *
 * <p>The wavelets are Morlet wavelets (Bruna &amp; Mallat 2013, Sec. 3.1): a Gabor function
 * g(u) = exp(−uᵀ R D R⁻¹ u / (2σ²) + i ξ (u₁ cos t + u₂ sin t)) / (2πσ²/s), D = diag(1, s²), minus a multiple of its
 * envelope so that its mean is exactly zero (ψ̂(0) = 0), periodised over 5×5 copies of the grid. The parameters are
 * those of Kymatio's {@code Scattering2D}, which Tramèr &amp; Boneh 2021 used for their DP ScatterNet features:
 * σ = 0.8·2<sup>j</sup>, ξ = 3π/(4·2<sup>j</sup>), slant s = 4/L, angle t = (L/2 − 1 − θ)π/L; φ has σ = 0.8·2<sup>J−1</sup>
 * and slant 1. Kymatio divides by 2·3.1415·σ²/s (not π); so does this class, to give the same features. Filters are
 * the real part of the DFT of the spatial filter (the imaginary part vanishes up to rounding).
 *
 * <pre>{@code
 * MorletFilterBank bank = MorletFilterBank.of(36, 2, 8);
 * double[] psi = bank.psi(1, 3);          // 36·36 Fourier coefficients of ψ_{1,3}
 * double[] lp = bank.littlewoodPaley();   // between 0.12 and 1.0001 for this bank
 * }</pre>
 */
public final class MorletFilterBank {
  /** Kymatio's rounded π in the Gabor normalisation (kept so the features match Kymatio's). */
  private static final double KYMATIO_PI = 3.1415;
  private final int size;
  private final int scales;
  private final int angles;
  private final double[][] psi;
  private final double[] phi;

  private MorletFilterBank(int size, int scales, int angles) {
    this.size = size;
    this.scales = scales;
    this.angles = angles;
    this.psi = new double[scales * angles][];
    for (int j = 0; j < scales; j++) {
      for (int t = 0; t < angles; t++) {
        double theta = (angles / 2 - 1 - t) * Math.PI / angles;
        psi[j * angles + t] = morletHat(size, 0.8 * Math.pow(2, j), theta, 0.75 * Math.PI / Math.pow(2, j),
            4.0 / angles);
      }
    }
    this.phi = realDft(gabor(size, 0.8 * Math.pow(2, scales - 1), 0, 0, 1.0));
  }

  /**
   * The bank for size×size signals with J = {@code scales} scales and L = {@code angles} angles.
   *
   * @throws IllegalArgumentException unless size is a positive multiple of 2<sup>J</sup>, J ≥ 1 and L ≥ 1
   */
  public static MorletFilterBank of(int size, int scales, int angles) {
    checkArgument(scales >= 1 && scales <= 8, "scales J must be in [1, 8], was %s", scales);
    checkArgument(angles >= 1 && angles <= 32, "angles L must be in [1, 32], was %s", angles);
    checkArgument(size > 0 && size % (1 << scales) == 0, "size must be a positive multiple of 2^J = %s, was %s",
        1 << scales, size);
    return new MorletFilterBank(size, scales, angles);
  }

  public int size() {
    return size;
  }

  public int scales() {
    return scales;
  }

  public int angles() {
    return angles;
  }

  /** ψ̂<sub>j,θ</sub> on the full size×size grid (a copy). */
  public double[] psi(int j, int theta) {
    checkElementIndex(j, scales, "j");
    checkElementIndex(theta, angles, "theta");
    return psi[j * angles + theta].clone();
  }

  /** φ̂<sub>J</sub> on the full size×size grid (a copy). */
  public double[] phi() {
    return phi.clone();
  }

  /**
   * ψ̂<sub>j,θ</sub> for signals sampled at 2<sup>res</sup>: see {@link #crop}. Size (size/2<sup>res</sup>)².
   */
  public double[] psi(int j, int theta, int res) {
    return crop(psi(j, theta), size, res);
  }

  /** φ̂<sub>J</sub> for signals sampled at 2<sup>res</sup>: see {@link #crop}. */
  public double[] phi(int res) {
    return crop(phi, size, res);
  }

  /**
   * The Littlewood–Paley sum A(ω) = |φ̂(ω)|² + ½ Σ<sub>j,θ</sub> (|ψ̂<sub>j,θ</sub>(ω)|² + |ψ̂<sub>j,θ</sub>(−ω)|²) on
   * the DFT grid. For a real signal x (circular convolution), ‖x⋆φ‖² + Σ ‖x⋆ψ<sub>j,θ</sub>‖² =
   * (1/size²) Σ<sub>ω</sub> |x̂(ω)|² A(ω) (Parseval), so min A and max A bound the energy of one wavelet layer
   * relative to ‖x‖² (Mallat 2012, Prop. 2.1; the ½ folds θ and θ + π together, as |x⋆ψ̄| = |x⋆ψ| for real x).
   */
  public double[] littlewoodPaley() {
    double[] a = new double[size * size];
    for (int k = 0; k < size; k++) {
      for (int l = 0; l < size; l++) {
        int i = k * size + l;
        int mirror = ((size - k) % size) * size + (size - l) % size;
        double sum = phi[i] * phi[i];
        for (double[] f : psi) {
          sum += 0.5 * (f[i] * f[i] + f[mirror] * f[mirror]);
        }
        a[i] = sum;
      }
    }
    return a;
  }

  /**
   * A filter for signals sampled at 2<sup>res</sup>: its DFT restricted to the signed frequencies
   * [−n/2, n/2) on both axes, n = size/2<sup>res</sup> (the band such a signal holds), on the n×n grid. This is
   * Kymatio's {@code periodize_filter_fft}: a mask of the higher frequencies followed by a periodisation.
   */
  static double[] crop(double[] filter, int size, int res) {
    checkArgument(res >= 0 && size % (1 << res) == 0, "resolution %s does not divide size %s", res, size);
    int n = size >> res;
    int half = n / 2;
    double[] out = new double[n * n];
    for (int k = 0; k < size; k++) {
      int fk = k < size / 2 ? k : k - size;
      if (fk < -half || fk >= half) {
        continue;
      }
      for (int l = 0; l < size; l++) {
        int fl = l < size / 2 ? l : l - size;
        if (fl >= -half && fl < half) {
          out[Math.floorMod(fk, n) * n + Math.floorMod(fl, n)] = filter[k * size + l];
        }
      }
    }
    return out;
  }

  private static double[] morletHat(int size, double sigma, double theta, double xi, double slant) {
    double[][] wave = gabor(size, sigma, theta, xi, slant);
    double[][] envelope = gabor(size, sigma, theta, 0, slant);
    // K = Σ wave / Σ envelope (complex), ψ = wave − K·envelope has zero mean.
    double wr = 0;
    double wi = 0;
    double er = 0;
    double ei = 0;
    for (int i = 0; i < size * size; i++) {
      wr += wave[0][i];
      wi += wave[1][i];
      er += envelope[0][i];
      ei += envelope[1][i];
    }
    double den = er * er + ei * ei;
    double kr = (wr * er + wi * ei) / den;
    double ki = (wi * er - wr * ei) / den;
    for (int i = 0; i < size * size; i++) {
      double re = envelope[0][i];
      double im = envelope[1][i];
      wave[0][i] -= kr * re - ki * im;
      wave[1][i] -= kr * im + ki * re;
    }
    return realDft(wave);
  }

  /** The periodised Gabor function on the grid, {re, im}; u = (row, column) index. */
  private static double[][] gabor(int size, double sigma, double theta, double xi, double slant) {
    double c = Math.cos(theta);
    double s = Math.sin(theta);
    // R diag(1, s²) Rᵀ / (2σ²)
    double s2 = slant * slant;
    double a = (c * c + s2 * s * s) / (2 * sigma * sigma);
    double b = (c * s - s2 * s * c) / (2 * sigma * sigma);
    double d = (s * s + s2 * c * c) / (2 * sigma * sigma);
    double norm = 2 * KYMATIO_PI * sigma * sigma / slant;
    double[] re = new double[size * size];
    double[] im = new double[size * size];
    for (int ex = -2; ex <= 2; ex++) {
      for (int ey = -2; ey <= 2; ey++) {
        for (int k = 0; k < size; k++) {
          double x = k + ex * size;
          for (int l = 0; l < size; l++) {
            double y = l + ey * size;
            double mag = Math.exp(-(a * x * x + 2 * b * x * y + d * y * y));
            double phase = xi * (x * c + y * s);
            re[k * size + l] += mag * Math.cos(phase);
            im[k * size + l] += mag * Math.sin(phase);
          }
        }
      }
    }
    for (int i = 0; i < re.length; i++) {
      re[i] /= norm;
      im[i] /= norm;
    }
    return new double[][] {re, im};
  }

  /** Re of the 2-D DFT, X(k, l) = Σ x(u, v) e^{−2πi(ku + lv)/n}, separably (rows, then columns). */
  private static double[] realDft(double[][] x) {
    int n = (int) Math.round(Math.sqrt(x[0].length));
    double[] cos = new double[n];
    double[] sin = new double[n];
    for (int i = 0; i < n; i++) {
      cos[i] = Math.cos(2 * Math.PI * i / n);
      sin[i] = Math.sin(2 * Math.PI * i / n);
    }
    double[] tr = new double[n * n];
    double[] ti = new double[n * n];
    for (int u = 0; u < n; u++) {
      for (int l = 0; l < n; l++) {
        double sr = 0;
        double si = 0;
        for (int v = 0; v < n; v++) {
          int p = (l * v) % n;
          double xr = x[0][u * n + v];
          double xi = x[1][u * n + v];
          sr += xr * cos[p] + xi * sin[p];
          si += xi * cos[p] - xr * sin[p];
        }
        tr[u * n + l] = sr;
        ti[u * n + l] = si;
      }
    }
    double[] out = new double[n * n];
    for (int k = 0; k < n; k++) {
      for (int l = 0; l < n; l++) {
        double sr = 0;
        for (int u = 0; u < n; u++) {
          int p = (k * u) % n;
          sr += tr[u * n + l] * cos[p] + ti[u * n + l] * sin[p];
        }
        out[k * n + l] = sr;
      }
    }
    return out;
  }
}
