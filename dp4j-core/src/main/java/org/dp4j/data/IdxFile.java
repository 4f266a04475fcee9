package org.dp4j.data;

import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.GZIPInputStream;

/**
 * One IDX file of unsigned bytes (LeCun's MNIST format), read whole and validated: magic number
 * {@code 00 00 08 D} (D dimensions, data type 0x08 = unsigned byte), D big-endian dimension sizes,
 * then exactly their product in bytes. Gzipped files are recognised by their content (1F 8B), not
 * by name.
 *
 * <pre>{@code
 * IdxFile labels = IdxFile.read(Path.of(".cache/data/mnist/t10k-labels-idx1-ubyte"));
 * labels.dimensions();   // [10000]
 * }</pre>
 */
public final class IdxFile {
  static final int UNSIGNED_BYTE = 0x08;

  private final int[] dimensions;
  private final byte[] data;

  private IdxFile(int[] dimensions, byte[] data) {
    this.dimensions = dimensions;
    this.data = data;
  }

  /**
   * Reads and validates {@code file}, which must have {@code expectedRank} dimensions (magic number
   * {@code 0x0000080D}, D = expectedRank); every failure is a {@link DataFileException} naming it.
   */
  public static IdxFile read(Path file, int expectedRank) throws DataFileException {
    if (expectedRank < 1 || expectedRank > 4) {
      throw new IllegalArgumentException("expected rank must be in 1..4, was " + expectedRank);
    }
    return parse(file, expectedRank);
  }

  /** Reads and validates {@code file} of any rank 1..4. */
  public static IdxFile read(Path file) throws DataFileException {
    return parse(file, 0);
  }

  private static IdxFile parse(Path file, int expectedRank) throws DataFileException {
    byte[] bytes = decompressed(file, readBytes(file));
    if (bytes.length < 4) {
      throw new DataFileException(file, "too short for an IDX header (" + bytes.length + " bytes)");
    }
    ByteBuffer in = ByteBuffer.wrap(bytes);   // big-endian, as IDX
    int magic = in.getInt();
    int type = (magic >>> 8) & 0xFF;
    int rank = magic & 0xFF;
    if ((magic >>> 16) != 0 || type != UNSIGNED_BYTE || rank < 1 || rank > 4) {
      throw new DataFileException(file, String.format(
          "bad magic number 0x%08X: expected 0x00000801..0x00000804 (unsigned-byte IDX, 1 to 4 dimensions)",
          magic));
    }
    if (expectedRank != 0 && rank != expectedRank) {
      throw new DataFileException(file, String.format(
          "bad magic number 0x%08X: expected 0x%08X (unsigned-byte IDX with %d dimensions)",
          magic, magicFor(expectedRank), expectedRank));
    }
    if (bytes.length < 4 + 4 * rank) {
      throw new DataFileException(file, "truncated header: " + rank + " dimensions need "
          + (4 + 4 * rank) + " bytes, file has " + bytes.length);
    }
    int[] dims = new int[rank];
    long expected = 1;
    for (int k = 0; k < rank; k++) {
      dims[k] = in.getInt();
      if (dims[k] <= 0) {
        throw new DataFileException(file, "dimension " + k + " is " + dims[k] + ", must be > 0");
      }
      expected *= dims[k];
      if (expected > Integer.MAX_VALUE - 64) {
        throw new DataFileException(file, "declares more than 2^31 data bytes " + Arrays.toString(dims));
      }
    }
    long actual = bytes.length - in.position();
    if (actual != expected) {
      throw new DataFileException(file, String.format("%s: header declares %s = %d data bytes, file has %d",
          actual < expected ? "truncated" : "longer than its header declares", Arrays.toString(dims),
          expected, actual));
    }
    return new IdxFile(dims, Arrays.copyOfRange(bytes, in.position(), bytes.length));
  }

  /** The magic number for an unsigned-byte IDX file of the given rank, e.g. 0x803 for images. */
  public static int magicFor(int rank) {
    return (UNSIGNED_BYTE << 8) | rank;
  }

  public int rank() {
    return dimensions.length;
  }

  public int[] dimensions() {
    return dimensions.clone();
  }

  /** The raw data, row-major, as unsigned bytes stored in Java bytes (a copy). */
  public byte[] data() {
    return data.clone();
  }

  /** The data without copying, for the loaders in this package. */
  byte[] dataView() {
    return data;
  }

  private static byte[] readBytes(Path file) throws DataFileException {
    try {
      return Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      throw new DataFileException(file, "file not found", e);
    } catch (AccessDeniedException e) {
      throw new DataFileException(file, "cannot read (permission denied)", e);
    } catch (IOException e) {
      throw new DataFileException(file, "cannot read: " + e, e);
    }
  }

  private static byte[] decompressed(Path file, byte[] bytes) throws DataFileException {
    boolean gzipped = bytes.length >= 2 && (bytes[0] & 0xFF) == 0x1F && (bytes[1] & 0xFF) == 0x8B;
    if (!gzipped) {
      return bytes;
    }
    try (InputStream gz = new GZIPInputStream(new ByteArrayInputStream(bytes))) {
      return gz.readAllBytes();
    } catch (IOException e) {
      // java.util.zip reports a stream cut inside its header or trailer as an EOFException without a message.
      String reason = e.getMessage() != null ? e.getMessage() : e instanceof EOFException
          ? "the file ends inside the gzip header or trailer" : e.getClass().getSimpleName();
      throw new DataFileException(file, "corrupt or truncated gzip stream (" + reason + ")", e);
    }
  }
}
