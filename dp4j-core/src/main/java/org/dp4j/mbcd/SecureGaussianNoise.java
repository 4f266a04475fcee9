package org.dp4j.mbcd;

import static com.google.common.base.Preconditions.checkArgument;

import java.security.SecureRandom;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/** Gaussian noise from {@link SecureRandom#nextGaussian()} (DESIGN: secure by default). */
final class SecureGaussianNoise implements GaussianNoise {
  private final SecureRandom random = new SecureRandom();

  @Override
  public INDArray sample(DataType type, long length, double std) {
    checkArgument(std >= 0 && Double.isFinite(std), "noise std must be finite and >= 0, was %s", std);
    checkArgument(length <= Integer.MAX_VALUE, "length must fit an int, was %s", length);
    double[] z = new double[(int) length];
    for (int i = 0; i < z.length; i++) {
      z[i] = std * random.nextGaussian();
    }
    return Nd4j.createFromArray(z).reshape(1, length).castTo(type);
  }

  @Override
  public boolean isSecure() {
    return true;
  }
}
