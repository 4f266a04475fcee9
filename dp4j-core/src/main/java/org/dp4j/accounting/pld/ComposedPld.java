package org.dp4j.accounting.pld;

import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.Arrays;
import java.util.List;

/**
 * The composition of discretised PLDs of one {@link LossDirection} (heterogeneous phases, each
 * self-composed a number of times), computed by one FFT per phase raised to its count, with every
 * source of error bounded, so that the true hockey-stick divergence δ(ε) of the composed mechanism in
 * this direction is bracketed:
 *
 * <pre>
 *   δ_true(ε + t) ≤ δ_c(ε) + η + upperTail + roundoff
 *   δ_true(ε − t) ≥ δ_c(ε) − η − upperTail − lowerTail − roundoff − movedMass
 * </pre>
 *
 * where δ_c(ε) = m_∞ + Σ_{y &gt; ε} c(y)(1 − e^{ε − y}) is the divergence of the computed PLD c,
 * t = √(V ln(1/η) / 2) with V = Σ count·Δ² is the Hoeffding deviation of the summed mean-preserving
 * rounding errors (the coupling of Gopi, Lee &amp; Wutschitz 2021, §5; Hoeffding 1963, Thm 2: given
 * the exact losses, the roundings are independent, zero-mean and each confined to an interval of width
 * Δ) and η &gt; 0 is free (chosen per query). The other terms:
 * <ul>
 *   <li>m_∞ = 1 − Π(1 − p∞)^{count}: some step's loss was moved to +∞ (counts fully in δ);
 *   <li>upperTail ≥ P(S &gt; B) and lowerTail ≥ P(S &lt; A) by Chernoff bounds on the discretised
 *       PLDs' moment generating functions; [A, B] is the FFT window; mass outside it aliases into
 *       the window (adding spurious mass, never removing mass inside it);
 *   <li>roundoff: an ℓ1 bound on the floating-point error of the transforms (componentwise FFT
 *       bound, see {@link RadixTwoFft}; the low frequencies that dominate after powering are
 *       recomputed by compensated direct sums), the powers (a coefficient error e becomes at most
 *       t·|z|^{t−1}·e after the t-th power) and the suffix sums; negative round-off values are
 *       clamped to 0, which only adds mass;
 *   <li>movedMass = Σ count·(pessimistic + ∞ mass) of the steps, needed only for the lower bound.
 * </ul>
 * δ is monotone in the loss and convolution preserves a pointwise coupling, so every pessimistic move
 * before or after composition keeps the upper bound valid.
 *
 * <pre>{@code
 * PrivacyLossPmf step = SampledGaussianPld.pmf(0.01, 1.0, LossDirection.REMOVE, 1e-4, 1e-20);
 * ComposedPld run = ComposedPld.compose(List.of(new ComposedPld.Phase(step, 1000)));
 * double eps = run.couplingDeviation(1e-8) + run.computedEpsilon(1e-5 - 1e-8 - run.upperTail() - run.roundoff());
 * }</pre>
 */
final class ComposedPld {
  /** Largest FFT length used (2²² points: 64 MB of working arrays). */
  public static final int MAX_FFT_SIZE = 1 << 22;
  /** Chernoff tail mass targeted at each end of the window. */
  static final double WINDOW_TAIL = 1e-18;
  /** Relative error of one complex product, √2·γ₂ (Higham 2002, Lemma 3.5), rounded up to 3u. */
  private static final double COMPLEX_PRODUCT_ERROR = 3 * Math.ulp(1.0);
  /**
   * Error of a directly summed DFT coefficient relative to ‖p‖₁: twiddle (u) + product (u) + compensated
   * sum (2u), per real and imaginary part, so √2·4u, rounded up to 6u.
   */
  private static final double DIRECT_DFT_ERROR = 6 * Math.ulp(1.0);
  /** Coefficients with |z|^{t−1} above this are recomputed directly (low frequencies). */
  private static final double DIRECT_DFT_WEIGHT = 1e-6;
  /** Work budget (pmf points × coefficients) for direct recomputation per phase. */
  private static final double DIRECT_DFT_WORK = 3e7;
  private static final double[] LAMBDAS = {0.0625, 0.25, 0.5, 1, 2, 4, 8, 16, 32, 64, 128, 256};

