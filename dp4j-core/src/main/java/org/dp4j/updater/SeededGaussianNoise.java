package org.dp4j.updater;

import static com.google.common.base.Preconditions.checkArgument;

import java.util.SplittableRandom;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reproducible, NOT secure Gaussian noise for tests: anyone who knows the seed can subtract the noise and the
 * privacy guarantee is void. Creating one logs a warning.
 *
 * <pre>{@code
 * NoiseSource noise = SeededGaussianNoise.forTestsOnly(42);
 * }</pre>
 */
public final class SeededGaussianNoise implements NoiseSource {
  private static final Logger LOG = LoggerFactory.getLogger(SeededGaussianNoise.class);
  private final SplittableRandom random;

  private SeededGaussianNoise(long seed) {
    this.random = new SplittableRandom(seed);
  }

  /** A seeded generator; logs a warning because its noise gives no privacy. */
  public static SeededGaussianNoise forTestsOnly(long seed) {
    LOG.warn("DP noise from a FIXED SEED ({}): reproducible and NOT private; for tests only", seed);
    return new SeededGaussianNoise(seed);
  }

  @Override
  public void addGaussian(INDArray target, double std) {
    checkArgument(std >= 0 && Double.isFinite(std), "std must be finite and >= 0, was %s", std);
    double[] noise = new double[(int) target.length()];
    for (int i = 0; i < noise.length; i++) {
      noise[i] = std * gaussian();
    }
    target.addi(Nd4j.createFromArray(noise).castTo(target.dataType()).reshape(target.ordering(), target.shape()));
  }

  /** Marsaglia's polar method (Marsaglia &amp; Bray 1964); only the first of each pair is used, for simplicity. */
  private double gaussian() {
    double u;
    double v;
    double s;
    do {
      u = 2 * random.nextDouble() - 1;
      v = 2 * random.nextDouble() - 1;
      s = u * u + v * v;
    } while (s >= 1 || s == 0);
    return u * Math.sqrt(-2 * Math.log(s) / s);
  }
}
