package org.dp4j.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.dataset.DataSet;

/** IDX files written by the test itself: valid, gzipped, truncated, wrong magic, inconsistent. */
class MnistLoaderTest {
  private static final int D = 28 * 28;
  private static final int[] LABELS = {3, 0, 9};

  @TempDir
  Path dir;

  /** Image i has pixel k = (i·7 + k) mod 256, so pixel values are known exactly. */
  private static byte[] imagesIdx(int count, int rows, int cols) {
    ByteBuffer b = ByteBuffer.allocate(16 + count * rows * cols);
    b.putInt(0x00000803).putInt(count).putInt(rows).putInt(cols);
    for (int i = 0; i < count; i++) {
      for (int k = 0; k < rows * cols; k++) {
        b.put((byte) ((i * 7 + k) % 256));
      }
    }
    return b.array();
  }

  private static byte[] labelsIdx(int... labels) {
    ByteBuffer b = ByteBuffer.allocate(8 + labels.length);
    b.putInt(0x00000801).putInt(labels.length);
    for (int l : labels) {
      b.put((byte) l);
    }
    return b.array();
  }

  private static byte[] gzip(byte[] raw) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (OutputStream gz = new GZIPOutputStream(bytes)) {
      gz.write(raw);
    }
    return bytes.toByteArray();
  }

  private void writeTest(byte[] images, byte[] labels) throws IOException {
    Files.write(dir.resolve("t10k-images-idx3-ubyte"), images);
    Files.write(dir.resolve("t10k-labels-idx1-ubyte"), labels);
  }

  @Test
  void loadsRawFilesIntoScaledFeaturesAndOneHotLabels() throws IOException {
    writeTest(imagesIdx(3, 28, 28), labelsIdx(LABELS));
    LabelledImages set = MnistLoader.load(dir, MnistSplit.TEST);
    assertThat(set.size()).isEqualTo(3);
    assertThat(set.featureCount()).isEqualTo(784);
    assertThat(set.labels()).containsExactly(LABELS);
    assertThat(set.rawPixel(1, 10)).isEqualTo(17);
    assertThat(set.rawPixel(2, 255)).isEqualTo((14 + 255) % 256);

    for (DataType type : new DataType[] {DataType.FLOAT, DataType.DOUBLE}) {
      DataSet ds = set.toDataSet(type);
      assertThat(ds.getFeatures().shape()).containsExactly(3, 784);
      assertThat(ds.getLabels().shape()).containsExactly(3, 10);
      assertThat(ds.getFeatures().dataType()).isEqualTo(type);
      assertThat(ds.getLabels().dataType()).isEqualTo(type);
      assertThat(ds.getFeatures().getDouble(1, 10)).isCloseTo(17 / 255.0, org.assertj.core.data.Offset.offset(1e-7));
      assertThat(ds.getFeatures().getDouble(0, 255)).isEqualTo(1.0);
      assertThat(ds.getFeatures().getDouble(0, 0)).isEqualTo(0.0);
      assertThat(ds.getFeatures().minNumber().doubleValue()).isGreaterThanOrEqualTo(0.0);
      assertThat(ds.getFeatures().maxNumber().doubleValue()).isLessThanOrEqualTo(1.0);
      for (int i = 0; i < 3; i++) {
        assertThat(ds.getLabels().getRow(i).toDoubleVector())
            .isEqualTo(oneHot(LABELS[i]));
      }
    }
    float[] plain = set.scaledFeatures();
    assertThat(plain).hasSize(3 * D);
    assertThat(plain[D + 10]).isEqualTo(17 / 255f);
  }

  @Test
  void batchDataSetFollowsTheSamplerIndices() throws IOException {
    writeTest(imagesIdx(3, 28, 28), labelsIdx(LABELS));
    LabelledImages set = MnistLoader.load(dir, MnistSplit.TEST);
    DataSet batch = set.toDataSet(new int[] {2, 0}, DataType.FLOAT);
    assertThat(batch.getLabels().getRow(0).toDoubleVector()).isEqualTo(oneHot(9));
    assertThat(batch.getLabels().getRow(1).toDoubleVector()).isEqualTo(oneHot(3));
    assertThat(batch.getFeatures().getDouble(0, 1)).isCloseTo(15 / 255.0, org.assertj.core.data.Offset.offset(1e-7));
    assertThatThrownBy(() -> set.toDataSet(new int[0], DataType.FLOAT))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("empty Poisson batch");
    assertThatThrownBy(() -> set.toDataSet(new int[] {3}, DataType.FLOAT))
        .isInstanceOf(IndexOutOfBoundsException.class);
  }

  @Test
  void gzippedFilesGiveTheSameData() throws IOException {
    Files.write(dir.resolve("train-images-idx3-ubyte.gz"), gzip(imagesIdx(3, 28, 28)));
    Files.write(dir.resolve("train-labels-idx1-ubyte.gz"), gzip(labelsIdx(LABELS)));
    writeTest(imagesIdx(3, 28, 28), labelsIdx(LABELS));
    LabelledImages gz = MnistLoader.load(dir, MnistSplit.TRAIN);
    LabelledImages raw = MnistLoader.load(dir, MnistSplit.TEST);
    assertThat(gz.labels()).isEqualTo(raw.labels());
    assertThat(gz.scaledFeatures()).isEqualTo(raw.scaledFeatures());
  }

  @Test
  void truncatedImagesAreReportedWithTheFileAndByteCounts() throws IOException {
    byte[] full = imagesIdx(3, 28, 28);
    writeTest(Arrays.copyOf(full, full.length - 100), labelsIdx(LABELS));
    assertThatThrownBy(() -> MnistLoader.load(dir, MnistSplit.TEST))
        .isInstanceOf(DataFileException.class)
        .hasMessageContaining("t10k-images-idx3-ubyte")
        .hasMessageContaining("truncated: header declares [3, 28, 28] = 2352 data bytes, file has 2252");
  }

  @Test
  void truncatedGzipStreamIsReported() throws IOException {
    byte[] gz = gzip(imagesIdx(3, 28, 28));
    Files.write(dir.resolve("t10k-images-idx3-ubyte.gz"), Arrays.copyOf(gz, gz.length / 2));
    Files.write(dir.resolve("t10k-labels-idx1-ubyte"), labelsIdx(LABELS));
    assertThatThrownBy(() -> MnistLoader.load(dir, MnistSplit.TEST))
        .isInstanceOf(DataFileException.class)
        .hasMessageContaining("t10k-images-idx3-ubyte.gz")
        .hasMessageContaining("corrupt or truncated gzip stream");
  }

  @Test
  void gzipCutInsideItsHeaderOrTrailerSaysSoNotNull() throws IOException {
    byte[] gz = gzip(labelsIdx(LABELS));
    Files.write(dir.resolve("t10k-images-idx3-ubyte"), imagesIdx(3, 28, 28));
    // 5 bytes: inside the 10-byte header; length - 4: inside the 8-byte trailer (CRC-32, size). Both make
    // java.util.zip throw an EOFException whose message is null.
    for (int length : new int[] {5, gz.length - 4}) {
      Files.write(dir.resolve("t10k-labels-idx1-ubyte.gz"), Arrays.copyOf(gz, length));
      assertThatThrownBy(() -> MnistLoader.load(dir, MnistSplit.TEST)).as("%d bytes", length)
          .isInstanceOf(DataFileException.class)
          .hasMessageContaining("t10k-labels-idx1-ubyte.gz: corrupt or truncated gzip stream (the file ends inside "
              + "the gzip header or trailer)")
          .hasMessageNotContaining("null");
    }
  }

  @Test
  void aFileGivenAsTheFolderAndAFolderWhereAFileBelongAreNamedAsSuch() throws IOException {
    Path file = dir.resolve("not-a-folder");
    Files.write(file, new byte[] {1});
    assertThatThrownBy(() -> MnistLoader.load(file, MnistSplit.TEST))
        .isInstanceOf(DataFileException.class)
        .hasMessage(file + ": is a file, not a folder: give the folder that holds the four IDX files");
    assertThatThrownBy(() -> MnistLoader.load(dir.resolve("missing"), MnistSplit.TEST))
        .isInstanceOf(DataFileException.class).hasMessageContaining("missing: folder not found; run scripts/fetch");
    Files.createDirectory(dir.resolve("t10k-images-idx3-ubyte"));
    assertThatThrownBy(() -> MnistLoader.load(dir, MnistSplit.TEST))
        .isInstanceOf(DataFileException.class)
        .hasMessage(dir.resolve("t10k-images-idx3-ubyte") + ": is a folder, not a file");
  }

  @Test
  void anUnreadableFolderIsNamedAsSuch() throws IOException {
    writeTest(imagesIdx(3, 28, 28), labelsIdx(LABELS));
    Files.setPosixFilePermissions(dir, java.nio.file.attribute.PosixFilePermissions.fromString("-w-------"));
    try {
      // root reads any folder: the check is then vacuous, so the test is skipped rather than passing blindly.
      org.junit.jupiter.api.Assumptions.assumeFalse(Files.isReadable(dir), "running as root");
      assertThatThrownBy(() -> MnistLoader.load(dir, MnistSplit.TEST))
          .isInstanceOf(DataFileException.class)
          .hasMessage(dir + ": folder cannot be read (permission denied)");
    } finally {
      Files.setPosixFilePermissions(dir, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
    }
  }

  @Test
  void wrongMagicNumbersAreReported() throws IOException {
    byte[] images = imagesIdx(3, 28, 28);
    images[3] = 0x01;   // claims rank 1: looks like a labels file
    writeTest(images, labelsIdx(LABELS));
    assertThatThrownBy(() -> MnistLoader.load(dir, MnistSplit.TEST))
        .isInstanceOf(DataFileException.class)
        .hasMessageContaining("t10k-images-idx3-ubyte")
        .hasMessageContaining("bad magic number");

    byte[] labels = labelsIdx(LABELS);
    labels[2] = 0x0D;   // IDX type 0x0D = float, not unsigned byte
    writeTest(imagesIdx(3, 28, 28), labels);
    assertThatThrownBy(() -> MnistLoader.load(dir, MnistSplit.TEST))
        .isInstanceOf(DataFileException.class)
        .hasMessageContaining("t10k-labels-idx1-ubyte")
        .hasMessageContaining("bad magic number 0x00000D01: expected 0x00000801..0x00000804");
  }

  @Test
  void rankMismatchNamesTheExpectedMagic() throws IOException {
    writeTest(labelsIdx(LABELS), labelsIdx(LABELS));
    assertThatThrownBy(() -> MnistLoader.load(dir, MnistSplit.TEST))
        .isInstanceOf(DataFileException.class)
        .hasMessageContaining("bad magic number 0x00000801: expected 0x00000803");
  }

  @Test
  void inconsistentSizesAndLabelsAreReported() throws IOException {
    writeTest(imagesIdx(3, 28, 28), labelsIdx(1, 2));
    assertThatThrownBy(() -> MnistLoader.load(dir, MnistSplit.TEST))
        .isInstanceOf(DataFileException.class).hasMessageContaining("holds 3 images but")
        .hasMessageContaining("holds 2 labels");

    writeTest(imagesIdx(2, 27, 28), labelsIdx(1, 2));
    assertThatThrownBy(() -> MnistLoader.load(dir, MnistSplit.TEST))
        .isInstanceOf(DataFileException.class).hasMessageContaining("images are 27x28, expected 28x28");

    writeTest(imagesIdx(2, 28, 28), labelsIdx(1, 10));
    assertThatThrownBy(() -> MnistLoader.load(dir, MnistSplit.TEST))
        .isInstanceOf(DataFileException.class)
        .hasMessageContaining("label 10 of record 1 is outside 0..9");

    byte[] longer = Arrays.copyOf(imagesIdx(2, 28, 28), 16 + 2 * D + 5);
    writeTest(longer, labelsIdx(1, 2));
    assertThatThrownBy(() -> MnistLoader.load(dir, MnistSplit.TEST))
        .isInstanceOf(DataFileException.class).hasMessageContaining("longer than its header declares");

    writeTest(new byte[] {0, 0, 8}, labelsIdx(1, 2));
    assertThatThrownBy(() -> MnistLoader.load(dir, MnistSplit.TEST))
        .isInstanceOf(DataFileException.class).hasMessageContaining("too short for an IDX header (3 bytes)");
  }

  @Test
  void missingFilesNameBothCandidatesAndTheFetchScript() throws IOException {
    Files.write(dir.resolve("t10k-images-idx3-ubyte"), imagesIdx(1, 28, 28));
    assertThatThrownBy(() -> MnistLoader.load(dir, MnistSplit.TEST))
        .isInstanceOf(DataFileException.class)
        .hasMessageContaining(dir.resolve("t10k-labels-idx1-ubyte").toString())
        .hasMessageContaining("file not found (nor t10k-labels-idx1-ubyte.gz)")
        .hasMessageContaining("scripts/fetch-data.sh")
        .satisfies(e -> assertThat(((DataFileException) e).file().getFileName().toString())
            .isEqualTo("t10k-labels-idx1-ubyte"));
  }

  private static double[] oneHot(int label) {
    double[] v = new double[10];
    v[label] = 1;
    return v;
  }
}