  /** One phase: a per-step PLD used {@code count} times. */
  public record Phase(PrivacyLossPmf pmf, long count) {
    public Phase {
      checkArgument(count >= 0, "count must be >= 0, was %s", count);
    }
  }

  private final double interval;
  private final long firstIndex;
  private final int size;               // grid points firstIndex .. firstIndex + size − 1
  private final double[] suffixMass;   // Σ_{j ≥ r} c_j
  private final double[] suffixWeighted; // Σ_{j ≥ r} c_j e^{−y_j}, only for y_j ≥ 0
  private final double infinityMass;
  private final double upperTail;
  private final double lowerTail;
  private final double roundoff;
  private final double couplingVariance;
  private final double movedMass;

  private ComposedPld(double interval, long firstIndex, double[] values, double infinityMass, double upperTail,
      double lowerTail, double roundoff, double couplingVariance, double movedMass) {
    this.interval = interval;
    this.firstIndex = firstIndex;
    this.size = values.length;
    this.infinityMass = infinityMass;
    this.upperTail = upperTail;
    this.lowerTail = lowerTail;
    this.roundoff = roundoff;
    this.couplingVariance = couplingVariance;
    this.movedMass = movedMass;
    int n = values.length;
    suffixMass = new double[n + 1];
    suffixWeighted = new double[n + 1];
    // compensated sums: their error stays within 2u of the sum, whatever n (Higham 2002, §4.3)
    CompensatedSum massSum = new CompensatedSum();
    CompensatedSum weightedSum = new CompensatedSum();
    for (int r = n - 1; r >= 0; r--) {
      double y = loss(r);
      suffixMass[r] = massSum.add(values[r]);
      suffixWeighted[r] = weightedSum.add(y >= 0 ? values[r] * Math.exp(-y) : 0);
    }
  }

  /** Composes the phases (all on the same grid spacing). */
  public static ComposedPld compose(List<Phase> phases) {
    checkArgument(!phases.isEmpty(), "at least one phase is needed");
    double interval = phases.get(0).pmf().interval();
    double couplingVariance = 0;
    double logFinite = 0;
    double moved = 0;
    for (Phase ph : phases) {
      checkArgument(ph.pmf().interval() == interval, "all phases need the same grid spacing: %s vs %s",
          ph.pmf().interval(), interval);
      couplingVariance += ph.count() * interval * interval;
      logFinite += ph.count() * Math.log1p(-ph.pmf().infinityMass());
      moved += ph.count() * (ph.pmf().pessimisticMass() + ph.pmf().infinityMass());
    }
    Window window = Window.of(phases, interval);
    Convolution conv = Convolution.of(phases, window.size());
    double[] values = new double[window.size()];
    for (int r = 0; r < values.length; r++) {
      // clamping round-off negatives to 0 only adds mass (pessimistic)
      values[r] = Math.max(0, conv.circular()[(int) Math.floorMod(window.first() + r, (long) values.length)]);
    }
    return new ComposedPld(interval, window.first(), values, -Math.expm1(logFinite), window.upperTail(),
        window.lowerTail(), conv.roundoff(), couplingVariance, moved);
  }

  /**
   * The width, in loss units, of the window the composition of these phases would use (Chernoff at
   * {@link #WINDOW_TAIL}, clipped to the support), to choose a grid spacing before discretising finely.
   */
  public static double windowWidth(List<Phase> phases) {
    Range r = Range.of(phases, phases.get(0).pmf().interval());
    return (r.b() - r.a() + 1) * r.interval();
  }

  /**
   * Window ends a ≤ b in grid indices from the Chernoff bounds at {@link #LAMBDAS} with tail
   * {@link #WINDOW_TAIL} at each end, clipped to the exact support [min, max]; with the log MGFs used.
   */
  private record Range(double a, double b, double min, double max, double interval, double[] upMgf,
      double[] downMgf) {
    static Range of(List<Phase> phases, double interval) {
      double min = 0;
      double max = 0;
      for (Phase ph : phases) {
        min += ph.count() * (double) ph.pmf().minIndex();
        max += ph.count() * (double) ph.pmf().maxIndex();
      }
      double logTail = Math.log(WINDOW_TAIL);
      double[] upMgf = new double[LAMBDAS.length];
      double[] downMgf = new double[LAMBDAS.length];
      double b = max;
      double a = min;
      for (int i = 0; i < LAMBDAS.length; i++) {
        upMgf[i] = logMgfSum(phases, LAMBDAS[i]);
        downMgf[i] = logMgfSum(phases, -LAMBDAS[i]);
        b = Math.min(b, Math.ceil((upMgf[i] - logTail) / LAMBDAS[i] / interval));
        a = Math.max(a, Math.floor(-(downMgf[i] - logTail) / LAMBDAS[i] / interval));
      }
      return new Range(a, b, min, max, interval, upMgf, downMgf);
    }
  }

