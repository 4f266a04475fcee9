package org.dp4j.mbcd;

import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * A source of i.i.d. N(0, std²) noise for the released blocks. A small seam until dp4j's noise
 * package lands: {@link #secure()} is the default; {@link #seededForTestsOnly} is reproducible and
 * must never be used for a release.
 */
public interface GaussianNoise {

  /** A new row vector [1, length] of i.i.d. N(0, std²) draws; std ≥ 0. */
  INDArray sample(DataType type, long length, double std);

  /** Whether the draws come from a cryptographically secure generator. */
  boolean isSecure();

  /** Draws from {@link java.security.SecureRandom} (slow but sound). */
  static GaussianNoise secure() {
    return new SecureGaussianNoise();
  }

  /** ND4J's seeded generator: reproducible, NOT secure; for tests and benchmarks only. */
  static GaussianNoise seededForTestsOnly(long seed) {
    return new SeededGaussianNoise(seed);
  }
}
