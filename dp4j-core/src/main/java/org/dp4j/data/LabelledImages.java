package org.dp4j.data;

import static com.google.common.base.Preconditions.checkElementIndex;
import static com.google.common.base.Preconditions.checkNotNull;
import static org.dp4j.InvalidSettingException.checkArgument;

import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;

/**
 * An immutable in-memory image classification set: n grey images of rows×cols unsigned-byte pixels
 * and a label in [0, classes) for each. Exposes plain arrays and DL4J {@link DataSet}s (features
 * scaled to [0, 1] as pixel/255, shape [n, rows·cols]; one-hot labels [n, classes]), whole or for a
 * batch of indices from a sampler.
 *
 * <pre>{@code
 * // given: Path dir; BatchSampler sampler
 * LabelledImages train = MnistLoader.load(dir, MnistSplit.TRAIN);
 * DataSet all = train.toDataSet(DataType.FLOAT);                   // [60000, 784], [60000, 10]
 * DataSet batch = train.toDataSet(sampler.nextBatch(), DataType.FLOAT);
 * }</pre>
 */
public final class LabelledImages {
  private final byte[] pixels;
  private final byte[] labels;
  private final int size;
  private final int rows;
  private final int cols;
  private final int classes;

  /** Package-private: {@code pixels} and {@code labels} are owned (not copied), already validated. */
  LabelledImages(byte[] pixels, byte[] labels, int rows, int cols, int classes) {
    this.pixels = pixels;
    this.labels = labels;
    this.size = labels.length;
    this.rows = rows;
    this.cols = cols;
    this.classes = classes;
  }

  public int size() {
    return size;
  }

  public int rows() {
    return rows;
  }

  public int cols() {
    return cols;
  }

  /** rows·cols, the feature count per record. */
  public int featureCount() {
    return rows * cols;
  }

  public int classes() {
    return classes;
  }

  public int label(int record) {
    checkElementIndex(record, size, "record");
    return labels[record];
  }

  /** All labels, in record order (a copy). */
  public int[] labels() {
    int[] out = new int[size];
    for (int i = 0; i < size; i++) {
      out[i] = labels[i];
    }
    return out;
  }

  /** Pixel {@code feature} of {@code record} (row-major within the image), in [0, 255]. */
  public int rawPixel(int record, int feature) {
    checkElementIndex(record, size, "record");
    checkElementIndex(feature, featureCount(), "feature");
    return pixels[record * featureCount() + feature] & 0xFF;
  }

  /** Features of all records scaled to [0, 1], row-major [n × rows·cols] (a new array). */
  public float[] scaledFeatures() {
    return scaledFloats(allIndices());
  }

  /**
   * The same records with every image mirrored left to right (pixel (r, c) becomes (r, cols − 1 − c)), same
   * labels: the horizontal-flip view of augmentation. A new set; this one is unchanged.
   */
  public LabelledImages mirrored() {
    byte[] out = new byte[pixels.length];
    for (int start = 0; start < pixels.length; start += cols) {
      for (int c = 0; c < cols; c++) {
        out[start + c] = pixels[start + cols - 1 - c];
      }
    }
    return new LabelledImages(out, labels, rows, cols, classes);
  }

  /** Every record as a DataSet of the given type (FLOAT or DOUBLE). */
  public DataSet toDataSet(DataType type) {
    return toDataSet(allIndices(), type);
  }

  /**
   * The records {@code indices} (in that order) as a DataSet of the given type. An empty index array
   * (an empty Poisson batch) is refused: such a step has no data, only noise, and the trainer must
   * handle it without a DataSet.
   */
  public DataSet toDataSet(int[] indices, DataType type) {
    checkNotNull(indices, "indices");
    checkArgument(type == DataType.FLOAT || type == DataType.DOUBLE,
        "data type must be FLOAT or DOUBLE, was %s", type);
    checkArgument(indices.length > 0,
        "no records selected (an empty Poisson batch is a noise-only step, not a DataSet)");
    for (int record : indices) {
      checkElementIndex(record, size, "record");
    }
    long[] shape = {indices.length, featureCount()};
    INDArray x = type == DataType.FLOAT
        ? Nd4j.create(scaledFloats(indices), shape, DataType.FLOAT)
        : Nd4j.create(scaledDoubles(indices), shape, DataType.DOUBLE);
    float[] oneHot = new float[indices.length * classes];
    for (int r = 0; r < indices.length; r++) {
      oneHot[r * classes + labels[indices[r]]] = 1f;
    }
    INDArray y = Nd4j.create(oneHot, new long[] {indices.length, classes}, DataType.FLOAT);
    return new DataSet(x, type == DataType.FLOAT ? y : y.castTo(DataType.DOUBLE));
  }

  private int[] allIndices() {
    int[] all = new int[size];
    for (int i = 0; i < size; i++) {
      all[i] = i;
    }
    return all;
  }

  private float[] scaledFloats(int[] indices) {
    int d = featureCount();
    float[] out = new float[indices.length * d];
    for (int r = 0; r < indices.length; r++) {
      for (int k = 0, from = indices[r] * d; k < d; k++) {
        out[r * d + k] = (pixels[from + k] & 0xFF) / 255f;
      }
    }
    return out;
  }

  private double[] scaledDoubles(int[] indices) {
    int d = featureCount();
    double[] out = new double[indices.length * d];
    for (int r = 0; r < indices.length; r++) {
      for (int k = 0, from = indices[r] * d; k < d; k++) {
        out[r * d + k] = (pixels[from + k] & 0xFF) / 255.0;
      }
    }
    return out;
  }
}
