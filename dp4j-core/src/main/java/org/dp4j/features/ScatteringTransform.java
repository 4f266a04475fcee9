package org.dp4j.features;

import static com.google.common.base.Preconditions.checkState;
import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.ArrayList;
import java.util.List;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.memory.MemoryWorkspace;
import org.nd4j.linalg.api.memory.conf.WorkspaceConfiguration;
import org.nd4j.linalg.api.memory.enums.AllocationPolicy;
import org.nd4j.linalg.api.memory.enums.LearningPolicy;
import org.nd4j.linalg.api.memory.enums.SpillPolicy;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.ops.transforms.Transforms;

/**
 * The 2-D scattering transform of order 2 (Oyallon &amp; Mallat 2015, Eq. 1–3; Bruna &amp; Mallat 2013), the fixed,
 * data-independent feature map behind Tramèr &amp; Boneh's 2021 "ScatterNet" DP baselines: for an n×n image x,
 * <ul>
 *   <li>S₀ = x ⋆ φ<sub>J</sub>,</li>
 *   <li>S₁[j₁, θ₁] = |x ⋆ ψ<sub>j₁,θ₁</sub>| ⋆ φ<sub>J</sub>,</li>
 *   <li>S₂[j₁, θ₁, j₂, θ₂] = ||x ⋆ ψ<sub>j₁,θ₁</sub>| ⋆ ψ<sub>j₂,θ₂</sub>| ⋆ φ<sub>J</sub> for j₂ &gt; j₁,</li>
 * </ul>
 * each sampled every 2<sup>J</sup> pixels: K = 1 + JL + L²J(J−1)/2 channels of (n/2<sup>J</sup>)² values (J = 2,
 * L = 8 on 28×28: 81 channels of 7×7). The computation follows Kymatio's {@code Scattering2D} (the reference
 * Tramèr &amp; Boneh used): reflection padding to P = (⌊(n + 2<sup>J</sup>)/2<sup>J</sup>⌋ + 1)·2<sup>J</sup>, circular
 * convolutions in the Fourier domain, intermediate signals kept at their own resolution 2<sup>j</sup> (subsampling
 * = averaging the periodised spectrum, filters cropped by {@link MorletFilterBank#crop}), one border sample
 * removed at the end. Channel order: S₀, S₁ by (j₁, θ₁), S₂ by (j₁, θ₁, j₂, θ₂); output row-major per channel.
 *
 * <p>The 2-D DFTs are products with DFT matrices (F X Fᵀ), batched over images as ND4J matrix products: for
 * P = 36 a GEMM does more per image than an O(P log P) FFT would, but it runs at BLAS speed. Each inverse DFT
 * that is followed by sampling in space is one product with a rectangular matrix that computes only the samples
 * kept; the low-pass output, separable, is two real products per axis on the real maps (no DFT at all).
 *
 * <p>Immutable; {@link #transform} may be called from several threads (each uses its own ND4J workspace).
 *
 * <pre>{@code
 * // given: LabelledImages train
 * ScatteringTransform s = ScatteringTransform.of(28, 2, 8);
 * INDArray images = train.toDataSet(DataType.FLOAT).getFeatures();   // [n, 784], pixels in [0, 1]
 * INDArray features = s.transform(images);                           // [n, 81·7·7]
 * }</pre>
 */
public final class ScatteringTransform {
  private static final String WORKSPACE_ID = "DP4J_SCATTERING";
  private static final WorkspaceConfiguration WORKSPACE = WorkspaceConfiguration.builder()
      .policyAllocation(AllocationPolicy.OVERALLOCATE).overallocationLimit(0.1)
      .policyLearning(LearningPolicy.FIRST_LOOP).policySpill(SpillPolicy.REALLOCATE).build();
  private final int imageSize;
  private final int scales;
  private final int angles;
  private final int padded;
  private final MorletFilterBank bank;
  /** DFT matrices per resolution r (size P/2^r): {Fr, Fi}. */
  private final List<INDArray[]> dft = new ArrayList<>();
  private final java.util.Map<Integer, INDArray[]> samplings = new java.util.HashMap<>();
  /** Per resolution r: {B_reᵀ, B_imᵀ} of the low-pass output map (see {@link #lowPass}). */
  private final INDArray[][] lowPassT;
  private final INDArray[][] psiAt;

