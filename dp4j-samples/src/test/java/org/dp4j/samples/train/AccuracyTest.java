package org.dp4j.samples.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.lossfunctions.LossFunctions;

class AccuracyTest {
  /** n examples of {@code classes} classes, label i mod classes; features [i, i mod 7], or 3 steps with them last. */
  private static DataSet data(int n, int classes, boolean sequences) {
    INDArray x = sequences ? Nd4j.zeros(DataType.FLOAT, n, 3, 2) : Nd4j.zeros(DataType.FLOAT, n, 2);
    INDArray y = Nd4j.zeros(DataType.FLOAT, n, classes);
    for (int i = 0; i < n; i++) {
      if (sequences) {
        x.putScalar(new long[] {i, 2, 0}, i);
        x.putScalar(new long[] {i, 2, 1}, i % 7);
      } else {
        x.putScalar(i, 0, i);
        x.putScalar(i, 1, i % 7);
      }
      y.putScalar(i, i % classes, 1);
    }
    return new DataSet(x, y);
  }

  /**
   * Test-time views: the prediction is the argmax of the mean of the views' softmax outputs, each example's views
   * taken from its own row (counted here one example at a time with DL4J's output), across chunks of 1000 rows.
   */
  @Test
  void viewsArePredictedByTheMeanOfTheirOwnProbabilities() {
    MultiLayerNetwork net = new MultiLayerNetwork(new NeuralNetConfiguration.Builder().seed(5)
        .dataType(DataType.FLOAT).list().layer(new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT).nIn(4)
            .nOut(3).activation(Activation.SOFTMAX).build()).build());
    net.init();
    int n = 1500;
    Nd4j.getRandom().setSeed(6);
    INDArray x = Nd4j.randn(DataType.FLOAT, n, 8).muli(2);
    INDArray y = Nd4j.zeros(DataType.FLOAT, n, 3);
    java.util.Random random = new java.util.Random(7);
    for (int i = 0; i < n; i++) {
      y.putScalar(i, random.nextInt(3), 1);
    }
    int correct = 0;
    int correctFirstView = 0;
    for (int i = 0; i < n; i++) {
      INDArray first = net.output(x.get(org.nd4j.linalg.indexing.NDArrayIndex.interval(i, i + 1),
          org.nd4j.linalg.indexing.NDArrayIndex.interval(0, 4)).dup());
      INDArray second = net.output(x.get(org.nd4j.linalg.indexing.NDArrayIndex.interval(i, i + 1),
          org.nd4j.linalg.indexing.NDArrayIndex.interval(4, 8)).dup());
      int label = y.getRow(i).argMax().getInt(0);
      correct += first.add(second).argMax(1).getInt(0) == label ? 1 : 0;
      correctFirstView += first.argMax(1).getInt(0) == label ? 1 : 0;
    }
    DataSet test = new DataSet(x, y);
    assertThat(Accuracy.ofViews(net, test, 2)).isEqualTo(correct / (double) n);
    assertThat(correct).isNotEqualTo(correctFirstView);     // the second view changes some predictions
    DataSet firstOnly = new DataSet(x.get(org.nd4j.linalg.indexing.NDArrayIndex.all(),
        org.nd4j.linalg.indexing.NDArrayIndex.interval(0, 4)).dup(), y);
    assertThat(Accuracy.ofViews(net, firstOnly, 1)).isEqualTo(correctFirstView / (double) n);
  }

  @Test
  void countsTheArgmaxHitsAcrossChunks() {
    // a scorer that is right exactly when i % 7 == 0: over 2,500 examples (three chunks) that is ⌈2500/7⌉ = 358
    List<Long> chunkRows = new ArrayList<>();
    double acc = Accuracy.of(x -> {
      chunkRows.add(x.size(0));
      INDArray scores = Nd4j.zeros(DataType.FLOAT, x.size(0), 10);
      for (int r = 0; r < x.size(0); r++) {
        int i = x.getInt(r, 0);
        scores.putScalar(r, x.getInt(r, 1) == 0 ? i % 10 : (i + 1) % 10, 1);
      }
      return scores;
    }, data(2500, 10, false));
    assertThat(acc).isEqualTo(358 / 2500.0);
    assertThat(chunkRows).containsExactly(1000L, 1000L, 500L);
  }

  @Test
  void twoClassesAndSequenceFeatures() {
    // two classes, features [n, 3, 2]; a scorer that always says class 1 is right on the 25 odd i of 51
    List<long[]> shapes = new ArrayList<>();
    double acc = Accuracy.of(x -> {
      shapes.add(x.shape());
      INDArray scores = Nd4j.zeros(DataType.FLOAT, x.size(0), 2);
      scores.getColumn(1).assign(1);
      return scores;
    }, data(51, 2, true));
    assertThat(acc).isEqualTo(25 / 51.0);
    assertThat(shapes).singleElement().isEqualTo(new long[] {51, 3, 2});
    assertThatThrownBy(() -> Accuracy.of(x -> x, new DataSet(Nd4j.zeros(DataType.FLOAT, 0, 2),
        Nd4j.zeros(DataType.FLOAT, 0, 2)))).hasMessageContaining("empty");
  }

  @Test
  void aNetworkIsEvaluatedOnItsOutputs() {
    // a softmax layer with identity weights: the class is the larger of the two features
    MultiLayerNetwork net = new MultiLayerNetwork(new NeuralNetConfiguration.Builder().dataType(DataType.FLOAT)
        .list().layer(new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT).nIn(2).nOut(2)
            .activation(Activation.SOFTMAX).build()).build());
    net.init();
    net.setParams(Nd4j.createFromArray(new float[] {1, 0, 0, 1, 0, 0}).reshape(1, 6));
    INDArray x = Nd4j.createFromArray(new float[][] {{2, 1}, {0, 3}, {5, 4}, {1, 2}});
    INDArray y = Nd4j.createFromArray(new float[][] {{1, 0}, {0, 1}, {0, 1}, {1, 0}});
    assertThat(Accuracy.of(net, new DataSet(x, y))).isEqualTo(0.5);
  }
}
