package org.dp4j.samples.train;

import static com.google.common.base.Preconditions.checkArgument;

import java.util.function.UnaryOperator;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.dp4j.training.ExampleViews;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.indexing.INDArrayIndex;
import org.nd4j.linalg.indexing.NDArrayIndex;

/**
 * Test accuracy of a classifier: the fraction of examples whose highest output is the label's one-hot class
 * (ties go to the lowest index, as ND4J's argmax), in chunks of {@value #CHUNK} rows so that a large test set never
 * needs one large activation. Any number of classes; features of any rank (flat images, sequences).
 *
 * <pre>{@code
 * // given: MultiLayerNetwork net; DataSet test
 * double accuracy = Accuracy.of(net, test);
 * }</pre>
 */
public final class Accuracy {
  /** Rows evaluated per forward pass. */
  public static final int CHUNK = 1000;

  private Accuracy() {}

  /** {@code net.output(features, false)} (inference mode) against the labels. */
  public static double of(MultiLayerNetwork net, DataSet test) {
    return of(x -> net.output(x, false), test);
  }

  /**
   * Test-time augmentation: each test row holds {@code views} inputs of the network side by side ([K·d]: an image's
   * features and its augmented copies'), and the prediction is the class with the highest mean output over the
   * views. With one view this is {@link #of(MultiLayerNetwork, DataSet)}.
   */
  public static double ofViews(MultiLayerNetwork net, DataSet test, int views) {
    checkArgument(views >= 1, "views must be >= 1, was %s", views);
    if (views == 1) {
      return of(net, test);
    }
    return of(x -> {
      INDArray out = net.output(ExampleViews.rows(x, views), false);
      return out.reshape('c', x.size(0), views, out.size(1)).mean(1);
    }, test);
  }

  /** A single-output graph's {@code outputSingle(false, features)} against the labels. */
  public static double of(ComputationGraph graph, DataSet test) {
    return of(x -> graph.outputSingle(false, x), test);
  }

  /** {@code output} (features → class scores, one row per example) against the labels. */
  public static double of(UnaryOperator<INDArray> output, DataSet test) {
    int n = test.numExamples();
    checkArgument(n > 0, "the test set is empty");
    long correct = 0;
    for (int from = 0; from < n; from += CHUNK) {
      INDArray features = rows(test.getFeatures(), from, Math.min(n, from + CHUNK));
      INDArray labels = rows(test.getLabels(), from, Math.min(n, from + CHUNK));
      INDArray predicted = output.apply(features).argMax(1);
      correct += predicted.eq(labels.argMax(1)).castTo(DataType.INT64).sumNumber().longValue();
    }
    return correct / (double) n;
  }

  private static INDArray rows(INDArray a, int from, int to) {
    INDArrayIndex[] index = new INDArrayIndex[a.rank()];
    index[0] = NDArrayIndex.interval(from, to);
    for (int d = 1; d < index.length; d++) {
      index[d] = NDArrayIndex.all();
    }
    return a.get(index);
  }
}
