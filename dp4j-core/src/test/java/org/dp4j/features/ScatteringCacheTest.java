package org.dp4j.features;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import org.dp4j.data.LabelledImages;
import org.dp4j.data.MnistLoader;
import org.dp4j.data.MnistSplit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;

class ScatteringCacheTest {
  private static final ScatteringTransform S = ScatteringTransform.of(28, 2, 8);

  @TempDir
  Path dir;

  @Test
  void computesOnceThenReadsTheSameFeatures() throws IOException {
    LabelledImages images = images(3, 1);
    Path file = dir.resolve("f.scat");
    ScatteringCache.Result first = ScatteringCache.features(file, images, S, done -> { });
    assertThat(first.origin()).startsWith("computed (no cache file yet)");
    ScatteringCache.Result second = ScatteringCache.features(file, images, S, done -> { });
    assertThat(second.origin()).startsWith("read from");
    INDArray direct = S.transform(images.toDataSet(DataType.FLOAT).getFeatures());
    assertThat(second.features().equalsWithEps(direct, 0)).isTrue();
    assertThat(first.features().equalsWithEps(direct, 0)).isTrue();
  }

  @Test
  void aDamagedFileIsDetectedAndReplaced() throws IOException {
    LabelledImages images = images(2, 5);
    Path file = dir.resolve("f.scat");
    ScatteringCache.features(file, images, S, done -> { });
    byte[] bytes = Files.readAllBytes(file);
    bytes[bytes.length / 2] ^= 0x10; // one bit of one feature
    Files.write(file, bytes);
    ScatteringCache.Result r = ScatteringCache.features(file, images, S, done -> { });
    assertThat(r.origin()).contains("damaged").contains("checksum");
    assertThat(ScatteringCache.features(file, images, S, done -> { }).origin()).startsWith("read from");
    Files.write(file, java.util.Arrays.copyOf(bytes, 100));
    assertThat(ScatteringCache.features(file, images, S, done -> { }).origin()).contains("bytes, not the");
  }

  @Test
  void otherImagesAtTheSamePathAreRecomputed() throws IOException {
    Path file = dir.resolve("f.scat");
    ScatteringCache.features(file, images(2, 1), S, done -> { });
    ScatteringCache.Result r = ScatteringCache.features(file, images(2, 2), S, done -> { });
    assertThat(r.origin()).contains("other images or transform parameters");
  }

  /** {@code n} 28×28 images with pixel (i, p) = (i·31 + p·seed) mod 256, written as IDX files and loaded. */
  private LabelledImages images(int n, int seed) throws IOException {
    Path data = Files.createDirectories(dir.resolve("data" + seed + "-" + n));
    ByteBuffer img = ByteBuffer.allocate(16 + n * 784).putInt(0x803).putInt(n).putInt(28).putInt(28);
    ByteBuffer lab = ByteBuffer.allocate(8 + n).putInt(0x801).putInt(n);
    for (int i = 0; i < n; i++) {
      for (int p = 0; p < 784; p++) {
        img.put((byte) ((i * 31 + p * seed) % 256));
      }
      lab.put((byte) (i % 10));
    }
    Files.write(data.resolve("t10k-images-idx3-ubyte"), img.array());
    Files.write(data.resolve("t10k-labels-idx1-ubyte"), lab.array());
    return MnistLoader.load(data, MnistSplit.TEST);
  }
}
