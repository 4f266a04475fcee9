package org.dp4j.samples.train;

import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.dp4j.samples.zoo.ModelZoo;
import org.dp4j.training.IndexedData;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;

/**
 * Row-sequential MNIST data for {@link ModelZoo#mnistLstm}: an image is read as a sequence of its 28 rows (28 time
 * steps of 28 pixels). The layout is DL4J's NWC [n, T, pixels], a plain reshape of the flat images.
 *
 * <pre>{@code
 * // given: LabelledImages images
 * MultiLayerConfiguration conf = ModelZoo.mnistLstm(new Nesterovs(1.0, 0.9), 42, 64);
 * IndexedData train = MnistLstm.sequences(IndexedData.of(images, DataType.FLOAT));
 * }</pre>
 */
public final class MnistLstm {
  /** Time steps (image rows) and pixels per step. */
  public static final int STEPS = 28;
  public static final int PIXELS = 28;

  private MnistLstm() {
  }

  /** Flat images [n, 784] as row sequences [n, 28, 28] (NWC). */
  public static DataSet sequences(DataSet flat) {
    return new DataSet(rows(flat.getFeatures()), flat.getLabels());
  }

  /** The training set as row sequences, batch by batch. */
  public static IndexedData sequences(IndexedData flat) {
    return new IndexedData() {
      @Override
      public int size() {
        return flat.size();
      }

      @Override
      public DataSet rows(int[] indices) {
        return sequences(flat.rows(indices));
      }
    };
  }

  private static INDArray rows(INDArray flat) {
    return flat.reshape('c', flat.size(0), STEPS, PIXELS);
  }
}