  private ScatteringTransform(int imageSize, int scales, int angles) {
    this.imageSize = imageSize;
    this.scales = scales;
    this.angles = angles;
    this.padded = paddedSize(imageSize, scales);
    this.bank = MorletFilterBank.of(padded, scales, angles);
    for (int r = 0; r <= scales; r++) {
      dft.add(dftMatrix(padded >> r));
      for (int to = r; to < scales; to++) { // all (from, to) pairs the transform samples at, built before use
        samplings.put(r * 64 + to, samplingMatrix(r, to));
      }
    }
    lowPassT = new INDArray[scales][];
    psiAt = new INDArray[scales * angles][scales];
    for (int r = 0; r < scales; r++) {
      lowPassT[r] = lowPassMatrix(r);
      for (int f = 0; f < scales * angles; f++) {
        // ψ_{j} is needed at resolutions r ≤ j − 1 (second order) and 0 (first order)
        if (r == 0 || r < f / angles) {
          psiAt[f][r] = row(bank.psi(f / angles, f % angles, r));
        }
      }
    }
  }

  /**
   * The transform of {@code imageSize}×{@code imageSize} images with J = {@code scales}, L = {@code angles}.
   *
   * @throws IllegalArgumentException if 2<sup>J</sup> exceeds the image size, or J, L are out of range
   */
  public static ScatteringTransform of(int imageSize, int scales, int angles) {
    checkArgument(scales >= 1 && scales <= 8, "scales J must be in [1, 8], was %s", scales);
    checkArgument(imageSize >= (1 << scales), "image size %s is smaller than 2^J = %s", imageSize, 1 << scales);
    checkArgument(angles >= 1 && angles <= 32, "angles L must be in [1, 32], was %s", angles);
    return new ScatteringTransform(imageSize, scales, angles);
  }

  /** Kymatio's padded size (⌊(n + 2^J)/2^J⌋ + 1)·2^J. */
  static int paddedSize(int n, int scales) {
    int step = 1 << scales;
    return ((n + step) / step + 1) * step;
  }

  public int imageSize() {
    return imageSize;
  }

  public int scales() {
    return scales;
  }

  public int angles() {
    return angles;
  }

  /** The filter bank (on the padded grid). */
  public MorletFilterBank filterBank() {
    return bank;
  }

  /** Number of channels K = 1 + JL + L²J(J−1)/2. */
  public int channels() {
    return 1 + scales * angles + angles * angles * scales * (scales - 1) / 2;
  }

  /** Side of each output channel, P/2^J − 2. */
  public int outputSize() {
    return (padded >> scales) - 2;
  }

  /** Features per image, K·outputSize². */
  public int featureCount() {
    return channels() * outputSize() * outputSize();
  }

  /**
   * The scattering coefficients of a batch of images, float.
   *
   * @param images [b, n·n] (row-major pixels; any scale, Tramèr &amp; Boneh use [0, 1])
   * @return [b, K·m·m], channel-major: coefficient (k, r, c) at k·m² + r·m + c, m = {@link #outputSize()}
   */
  public INDArray transform(INDArray images) {
    checkArgument(images.rank() == 2 && images.size(1) == (long) imageSize * imageSize,
        "images must be [b, %s], was %s", imageSize * imageSize, java.util.Arrays.toString(images.shape()));
    // Every intermediate lives in a workspace that is reused by the next call: hundreds of temporaries per image
    // would otherwise wait for the garbage collector while their off-heap memory grows (measured: 8 GB resident
    // after a few thousand images with -Xmx2g).
    try (MemoryWorkspace ws = Nd4j.getWorkspaceManager().getAndActivateWorkspace(WORKSPACE, WORKSPACE_ID)) {
      return scatter(images).detach();
    }
  }

  private INDArray scatter(INDArray images) {
    int b = (int) images.size(0);
    List<INDArray> out = new ArrayList<>(channels());
    INDArray padded = pad(images.castTo(DataType.FLOAT));
    out.add(lowPass(padded, 0));
    Complex x = fft(padded, 0);
    Complex[] first = new Complex[scales * angles];
    for (int f = 0; f < scales * angles; f++) {
      int j1 = f / angles;
      INDArray u1 = modulus(x.times(psiAt[f][0]).inverse(sampling(0, j1)));
      out.add(lowPass(u1, j1));
      first[f] = j1 < scales - 1 ? fft(u1, j1) : null; // the last scale has no second-order children
    }
    for (int f = 0; f < scales * angles; f++) {
      int j1 = f / angles;
      for (int g = (j1 + 1) * angles; g < scales * angles; g++) {
        int j2 = g / angles;
        out.add(lowPass(modulus(first[f].times(psiAt[g][j1]).inverse(sampling(j1, j2))), j2));
      }
    }
    int m = outputSize();
    return Nd4j.stack(1, out.toArray(new INDArray[0])).reshape(b, (long) channels() * m * m);
  }

