package org.dp4j.audit.whitebox;

import static com.google.common.base.Preconditions.checkNotNull;
import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.Arrays;
import java.util.Comparator;
import java.util.stream.IntStream;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.dp4j.noise.AesCtrRandom;
import org.dp4j.training.IndexedData;
import org.dp4j.updater.ClippableModel;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;

/**
 * Where to put Dirac canaries: the trainable coordinates on which the training data push least. A canary's score is
 * the sum of the updates along its coordinate, so any data gradient there is drift that hides the canary. dp4j ranks
 * coordinates by |Σ_i clip_C(g_i)| over probe rows of the training data at the initial parameters (for an MLP on
 * MNIST: first-layer weights of pixels that are blank in every image) and breaks ties at random. The choice uses the
 * data but not the coins, so the audit's guarantee is unaffected (docs/auditing.md#canaries).
 *
 * <pre>{@code
 * // given: MultiLayerNetwork net; IndexedData data
 * int[] coords = QuietCoordinates.choose(net, data, 10_000, 1000, AesCtrRandom.secure());
 * }</pre>
 */
public final class QuietCoordinates {
  private static final int PROBE_CHUNK = 1000;

  private QuietCoordinates() {}

  /**
   * @param probeRows how many training rows (the first ones) to probe
   * @param count m, the number of coordinates wanted
   * @return m distinct flat parameter indices of trainable parameters
   */
  public static int[] choose(MultiLayerNetwork net, IndexedData data, int probeRows, int count, AesCtrRandom random) {
    checkNotNull(net, "net");
    checkNotNull(random, "random");
    checkArgument(probeRows > 0, "probeRows must be > 0, was %s", probeRows);
    ClippableModel model = ClippableModel.of(net);
    INDArray view = model.gradientView();
    INDArray sum = Nd4j.zeros(view.dataType(), view.shape());
    int rows = Math.min(probeRows, data.size());
    for (int from = 0; from < rows; from += PROBE_CHUNK) {
      DataSet chunk = data.rows(IntStream.range(from, Math.min(rows, from + PROBE_CHUNK)).toArray());
      model.addClippedSum(new INDArray[] {chunk.getFeatures()}, new INDArray[] {chunk.getLabels()}, null, null,
          model.config().clipNorm(), sum);
    }
    double[] magnitude = sum.data().asDouble();
    int[] trainable = trainableCoordinates(model, view);
    checkArgument(count > 0 && count <= trainable.length,
        "canaries must be in [1, trainable parameters = %s], was %s", trainable.length, count);
    double[] tieBreak = new double[magnitude.length];
    for (int j : trainable) {
      tieBreak[j] = random.nextDouble();
    }
    Integer[] order = Arrays.stream(trainable).boxed().toArray(Integer[]::new);
    Arrays.sort(order, Comparator.<Integer>comparingDouble(j -> Math.abs(magnitude[j]))
        .thenComparingDouble(j -> tieBreak[j]));
    return Arrays.stream(order, 0, count).mapToInt(Integer::intValue).toArray();
  }

  /** Flat indices covered by the model's trainable views (frozen parameters never move, so never host a canary). */
  static int[] trainableCoordinates(ClippableModel model, INDArray view) {
    return model.trainableViews().stream()
        .flatMapToInt(v -> IntStream.range(start(v, view), start(v, view) + (int) v.length()))
        .toArray();
  }

  /** Index of a view's first element within the flattened gradient view. */
  static int start(INDArray part, INDArray whole) {
    return (int) (part.offset() - whole.offset());
  }
}