  /**
   * The FFT window [first, first + size) in grid indices, a power-of-two size covering the
   * {@link Range}; the tails record the Chernoff bound reached at its ends (0 when the window covers
   * the support).
   */
  private record Window(long first, int size, double upperTail, double lowerTail) {
    static Window of(List<Phase> phases, double interval) {
      Range r = Range.of(phases, interval);
      double width = r.b() - r.a() + 1;
      if (width > MAX_FFT_SIZE) {
        throw new GridTooFineException(String.format("the composed PLD spans %.0f grid points at interval %s "
            + "(max %d): use a coarser interval", width, interval, MAX_FFT_SIZE));
      }
      int size = Math.max(2, Integer.highestOneBit((int) width));
      size = size < width ? size << 1 : size;
      return new Window((long) r.a(), size, r.b() >= r.max() ? 0 : chernoff(r.upMgf(), r.b() * interval, +1),
          r.a() <= r.min() ? 0 : chernoff(r.downMgf(), r.a() * interval, -1));
    }
  }

  /**
   * The circular convolution (length N) of all phases, Π_phases FFT(p)^count transformed back, and an
   * ℓ1 bound on its floating-point error. Real data: one complex FFT of half the length
   * ({@link RealFft}); coefficients k and N − k are conjugate, so only k = 0 … N/2 are kept and sums
   * over the whole spectrum count the others twice.
   */
  private record Convolution(double[] circular, double roundoff) {
    static Convolution of(List<Phase> phases, int size) {
      RealFft fft = new RealFft(size);
      int spectrum = size / 2 + 1;
      double[] accRe = new double[spectrum];
      double[] accIm = new double[spectrum];
      Arrays.fill(accRe, 1);
      double[] re = new double[spectrum];
      double[] im = new double[spectrum];
      double[] samples = new double[size];
      double[] power = new double[2];
      double perCoefficientError = 0;  // ℓ2 bound on the error of the product of powered transforms
      double powerRounding = 0;
      for (Phase ph : phases) {
        if (ph.count() == 0) {
          continue;
        }
        PrivacyLossPmf pmf = ph.pmf();
        Arrays.fill(samples, 0);
        for (int i = 0; i < pmf.size(); i++) {
          samples[(int) Math.floorMod(pmf.minIndex() + i, (long) size)] += pmf.probability(i);
        }
        fft.forward(samples, re, im);
        // componentwise: every transformed coefficient is off by at most log₂N·η·‖p‖₁ (RadixTwoFft)
        double fftError = fft.levels() * RadixTwoFft.RELATIVE_ERROR_PER_LEVEL * pmf.finiteMass();
        long t = ph.count();
        // The low frequencies, where |z|^{t−1} is not negligible, dominate the error of z^t: recompute them
        // directly with a compensated sum (error DIRECT_DFT_ERROR·‖p‖₁), within a work budget.
        int direct = 0;
        if (t > 1) {
          int budget = (int) Math.min(spectrum, Math.max(1, DIRECT_DFT_WORK / pmf.size()));
          while (direct < budget && Math.pow(Math.hypot(re[direct], im[direct]), t - 1) > DIRECT_DFT_WEIGHT) {
            directCoefficient(pmf, direct, fft, power);
            re[direct] = power[0];
            im[direct] = power[1];
            direct++;
          }
        }
        double fftPowerSum = 0;
        double directPowerSum = 0;
        for (int k = 0; k < spectrum; k++) {
          power(re[k], im[k], t, power);
          double r = Math.sqrt(re[k] * re[k] + im[k] * im[k]);
          // |z|^{t−1}: an error e in z becomes at most t·|z|^{t−1}·e in z^t
          double rt = Math.sqrt(power[0] * power[0] + power[1] * power[1]);
          double rt1 = t == 1 ? 1 : (r == 0 ? 0 : rt / Math.min(1, r));
          if (k < direct) {
            directPowerSum += multiplicity(k, size) * rt1 * rt1;
          } else {
            fftPowerSum += multiplicity(k, size) * rt1 * rt1;
          }
          double nr = accRe[k] * power[0] - accIm[k] * power[1];
          accIm[k] = accRe[k] * power[1] + accIm[k] * power[0];
          accRe[k] = nr;
        }
        perCoefficientError += t * (fftError * Math.sqrt(fftPowerSum)
            + DIRECT_DFT_ERROR * pmf.finiteMass() * Math.sqrt(directPowerSum));
        powerRounding += (t + 64.0) * COMPLEX_PRODUCT_ERROR;
      }
      double accNorm = 0;
      double accL1 = 0;
      for (int k = 0; k < spectrum; k++) {
        double m2 = accRe[k] * accRe[k] + accIm[k] * accIm[k];
        accNorm += multiplicity(k, size) * m2;
        accL1 += multiplicity(k, size) * Math.sqrt(m2);
      }
      perCoefficientError += powerRounding * Math.sqrt(accNorm);
      fft.inverse(accRe, accIm, samples);
      // ℓ1 error of the output: ‖dZ‖₂ (Parseval: ℓ1 ≤ √N·ℓ2 = √N·‖dZ‖₂/√N), plus the inverse
      // transform's own componentwise error log₂N·η·‖Z‖₁/N at each of the N points, plus 8u for
      // the compensated suffix sums
      double roundoff = perCoefficientError + fft.levels() * RadixTwoFft.RELATIVE_ERROR_PER_LEVEL * accL1
          + 8 * Math.ulp(1.0);
      return new Convolution(samples, roundoff);
    }
  }

