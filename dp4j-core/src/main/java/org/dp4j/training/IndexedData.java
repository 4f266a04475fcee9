package org.dp4j.training;

import static org.dp4j.InvalidSettingException.checkArgument;

import org.dp4j.data.LabelledImages;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;

/**
 * An in-memory training set addressed by record index, as samplers produce them. The trainer asks for
 * one batch of rows per step; an empty index array (an empty Poisson batch) yields zero-row arrays, so
 * the step still adds its noise.
 */
public interface IndexedData {
  /** Number of records n. */
  int size();

  /** The records {@code indices} as features and labels; zero rows for an empty array. */
  DataSet rows(int[] indices);

  /** MNIST-style images, features scaled to [0, 1], one-hot labels. */
  static IndexedData of(LabelledImages images, DataType type) {
    return new IndexedData() {
      @Override
      public int size() {
        return images.size();
      }

      @Override
      public DataSet rows(int[] indices) {
        if (indices.length == 0) {
          return new DataSet(Nd4j.create(type, 0, images.featureCount()), Nd4j.create(type, 0, images.classes()));
        }
        return images.toDataSet(indices, type);
      }
    };
  }

  /**
   * Rows of an existing DataSet (features [n, ...], labels [n, ...]), with its feature and label masks (e.g. [n, T]
   * for time series of uneven lengths) when it has them.
   */
  static IndexedData of(DataSet all) {
    INDArray x = all.getFeatures();
    INDArray y = all.getLabels();
    INDArray xMask = all.getFeaturesMaskArray();
    INDArray yMask = all.getLabelsMaskArray();
    checkArgument(x.size(0) == y.size(0), "features have %s rows but labels %s", x.size(0), y.size(0));
    return new IndexedData() {
      @Override
      public int size() {
        return (int) x.size(0);
      }

      @Override
      public DataSet rows(int[] indices) {
        return new DataSet(RowSelection.rows(x, indices), RowSelection.rows(y, indices), RowSelection.rows(xMask, indices),
            RowSelection.rows(yMask, indices));
      }
    };
  }

}
