package org.dp4j.updater;

import static com.google.common.base.Preconditions.checkArgument;

import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import javax.crypto.Cipher;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.ops.transforms.Transforms;

/**
 * Gaussian noise from a cryptographically secure generator, fast enough for a DP-SGD step: uniform bits from
 * AES-256 in counter mode under a fresh key drawn from {@link SecureRandom} for every call (the CTR_DRBG
 * construction of NIST SP 800-90A, without its derivation function), turned into normals by the Box–Muller
 * transform in double precision (Box &amp; Muller 1958).
 *
 * <p>Known limit: Box–Muller on floating point does not give an exactly Gaussian distribution on the grid of
 * doubles; the {@code org.dp4j.noise} package will replace this class with a sampler that addresses it.
 *
 * <pre>{@code
 * NoiseSource noise = new SecureGaussianNoise();
 * noise.addGaussian(gradientSum, noiseMultiplier * clipNorm);
 * }</pre>
 */
public final class SecureGaussianNoise implements NoiseSource {
  private static final double TWO_TO_MINUS_53 = 0x1.0p-53;
  private final SecureRandom seeds = new SecureRandom();

  @Override
  public void addGaussian(INDArray target, double std) {
    checkArgument(std >= 0 && Double.isFinite(std), "std must be finite and >= 0, was %s", std);
    long length = target.length();
    if (length == 0 || std == 0) {
      return;
    }
    checkArgument(length <= Integer.MAX_VALUE / 16, "target too large for one call: %s elements", length);
    int pairs = (int) ((length + 1) / 2);
    ByteBuffer bits = ByteBuffer.wrap(keystream(16 * pairs));
    double[] radius = new double[pairs];
    double[] angle = new double[pairs];
    for (int i = 0; i < pairs; i++) {
      // 53-bit uniforms: u1 in (0, 1] keeps log finite, u2 in [0, 1).
      radius[i] = ((bits.getLong() >>> 11) + 1) * TWO_TO_MINUS_53;
      angle[i] = (bits.getLong() >>> 11) * TWO_TO_MINUS_53 * 2 * Math.PI;
    }
    INDArray r = Transforms.sqrt(Transforms.log(Nd4j.createFromArray(radius), false).muli(-2.0), false);
    INDArray theta = Nd4j.createFromArray(angle);
    INDArray normals = Nd4j.concat(0, Transforms.cos(theta, true).muli(r), Transforms.sin(theta, false).muli(r));
    INDArray noise = normals.get(org.nd4j.linalg.indexing.NDArrayIndex.interval(0, length)).muli(std);
    target.addi(noise.castTo(target.dataType())
        .reshape(target.ordering(), target.shape()));
  }

  private byte[] keystream(int bytes) {
    byte[] key = new byte[32];
    byte[] iv = new byte[16];
    seeds.nextBytes(key);
    seeds.nextBytes(iv);
    try {
      Cipher cipher = Cipher.getInstance("AES/CTR/NoPadding");
      cipher.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(key, "AES"), new IvParameterSpec(iv));
      return cipher.doFinal(new byte[bytes]);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES/CTR/NoPadding is required by every Java platform", e);
    }
  }
}