  /**
   * Z_k = Σ_j p_j e^{−2πi m_j k/N} (m_j the circular position of grid point j) by compensated sums, with
   * table twiddles (each within u): error ≤ {@link #DIRECT_DFT_ERROR}·‖p‖₁.
   */
  private static void directCoefficient(PrivacyLossPmf pmf, int k, RealFft fft, double[] out) {
    CompensatedSum sr = new CompensatedSum();
    CompensatedSum si = new CompensatedSum();
    long n = fft.size();
    long m = Math.floorMod(Math.floorMod(pmf.minIndex(), n) * (long) k, n);   // (position · k) mod N
    for (int j = 0; j < pmf.size(); j++, m = m + k >= n ? m + k - n : m + k) {
      double p = pmf.probability(j);
      if (p != 0) {
        sr.add(p * fft.cosine(m));
        si.add(-p * fft.sine(m));
      }
    }
    out[0] = sr.add(0);
    out[1] = si.add(0);
  }

  /**
   * (re + i·im)^t by repeated squaring into out. With γ the relative error of one complex product, the
   * k-th square carries at most (2^k − 1)γ and the product of the squares picked by t's bits at most
   * (t + log₂t)γ ≤ (t + 64)γ (Higham 2002, §3.6 for γ).
   */
  private static void power(double re, double im, long t, double[] out) {
    double zr = re;
    double zi = im;
    double pr = 1;
    double pi = 0;
    for (long e = t; e > 0; e >>= 1) {
      if ((e & 1) != 0) {
        double nr = pr * zr - pi * zi;
        pi = pr * zi + pi * zr;
        pr = nr;
      }
      if (e > 1) {
        double nr = zr * zr - zi * zi;
        zi = 2 * zr * zi;
        zr = nr;
      }
    }
    out[0] = pr;
    out[1] = pi;
  }

  /** How often coefficient k of the kept half-spectrum occurs in the full spectrum of length n. */
  private static int multiplicity(int k, int n) {
    return k == 0 || 2 * k == n ? 1 : 2;
  }

  private static double logMgfSum(List<Phase> phases, double lambda) {
    double s = 0;
    for (Phase ph : phases) {
      if (ph.count() > 0) {
        s += ph.count() * ph.pmf().logMgf(lambda);
      }
    }
    return s;
  }

