package org.dp4j.data;

import static com.google.common.base.Preconditions.checkNotNull;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Loads MNIST or Fashion-MNIST (same IDX layout and file names) from a folder holding the four
 * standard files, each either raw or gzipped ({@code name} or {@code name.gz}). Validates the magic
 * numbers (0x00000803 images, 0x00000801 labels), the file lengths against their headers, 28×28
 * images, equal image and label counts, and labels in 0..9. Any problem is a
 * {@link DataFileException} naming the file; a missing file points to {@code scripts/fetch-data.sh}.
 *
 * <pre>{@code
 * LabelledImages test = MnistLoader.load(Path.of(".cache/data/mnist"), MnistSplit.TEST);
 * DataSet ds = test.toDataSet(DataType.FLOAT);   // features [10000, 784] in [0, 1], labels [10000, 10]
 * }</pre>
 */
public final class MnistLoader {
  public static final int SIDE = 28;
  public static final int CLASSES = 10;

  private MnistLoader() {}

  /** Reads one split from {@code dir}. */
  public static LabelledImages load(Path dir, MnistSplit split) throws DataFileException {
    checkNotNull(dir, "dir");
    checkNotNull(split, "split");
    checkFolder(dir);
    Path imagesFile = locate(dir, split.imagesFile());
    Path labelsFile = locate(dir, split.labelsFile());
    IdxFile images = IdxFile.read(imagesFile, 3);
    IdxFile labels = IdxFile.read(labelsFile, 1);
    int[] dims = images.dimensions();
    if (dims[1] != SIDE || dims[2] != SIDE) {
      throw new DataFileException(imagesFile, "images are " + dims[1] + "x" + dims[2] + ", expected "
          + SIDE + "x" + SIDE);
    }
    int count = labels.dimensions()[0];
    if (dims[0] != count) {
      throw new DataFileException(imagesFile, "holds " + dims[0] + " images but " + labelsFile
          + " holds " + count + " labels");
    }
    byte[] labelBytes = labels.dataView();
    for (int i = 0; i < count; i++) {
      if ((labelBytes[i] & 0xFF) >= CLASSES) {
        throw new DataFileException(labelsFile, "label " + (labelBytes[i] & 0xFF) + " of record " + i
            + " is outside 0.." + (CLASSES - 1));
      }
    }
    return new LabelledImages(images.dataView(), labelBytes, SIDE, SIDE, CLASSES);
  }

  /** A missing folder, a file given as the folder and a folder that cannot be listed are named as such. */
  private static void checkFolder(Path dir) throws DataFileException {
    if (!Files.exists(dir)) {
      throw new DataFileException(dir, "folder not found; run scripts/fetch-data.sh, which fills .cache/data/mnist "
          + "and .cache/data/fashion-mnist");
    }
    if (!Files.isDirectory(dir)) {
      throw new DataFileException(dir, "is a file, not a folder: give the folder that holds the four IDX files");
    }
    if (!Files.isReadable(dir) || !Files.isExecutable(dir)) {
      throw new DataFileException(dir, "folder cannot be read (permission denied)");
    }
  }

  private static Path locate(Path dir, String name) throws DataFileException {
    Path raw = dir.resolve(name);
    Path gz = dir.resolve(name + ".gz");
    for (Path p : new Path[] {raw, gz}) {
      if (Files.isDirectory(p)) {
        throw new DataFileException(p, "is a folder, not a file");
      }
      if (Files.isRegularFile(p)) {
        return p;
      }
    }
    throw new DataFileException(raw, "file not found (nor " + gz.getFileName() + "); run "
        + "scripts/fetch-data.sh, which fills .cache/data/mnist and .cache/data/fashion-mnist");
  }
}