  /**
   * (u ⋆ φ) for real maps u [b, s, s] at resolution r, sampled at 2^J, one border sample removed: [b, m, m].
   * The cropped φ̂ is separable, φ̂(k, l) = a(k) a(l), so DFT, product, sampled inverse DFT and real part
   * together are Re(B u Bᵀ) = B_re u B_reᵀ − B_im u B_imᵀ with B = Mᵀ diag(a) F ([m, s], see {@link #lowPassMatrix}).
   */
  private INDArray lowPass(INDArray u, int r) {
    INDArray[] bt = lowPassT[r];
    long b = u.size(0);
    int s = padded >> r;
    int m = outputSize();
    INDArray flat = u.reshape(b * s, s);
    Complex t = new Complex(flat.mmul(bt[0]), flat.mmul(bt[1]), b, s, m).transpose();
    INDArray re = t.re.reshape(b * m, s).mmul(bt[0]).subi(t.im.reshape(b * m, s).mmul(bt[1]));
    return re.reshape(b, m, m).permute(0, 2, 1).dup('c');
  }

  /** {B_reᵀ, B_imᵀ} ([s, m]) for resolution r: B(n, x) = (1/s) Σ_k a(k) e^{2πi k ((n + 1)·2^(J−r) − x)/s}. */
  private INDArray[] lowPassMatrix(int r) {
    int s = padded >> r;
    double[] phi = bank.phi(r);
    double a0 = Math.sqrt(phi[0]);
    double[] a = new double[s];
    for (int k = 0; k < s; k++) {
      a[k] = phi[k * s] / a0;
    }
    for (int i = 0; i < phi.length; i++) { // the periodised Gaussian's DFT is a product (slant 1, angle 0)
      checkState(Math.abs(phi[i] - a[i / s] * a[i % s]) < 1e-9, "phi is not separable at %s", i);
    }
    int m = outputSize();
    int step = 1 << (scales - r);
    float[] re = new float[s * m];
    float[] im = new float[s * m];
    for (int x = 0; x < s; x++) {
      for (int n = 0; n < m; n++) {
        double sr = 0;
        double si = 0;
        for (int k = 0; k < s; k++) {
          double angle = 2 * Math.PI * Math.floorMod((long) k * ((n + 1) * step - x), s) / s;
          sr += a[k] * Math.cos(angle);
          si += a[k] * Math.sin(angle);
        }
        re[x * m + n] = (float) (sr / s);
        im[x * m + n] = (float) (si / s);
      }
    }
    return new INDArray[] {Nd4j.create(re, new long[] {s, m}, DataType.FLOAT),
        Nd4j.create(im, new long[] {s, m}, DataType.FLOAT)};
  }

  private static INDArray modulus(Complex u) {
    return Transforms.sqrt(u.re.mul(u.re).addi(u.im.mul(u.im)), false);
  }

  /**
   * {re, im} of the [s, q] matrix that takes a spectrum at resolution {@code from} (s = P/2^from) to the signal
   * at resolution {@code to} (every 2^(to − from)-th sample of the inverse DFT, scaled by 1/s per axis). Sampling
   * in space this way equals averaging the periodised spectrum (Kymatio's {@code subsample_fourier}) followed by
   * the smaller inverse DFT.
   */
  private INDArray[] sampling(int from, int to) {
    return samplings.get(from * 64 + to);
  }

  private INDArray[] samplingMatrix(int from, int to) {
    int s = padded >> from;
    int step = 1 << (to - from);
    int count = s / step;
    float[] re = new float[s * count];
    float[] im = new float[s * count];
    for (int k = 0; k < s; k++) {
      for (int n = 0; n < count; n++) {
        double angle = 2 * Math.PI * ((long) k * n * step % s) / s;
        re[k * count + n] = (float) (Math.cos(angle) / s);
        im[k * count + n] = (float) (Math.sin(angle) / s);
      }
    }
    return new INDArray[] {Nd4j.create(re, new long[] {s, count}, DataType.FLOAT),
        Nd4j.create(im, new long[] {s, count}, DataType.FLOAT)};
  }

