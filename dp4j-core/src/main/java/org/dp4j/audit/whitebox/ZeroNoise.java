package org.dp4j.audit.whitebox;

import org.dp4j.noise.NoiseSource;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * Adds no noise at all: a <b>non-private</b> baseline for audits only ({@code dp4j audit --noise-multiplier 0}),
 * showing what the auditor measures when nothing protects the canaries. Never secure, so a trainer marks every
 * guarantee of such a run void.
 */
public final class ZeroNoise implements NoiseSource {
  @Override
  public void addGaussian(INDArray target, double std) {
    // deliberately nothing: the run is not private
  }

  @Override
  public boolean isSecure() {
    return false;
  }
}
