package org.dp4j.updater;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.security.GeneralSecurityException;
import javax.crypto.Cipher;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Random 64-bit words from AES-256 in counter mode (the generator of NIST SP 800-90A CTR_DRBG, without its
 * derivation function): as unpredictable as the key. Produced in 4 KiB chunks, which lets the JIT use the AES
 * instructions of the CPU.
 */
final class AesKeystream {
  private static final int CHUNK = 4096;
  private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final byte[] ZEROS = new byte[CHUNK];

  private final Cipher cipher;
  private final byte[] chunk = new byte[CHUNK];
  private int position = CHUNK;

  /** @param key 32 bytes, @param iv 16 bytes (initial counter) */
  AesKeystream(byte[] key, byte[] iv) {
    try {
      cipher = Cipher.getInstance("AES/CTR/NoPadding");
      cipher.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(key, "AES"), new IvParameterSpec(iv));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES/CTR/NoPadding with 256-bit keys is required by Java 17", e);
    }
  }

  long nextLong() {
    if (position == CHUNK) {
      try {
        cipher.update(ZEROS, 0, CHUNK, chunk, 0);
      } catch (GeneralSecurityException e) {
        throw new IllegalStateException(e);
      }
      position = 0;
    }
    long word = (long) LONGS.get(chunk, position);
    position += Long.BYTES;
    return word;
  }

  /** Uniform on (0, 1], 53 bits. */
  double nextOpenUniform() {
    return ((nextLong() >>> 11) + 1) * 0x1.0p-53;
  }
}
