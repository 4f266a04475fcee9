package org.dp4j.features;

import static com.google.common.base.Preconditions.checkNotNull;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.function.IntConsumer;
import org.dp4j.InvalidSettingException;
import org.dp4j.data.LabelledImages;
import org.dp4j.io.AtomicFiles;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;

/**
 * Scattering features of a set of images, computed once and kept in a file: the transform depends on no training
 * data, so the features of a data set are a fixed function of its pixels and can be reused by every run.
 *
 * <p>File format (big-endian header, little-endian floats): magic {@code DP4JSCAT}, version, n, feature count,
 * the SHA-256 key of (J, L, image size, all pixels), n × features floats, and the SHA-256 of everything before
 * it. The file is written atomically ({@link AtomicFiles}); on reading, a different key (other images or
 * parameters) or a checksum that does not match (a damaged file) makes the features be computed again and the
 * file replaced, and {@link Result#origin()} says so.
 *
 * <pre>{@code
 * // given: LabelledImages train
 * ScatteringCache.Result r = ScatteringCache.features(Path.of(".cache/features/mnist-train.scat"), train,
 *     ScatteringTransform.of(28, 2, 8), done -> { });
 * INDArray f = r.features();    // [60000, 3969]
 * }</pre>
 */
public final class ScatteringCache {
  private static final byte[] MAGIC = "DP4JSCAT".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
  private static final int VERSION = 1;
  private static final int BATCH = 64;
  private static final int CHUNK_ROWS = 512;

  private ScatteringCache() {}

  /** The features and where they came from. */
  public record Result(INDArray features, String origin) {}

  /**
   * The features of {@code images}, read from {@code file} when it holds them (validated), otherwise computed
   * (reporting the number of images done to {@code progress}) and written to {@code file}.
   *
   * @throws IOException if the file cannot be written (the features are not returned then)
   */
  public static Result features(Path file, LabelledImages images, ScatteringTransform transform,
      IntConsumer progress) throws IOException {
    checkNotNull(file, "file");
    checkArgumentSquare(images, transform);
    byte[] key = key(images, transform);
    String why;
    if (Files.isRegularFile(file)) {
      try {
        return new Result(read(file, key, images.size(), transform.featureCount()), "read from " + file);
      } catch (StaleCacheException e) {
        why = e.getMessage();
      }
    } else {
      why = "no cache file yet";
    }
    INDArray features = compute(images, transform, progress);
    write(file, key, features);
    return new Result(features, "computed (" + why + ") and written to " + file);
  }

  /** The features of all images, in batches (no file). */
  public static INDArray compute(LabelledImages images, ScatteringTransform transform, IntConsumer progress) {
    checkArgumentSquare(images, transform);
    int n = images.size();
    INDArray out = Nd4j.create(DataType.FLOAT, n, transform.featureCount());
    for (int from = 0; from < n; from += BATCH) {
      int to = Math.min(n, from + BATCH);
      int[] idx = new int[to - from];
      for (int i = 0; i < idx.length; i++) {
        idx[i] = from + i;
      }
      INDArray f = transform.transform(images.toDataSet(idx, DataType.FLOAT).getFeatures());
      out.get(NDArrayIndex.interval(from, to), NDArrayIndex.all()).assign(f);
      progress.accept(to);
    }
    return out;
  }

  private static void checkArgumentSquare(LabelledImages images, ScatteringTransform t) {
    if (images.rows() != t.imageSize() || images.cols() != t.imageSize()) {
      throw new InvalidSettingException("images are " + images.rows() + "x" + images.cols()
          + " but the transform is for " + t.imageSize() + "x" + t.imageSize());
    }
  }

  static byte[] key(LabelledImages images, ScatteringTransform t) {
    MessageDigest md = sha256();
    md.update(ByteBuffer.allocate(16).putInt(t.scales()).putInt(t.angles()).putInt(t.imageSize())
        .putInt(images.size()).array());
    byte[] row = new byte[images.featureCount()];
    for (int i = 0; i < images.size(); i++) {
      for (int f = 0; f < row.length; f++) {
        row[f] = (byte) images.rawPixel(i, f);
      }
      md.update(row);
    }
    return md.digest();
  }

  private static void write(Path file, byte[] key, INDArray features) throws IOException {
    int n = (int) features.size(0);
    int d = (int) features.size(1);
    AtomicFiles.write(file, raw -> {
      MessageDigest md = sha256();
      DataOutputStream out = new DataOutputStream(new DigestOutputStream(raw, md));
      out.write(MAGIC);
      out.writeInt(VERSION);
      out.writeInt(n);
      out.writeInt(d);
      out.write(key);
      ByteBuffer buf = ByteBuffer.allocate(CHUNK_ROWS * d * 4).order(ByteOrder.LITTLE_ENDIAN);
      for (int from = 0; from < n; from += CHUNK_ROWS) {
        int to = Math.min(n, from + CHUNK_ROWS);
        float[] v = features.get(NDArrayIndex.interval(from, to), NDArrayIndex.all()).dup('c').data().asFloat();
        buf.clear();
        buf.asFloatBuffer().put(v);
        out.write(buf.array(), 0, v.length * 4);
      }
      out.flush();
      raw.write(md.digest());
    });
  }

  private static INDArray read(Path file, byte[] key, int n, int d) throws IOException {
    long expected = MAGIC.length + 12L + key.length + 4L * n * d + 32;
    if (Files.size(file) != expected) {
      throw new StaleCacheException(file + " has " + Files.size(file) + " bytes, not the " + expected
          + " of " + n + " x " + d + " features");
    }
    MessageDigest md = sha256();
    try (InputStream raw = new BufferedInputStream(Files.newInputStream(file), 1 << 16)) {
      DataInputStream in = new DataInputStream(new DigestInputStream(raw, md));
      byte[] magic = new byte[MAGIC.length];
      in.readFully(magic);
      int version = in.readInt();
      int rows = in.readInt();
      int cols = in.readInt();
      byte[] stored = new byte[key.length];
      in.readFully(stored);
      if (!Arrays.equals(magic, MAGIC) || version != VERSION || rows != n || cols != d) {
        throw new StaleCacheException(file + " is not a version-" + VERSION + " cache of " + n + " x " + d
            + " scattering features");
      }
      if (!Arrays.equals(stored, key)) {
        throw new StaleCacheException(file + " holds the features of other images or transform parameters");
      }
      INDArray out = Nd4j.create(DataType.FLOAT, n, d);
      byte[] bytes = new byte[CHUNK_ROWS * d * 4];
      for (int from = 0; from < n; from += CHUNK_ROWS) {
        int to = Math.min(n, from + CHUNK_ROWS);
        in.readFully(bytes, 0, (to - from) * d * 4);
        float[] v = new float[(to - from) * d];
        ByteBuffer.wrap(bytes, 0, v.length * 4).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(v);
        out.get(NDArrayIndex.interval(from, to), NDArrayIndex.all())
            .assign(Nd4j.create(v, new long[] {to - from, d}, DataType.FLOAT));
      }
      byte[] digest = md.digest();
      byte[] checksum = new byte[32];
      new DataInputStream(raw).readFully(checksum);
      if (!MessageDigest.isEqual(digest, checksum)) {
        throw new StaleCacheException(file + " is damaged: its SHA-256 checksum does not match its content");
      }
      return out;
    } catch (EOFException e) {
      throw new StaleCacheException(file + " is truncated");
    }
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has SHA-256", e);
    }
  }

  /** A cache file that cannot be used; the features are computed again. */
  private static final class StaleCacheException extends IOException {
    StaleCacheException(String message) {
      super(message);
    }
  }
}
