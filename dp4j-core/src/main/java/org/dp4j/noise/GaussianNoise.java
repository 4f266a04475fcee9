package org.dp4j.noise;

import static com.google.common.base.Preconditions.checkNotNull;
import static org.dp4j.InvalidSettingException.checkArgument;

import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.memory.MemoryWorkspace;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * Adds i.i.d. N(0, std²) noise to every coordinate of an array, from a cryptographically secure
 * generator ({@link AesCtrRandom}): the Gaussian step of DP-SGD (Abadi et al. 2016, Alg. 1;
 * Boninsegna's survey; docs/sampling.md#expected-batch-size) and of the noisy proximal updates (docs/accountants.md#kong-ribero: fresh noise on every coordinate).
 *
 * <p>Sampler: the JDK's modified ziggurat (McFarland 2016, {@code RandomGenerator.nextGaussian}) on
 * the AES-CTR bit stream, usually one 64-bit word per draw. If the bits are uniform, each draw is
 * N(0, 1) up to double rounding (the ziggurat's tail is sampled exactly, not truncated).
 * Floating-point caveat (Mironov 2012; Jin et al., IEEE S&amp;P 2022, arXiv 2112.05307): any float
 * sampler reaches only a sparse set of doubles, which can in principle reveal the noiseless value of
 * a single released noisy float. Opacus' {@code secure_mode} mitigates this by summing four draws
 * (Holohan &amp; Braghin 2021, arXiv 2107.10138); {@link #hardened(AesCtrRandom)} does the same (sum
 * of 4 draws scaled by exactly 1/2, still N(0, std²)) at four times the cost. The default uses one
 * draw because in DP-SGD the noisy sum is divided, scaled and added to the parameters (each operation
 * rounds again) before anything can be released. Neither choice is reflected in the accountant's ε,
 * which assumes exact Gaussian noise. Measured cost for 200k coordinates ({@code NoiseBenchmark}):
 * 0.59 ms to fill a double array, 1.1 ms for {@link #addTo} on a FLOAT INDArray, 2.2 ms hardened.
 *
 * <pre>{@code
 * // given: INDArray clippedGradientSum; double noiseMultiplier; double clipNorm
 * GaussianNoise noise = GaussianNoise.secure();
 * noise.addTo(clippedGradientSum, noiseMultiplier * clipNorm);   // in place
 * }</pre>
 *
 * <p>Not thread-safe (it owns a generator and a scratch array).
 */
public final class GaussianNoise implements NoiseSource {
  private final AesCtrRandom random;
  private final int drawsPerCoordinate;
  private double[] scratch = new double[0];

  /**
   * @param random the bit source; an {@link AesCtrRandom} (not any {@code RandomGenerator}) so that
   *     an insecure generator cannot slip in by type
   * @param drawsPerCoordinate 1, or 4 for the Opacus-style floating-point hardening
   */
  public GaussianNoise(AesCtrRandom random, int drawsPerCoordinate) {
    this.random = checkNotNull(random, "random");
    checkArgument(drawsPerCoordinate == 1 || drawsPerCoordinate == 4,
        "drawsPerCoordinate must be 1 or 4 (4 sums to exactly twice the std), was %s", drawsPerCoordinate);
    this.drawsPerCoordinate = drawsPerCoordinate;
  }

  /** One ziggurat draw per coordinate from a freshly keyed secure generator. The default. */
  public static GaussianNoise secure() {
    return new GaussianNoise(AesCtrRandom.secure(), 1);
  }

  /** Four draws per coordinate, summed and halved (Opacus {@code secure_mode}). */
  public static GaussianNoise hardened(AesCtrRandom random) {
    return new GaussianNoise(random, 4);
  }

  /** Reproducible noise for tests only: <b>voids the privacy guarantee</b> and logs a warning. */
  public static GaussianNoise insecureFixedSeed(long seed) {
    return new GaussianNoise(AesCtrRandom.insecureFixedSeed(seed), 1);
  }

  @Override
  public boolean isSecure() {
    return random.isSecure();
  }

  /** One draw from N(0, std²). */
  public double sample(double std) {
    checkStd(std);
    return std * standardDraw();
  }

  /** Overwrites {@code out} with independent N(0, std²) draws. */
  public void fill(double[] out, double std) {
    checkStd(std);
    fillUnchecked(out, out.length, std);
  }

  /**
   * Overwrites {@code out} with independent N(0, std²) draws rounded to float (each drawn in double precision,
   * as {@link #addTo} does for a FLOAT array).
   */
  public void fill(float[] out, double std) {
    checkStd(std);
    for (int i = 0; i < out.length; i++) {
      out[i] = (float) (std * standardDraw());
    }
  }

  /**
   * Adds independent N(0, std²) noise to every element of {@code target}, in place, and returns it.
   * Any shape, order or view; noise is drawn in double precision and cast to the target's data type
   * before the addition. The temporary noise array lives outside any open ND4J workspace.
   */
  public INDArray addTo(INDArray target, double std) {
    checkNotNull(target, "target");
    checkStd(std);
    long length = target.length();
    checkArgument(length <= Integer.MAX_VALUE - 8, "target has %s elements, more than one Java array", length);
    int n = (int) length;
    if (scratch.length < n) {
      scratch = new double[n];
    }
    fillUnchecked(scratch, n, std);
    double[] values = scratch.length == n ? scratch : java.util.Arrays.copyOf(scratch, n);
    try (MemoryWorkspace ignored = Nd4j.getWorkspaceManager().scopeOutOfWorkspaces()) {
      INDArray noise = Nd4j.create(values, target.shape(), DataType.DOUBLE);
      INDArray typed = target.dataType() == DataType.DOUBLE ? noise : noise.castTo(target.dataType());
      target.addi(typed);
      if (typed != noise) {
        typed.close();
      }
      noise.close();
    }
    return target;
  }

  @Override
  public void addGaussian(INDArray target, double std) {
    addTo(target, std);
  }

  private void fillUnchecked(double[] out, int n, double std) {
    for (int i = 0; i < n; i++) {
      out[i] = std * standardDraw();
    }
  }

  private double standardDraw() {
    if (drawsPerCoordinate == 1) {
      return random.nextGaussian();
    }
    // Holohan & Braghin 2021 / Opacus secure_mode: (Z1+Z2+Z3+Z4)/2 ~ N(0, 1); the halving is exact.
    return 0.5 * (random.nextGaussian() + random.nextGaussian() + random.nextGaussian() + random.nextGaussian());
  }

  private static void checkStd(double std) {
    checkArgument(std > 0 && Double.isFinite(std), "noise std must be finite and > 0, was %s", std);
  }
}