  /** min over λ of exp(K(±λ) ∓ λ·bound): P(S &gt; bound) for sign +1, P(S &lt; bound) for −1. */
  private static double chernoff(double[] logMgfs, double bound, int sign) {
    double best = 0;
    for (int i = 0; i < LAMBDAS.length; i++) {
      best = Math.min(best, logMgfs[i] - sign * LAMBDAS[i] * bound);
    }
    return Math.exp(best);
  }

  /** Kahan–Babuška summation, for suffix sums of up to millions of terms. */
  private static final class CompensatedSum {
    private double sum;
    private double compensation;

    double add(double x) {
      double t = sum + x;
      compensation += Math.abs(sum) >= Math.abs(x) ? (sum - t) + x : (x - t) + sum;
      sum = t;
      return sum + compensation;
    }
  }

  double loss(int r) {
    return (firstIndex + r) * interval;
  }

  public double interval() {
    return interval;
  }

  /** FFT length used (the window's number of grid points). */
  public int size() {
    return size;
  }

  public double infinityMass() {
    return infinityMass;
  }

  public double upperTail() {
    return upperTail;
  }

  public double lowerTail() {
    return lowerTail;
  }

  public double roundoff() {
    return roundoff;
  }

  public double movedMass() {
    return movedMass;
  }

  /** Hoeffding deviation t(η) = √(V ln(1/η)/2) of the summed rounding errors. */
  public double couplingDeviation(double eta) {
    checkArgument(eta > 0 && eta < 1, "eta must be in (0, 1), was %s", eta);
    return Math.sqrt(couplingVariance * Math.log(1 / eta) / 2);
  }

  /**
   * δ_c(ε) of the computed PLD, ε ≥ 0, from suffix sums: m∞ + S1 − e^ε S2 over the grid points above
   * ε (the summation error, below N·4u, is part of {@link #roundoff()}).
   */
  public double computedDelta(double epsilon) {
    checkArgument(epsilon >= 0 && Double.isFinite(epsilon), "epsilon must be finite and >= 0, was %s", epsilon);
    int r = firstAbove(epsilon);
    return Math.min(1, infinityMass + Math.max(0, suffixMass[r] - Math.exp(epsilon) * suffixWeighted[r]));
  }

  /**
   * The smallest ε ≥ 0 with δ_c(ε) ≤ target, or +∞ if the +∞ atom alone reaches the target.
   * δ_c is continuous and decreasing; on a grid cell [y_{r−1}, y_r) it is m∞ + S1(r) − e^ε S2(r), so
   * the cell is found by bisection and ε solved in closed form, then nudged up until
   * {@link #computedDelta} confirms it.
   */
  public double computedEpsilon(double targetDelta) {
    checkArgument(targetDelta > 0 && targetDelta < 1, "delta must be in (0, 1), was %s", targetDelta);
    if (infinityMass >= targetDelta) {
      return Double.POSITIVE_INFINITY;
    }
    if (computedDelta(0) <= targetDelta) {
      return 0;
    }
    int lo = firstAbove(0);
    int hi = size;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (computedDelta(loss(mid)) <= targetDelta) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    if (lo >= size) {
      return Double.POSITIVE_INFINITY; // only the +∞ atom is left above the window, and it is below target
    }
    double cellHigh = loss(lo);
    double cellLow = Math.max(0, loss(lo) - interval);
    int cell = firstAbove(cellLow);
    double numerator = infinityMass + suffixMass[cell] - targetDelta;
    double eps = suffixWeighted[cell] > 0 && numerator > 0 ? Math.log(numerator / suffixWeighted[cell]) : cellHigh;
    eps = Math.max(cellLow, Math.min(eps, cellHigh));
    for (int i = 0; i < 64 && computedDelta(eps) > targetDelta; i++) {
      eps = Math.min(cellHigh, eps + Math.max(Math.ulp(eps), Double.MIN_NORMAL) * (1L << Math.min(i, 62)));
    }
    return computedDelta(eps) <= targetDelta ? eps : cellHigh;   // cellHigh satisfies it (bisection)
  }

  /** First index r with loss(r) &gt; ε (the number of grid points if none). */
  private int firstAbove(double epsilon) {
    long k = (long) Math.floor(epsilon / interval) + 1 - firstIndex;
    k = Math.max(0, Math.min(size, k));
    while (k > 0 && loss((int) k - 1) > epsilon) {
      k--;
    }
    while (k < size && loss((int) k) <= epsilon) {
      k++;
    }
    return (int) k;
  }

}
