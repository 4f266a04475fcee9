package org.dp4j.noise;

import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * Adds independent N(0, std²) noise to every coordinate of an array, in place: all a DP update needs from
 * its noise. {@link GaussianNoise} is the implementation (secure by default); tests may record the noise.
 */
public interface NoiseSource {
  /**
   * @param target array to perturb in place
   * @param std standard deviation, finite and &gt; 0
   */
  void addGaussian(INDArray target, double std);

  /**
   * True only if the noise is drawn from a cryptographically secure generator (so the DP guarantee holds); false
   * for seeded or recording sources, and by default.
   */
  default boolean isSecure() {
    return false;
  }
}
