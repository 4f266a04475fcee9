package org.dp4j.noise;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class AesCtrRandomTest {

  /**
   * NIST SP 800-38A, Appendix F.5.5 (CTR-AES256.Encrypt): the keystream is ciphertext XOR plaintext
   * of block #1, an independent check that the generator emits the AES-256-CTR keystream.
   */
  @Test
  void emitsTheNistAes256CtrKeystream() {
    HexFormat hex = HexFormat.of();
    byte[] key = hex.parseHex("603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4");
    byte[] counter = hex.parseHex("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff");
    byte[] plain = hex.parseHex("6bc1bee22e409f96e93d7e117393172a");
    byte[] cipher = hex.parseHex("601ec313775789a5b7a7f504bbf3d228");
    AesCtrRandom random = AesCtrRandom.withKeyForTest(key, counter);

    byte[] keystream = new byte[16];
    for (int word = 0; word < 2; word++) {
      long value = random.nextLong();   // little-endian view of the keystream bytes
      for (int b = 0; b < 8; b++) {
        keystream[8 * word + b] = (byte) (value >>> (8 * b));
      }
    }
    for (int i = 0; i < 16; i++) {
      assertThat(keystream[i]).isEqualTo((byte) (plain[i] ^ cipher[i]));
    }
  }

  @Test
  void fixedSeedIsReproducibleAndMarkedInsecure() {
    AesCtrRandom a = AesCtrRandom.insecureFixedSeed(42);
    AesCtrRandom b = AesCtrRandom.insecureFixedSeed(42);
    AesCtrRandom c = AesCtrRandom.insecureFixedSeed(43);
    long[] first = {a.nextLong(), a.nextLong(), a.nextLong()};
    assertThat(new long[] {b.nextLong(), b.nextLong(), b.nextLong()}).isEqualTo(first);
    assertThat(new long[] {c.nextLong(), c.nextLong(), c.nextLong()}).isNotEqualTo(first);
    assertThat(a.isSecure()).isFalse();
  }

  @Test
  void secureInstancesAreIndependentlyKeyed() {
    AesCtrRandom a = AesCtrRandom.secure();
    AesCtrRandom b = AesCtrRandom.secure();
    assertThat(a.isSecure()).isTrue();
    // Equal first words from independent 256-bit keys: probability 2^-64.
    assertThat(a.nextLong()).isNotEqualTo(b.nextLong());
  }

  @Test
  void bitsAreBalancedAcrossBufferRefills() {
    AesCtrRandom random = AesCtrRandom.insecureFixedSeed(7);
    int words = 3 * AesCtrRandom.BUFFER_BYTES / Long.BYTES;   // crosses two refills
    long ones = 0;
    for (int i = 0; i < words; i++) {
      ones += Long.bitCount(random.nextLong());
    }
    // Binomial(64·words, 1/2): mean 32·words, sd 4·sqrt(words); 6 sd bound.
    double sd = 4 * Math.sqrt(words);
    assertThat((double) ones).isCloseTo(32.0 * words, org.assertj.core.data.Offset.offset(6 * sd));
  }

  @Test
  void rejectsKeysThatAreNotAes256() {
    assertThatThrownBy(() -> AesCtrRandom.withKeyForTest(new byte[16], new byte[16]))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("32 bytes, had 16");
  }
}