  /** Reflection padding (no edge repeat) of [b, n·n] images to [b, P, P]. */
  private INDArray pad(INDArray images) {
    int b = (int) images.size(0);
    int n = imageSize;
    int top = (padded - n) / 2;
    float[] src = images.dup('c').data().asFloat();
    float[] dst = new float[b * padded * padded];
    for (int i = 0; i < b; i++) {
      for (int r = 0; r < padded; r++) {
        int sr = reflect(r - top, n);
        for (int c = 0; c < padded; c++) {
          dst[(i * padded + r) * padded + c] = src[i * n * n + sr * n + reflect(c - top, n)];
        }
      }
    }
    return Nd4j.create(dst, new long[] {b, padded, padded}, DataType.FLOAT);
  }

  private static int reflect(int i, int n) {
    int period = 2 * (n - 1);
    int m = Math.floorMod(i, period);
    return m < n ? m : period - m;
  }

  /** 2-D DFT of real maps [b, s, s] at resolution r (s = P/2^r): F X Fᵀ. */
  private Complex fft(INDArray real, int r) {
    INDArray[] f = dft.get(r);
    int s = padded >> r;
    long b = real.size(0);
    INDArray flat = real.reshape(b * s, s);
    return new Complex(flat.mmul(f[0]), flat.mmul(f[1]), b, s, s).transpose().rightMultiply(f).transpose();
  }

  /** {re, im} of the DFT matrix F(k, l) = e^{−2πikl/s}. */
  private static INDArray[] dftMatrix(int s) {
    float[] fr = new float[s * s];
    float[] fi = new float[s * s];
    for (int k = 0; k < s; k++) {
      for (int l = 0; l < s; l++) {
        double angle = 2 * Math.PI * ((long) k * l % s) / s;
        fr[k * s + l] = (float) Math.cos(angle);
        fi[k * s + l] = (float) -Math.sin(angle);
      }
    }
    return new INDArray[] {matrix(fr, s), matrix(fi, s)};
  }

  private static INDArray matrix(float[] v, int s) {
    return Nd4j.create(v, new long[] {s, s}, DataType.FLOAT);
  }

  private static INDArray row(double[] v) {
    float[] f = new float[v.length];
    for (int i = 0; i < v.length; i++) {
      f[i] = (float) v[i];
    }
    return Nd4j.create(f, new long[] {1, v.length}, DataType.FLOAT);
  }

  /** Complex maps [b, rows, cols] as two float arrays. */
  private static final class Complex {
    final INDArray re;
    final INDArray im;
    final long b;
    final int rows;
    final int cols;

    /** From [b·rows, cols] (or [b, rows, cols]) parts. */
    Complex(INDArray re, INDArray im, long b, int rows, int cols) {
      this.re = re.reshape(b, rows, cols);
      this.im = im.reshape(b, rows, cols);
      this.b = b;
      this.rows = rows;
      this.cols = cols;
    }

    /** Each map times M = {Mr, Mi} ([cols, c]) on the right. */
    Complex rightMultiply(INDArray[] m) {
      INDArray xr = re.reshape(b * rows, cols);
      INDArray xi = im.reshape(b * rows, cols);
      int c = (int) m[0].size(1);
      return new Complex(xr.mmul(m[0]).subi(xi.mmul(m[1])), xr.mmul(m[1]).addi(xi.mmul(m[0])), b, rows, c);
    }

    Complex transpose() {
      return new Complex(re.permute(0, 2, 1).dup('c'), im.permute(0, 2, 1).dup('c'), b, cols, rows);
    }

    /** Mᵀ X M for each (square) map X. */
    Complex inverse(INDArray[] m) {
      return rightMultiply(m).transpose().rightMultiply(m).transpose();
    }

    /** Each map times a real filter (row vector of rows·cols values), elementwise. */
    Complex times(INDArray filter) {
      long n = (long) rows * cols;
      return new Complex(re.reshape(b, n).mulRowVector(filter), im.reshape(b, n).mulRowVector(filter), b, rows,
          cols);
    }
  }
}
