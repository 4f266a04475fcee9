package org.dp4j.mbcd;

import static com.google.common.base.Preconditions.checkArgument;

import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.rng.Random;
import org.nd4j.linalg.factory.Nd4j;
import org.slf4j.LoggerFactory;

/** ND4J's seeded Gaussian generator: reproducible and NOT secure; tests and benchmarks only. */
final class SeededGaussianNoise implements GaussianNoise {
  private final Random random;

  SeededGaussianNoise(long seed) {
    LoggerFactory.getLogger(SeededGaussianNoise.class).warn(
        "DP-MBCD noise uses a FIXED SEED ({}): not secure, for tests and benchmarks only", seed);
    this.random = Nd4j.getRandomFactory().getNewRandomInstance(seed);
  }

  @Override
  public INDArray sample(DataType type, long length, double std) {
    checkArgument(std >= 0 && Double.isFinite(std), "noise std must be finite and >= 0, was %s", std);
    return Nd4j.randn(0.0, std, new long[] {1, length}, random).castTo(type);
  }

  @Override
  public boolean isSecure() {
    return false;
  }
}
