package org.dp4j.updater;

import org.dp4j.noise.NoiseSource;
import org.dp4j.noise.GaussianNoise;

import org.nd4j.linalg.api.ndarray.INDArray;

/** Seeded noise that remembers the last noise it added, so a test can recompute the expected update. */
final class RecordingNoise implements NoiseSource {
  private final NoiseSource delegate;
  private INDArray last;

  RecordingNoise(long seed) {
    this.delegate = GaussianNoise.insecureFixedSeed(seed);
  }

  @Override
  public void addGaussian(INDArray target, double std) {
    INDArray before = target.dup();
    delegate.addGaussian(target, std);
    last = target.sub(before);
  }

  INDArray last() {
    return last;
  }
}
