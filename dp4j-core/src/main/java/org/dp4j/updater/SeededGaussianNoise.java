package org.dp4j.updater;

import java.util.SplittableRandom;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reproducible, NOT secure Gaussian noise for tests: the same sampler as {@link SecureGaussianNoise}, but its AES
 * keys come from a seeded generator, so anyone who knows the seed can subtract the noise and the privacy guarantee
 * is void. Creating one logs a warning.
 *
 * <pre>{@code
 * NoiseSource noise = SeededGaussianNoise.forTestsOnly(42);
 * }</pre>
 */
public final class SeededGaussianNoise implements NoiseSource {
  private static final Logger LOG = LoggerFactory.getLogger(SeededGaussianNoise.class);
  private final SplittableRandom keys;

  private SeededGaussianNoise(long seed) {
    this.keys = new SplittableRandom(seed);
  }

  /** A seeded generator; logs a warning because its noise gives no privacy. */
  public static SeededGaussianNoise forTestsOnly(long seed) {
    LOG.warn("DP noise from a FIXED SEED ({}): reproducible and NOT private; for tests only", seed);
    return new SeededGaussianNoise(seed);
  }

  @Override
  public void addGaussian(INDArray target, double std) {
    byte[] key = new byte[32];
    byte[] counter = new byte[16];
    keys.nextBytes(key);
    keys.nextBytes(counter);
    SecureGaussianNoise.addGaussian(target, std, new AesKeystream(key, counter));
  }
}
