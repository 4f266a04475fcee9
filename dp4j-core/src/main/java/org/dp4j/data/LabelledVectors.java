package org.dp4j.data;

import static com.google.common.base.Preconditions.checkElementIndex;
import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.Arrays;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;

/**
 * An immutable in-memory classification set of n real feature vectors of dimension d with a label in
 * [0, classes) each, e.g. from {@link SyntheticClassification}. Exposes copies of rows and a DL4J
 * {@link DataSet} (features [n, d], one-hot labels [n, classes]).
 *
 * <pre>{@code
 * LabelledVectors all = SyntheticClassification.madelonLike().build().generate();
 * LabelledVectors train = all.rows(0, 4800);
 * LabelledVectors test = all.rows(4800, 6000);
 * DataSet ds = train.toDataSet(DataType.FLOAT);
 * }</pre>
 */
public final class LabelledVectors {
  private final double[] features;
  private final int[] labels;
  private final int dimension;
  private final int classes;

  /** Package-private: the arrays are owned (not copied), already validated. */
  LabelledVectors(double[] features, int[] labels, int dimension, int classes) {
    this.features = features;
    this.labels = labels;
    this.dimension = dimension;
    this.classes = classes;
  }

  public int size() {
    return labels.length;
  }

  public int dimension() {
    return dimension;
  }

  public int classes() {
    return classes;
  }

  /** A copy of the feature vector of example i. */
  public double[] features(int i) {
    checkElementIndex(i, size(), "example");
    return Arrays.copyOfRange(features, i * dimension, (i + 1) * dimension);
  }

  public int label(int i) {
    checkElementIndex(i, size(), "example");
    return labels[i];
  }

  /** Examples with label c. */
  public int count(int c) {
    checkElementIndex(c, classes, "class");
    return (int) Arrays.stream(labels).filter(l -> l == c).count();
  }

  /** Examples from (inclusive) to to (exclusive), e.g. a train/test split of shuffled data. */
  public LabelledVectors rows(int from, int to) {
    checkArgument(0 <= from && from < to && to <= size(), "need 0 <= from < to <= %s, were %s and %s",
        size(), from, to);
    return new LabelledVectors(Arrays.copyOfRange(features, from * dimension, to * dimension),
        Arrays.copyOfRange(labels, from, to), dimension, classes);
  }

  /** Features [n, d] and one-hot labels [n, classes] in {@code type}. */
  public DataSet toDataSet(DataType type) {
    double[] oneHot = new double[size() * classes];
    for (int i = 0; i < size(); i++) {
      oneHot[i * classes + labels[i]] = 1.0;
    }
    INDArray x = Nd4j.createFromArray(features).reshape(size(), dimension).castTo(type);
    INDArray y = Nd4j.createFromArray(oneHot).reshape(size(), classes).castTo(type);
    return new DataSet(x, y);
  }
}
