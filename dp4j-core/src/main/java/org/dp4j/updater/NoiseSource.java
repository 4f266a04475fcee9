package org.dp4j.updater;

import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * Adds independent N(0, std²) noise to every coordinate of an array, in place. The DP update needs nothing more.
 * A stop-gap interface until {@code org.dp4j.noise} lands; its generators will implement it.
 */
public interface NoiseSource {
  /**
   * @param target array to perturb in place
   * @param std standard deviation, finite and &ge; 0
   */
  void addGaussian(INDArray target, double std);
}
