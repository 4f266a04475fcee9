package org.dp4j.audit.blackbox;

import static com.google.common.base.Preconditions.checkNotNull;
import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.Arrays;
import java.util.stream.IntStream;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.dp4j.audit.AuditBound;
import org.dp4j.audit.CanaryCoins;
import org.dp4j.audit.GuessPlan;
import org.dp4j.training.IndexedData;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;

/**
 * Input-space canaries for a black-box audit (Steinke, Nasr &amp; Jagielski 2023): m extra records (mislabelled
 * or out-of-distribution examples, chosen by the auditor), each added to the training data with probability ½
 * ({@link CanaryCoins}). The auditor then sees only the final model and scores each canary by its negative loss: a
 * canary the model fits well was probably trained on. Training is untouched: the included canaries are ordinary
 * records of the data the trainer samples from ({@link #trainingData}), so they are clipped, sampled and noised like
 * every other record, and the run's certified ε covers each of them.
 *
 * <pre>{@code
 * // given: DataSet mislabelled; AesCtrRandom random; DataSet train; MultiLayerNetwork net; int m
 * InputCanaries canaries = InputCanaries.of(mislabelled, CanaryCoins.draw(mislabelled.numExamples(), random));
 * IndexedData data = canaries.trainingData(IndexedData.of(train));   // n + (included canaries) records
 * // ... train with data ...
 * AuditBound bound = canaries.bound(net, GuessPlan.symmetricSweep(m), 1e-5, 0.95);
 * }</pre>
 */
public final class InputCanaries {
  private final DataSet rows;
  private final CanaryCoins coins;
  private final int[] includedRows;

  private InputCanaries(DataSet rows, CanaryCoins coins) {
    this.rows = rows;
    this.coins = coins;
    this.includedRows = IntStream.range(0, coins.canaries()).filter(coins::included).toArray();
  }

  /** @param rows the m canary records (features and labels, one row each) */
  public static InputCanaries of(DataSet rows, CanaryCoins coins) {
    checkNotNull(rows, "rows");
    checkNotNull(coins, "coins");
    checkArgument(rows.numExamples() == coins.canaries(), "%s canary rows but %s coins", rows.numExamples(),
        coins.canaries());
    return new InputCanaries(rows, coins);
  }

  public CanaryCoins coins() {
    return coins;
  }

  /** The training data followed by the included canaries: what the audited run trains on. */
  public IndexedData trainingData(IndexedData data) {
    checkNotNull(data, "data");
    int n = data.size();
    return new IndexedData() {
      @Override
      public int size() {
        return n + includedRows.length;
      }

      @Override
      public DataSet rows(int[] indices) {
        int[] fromData = Arrays.stream(indices).filter(i -> i < n).toArray();
        int[] fromCanaries = Arrays.stream(indices).filter(i -> i >= n).map(i -> includedRows[i - n]).toArray();
        DataSet base = data.rows(fromData);
        if (fromCanaries.length == 0) {
          return base;
        }
        INDArray x = Nd4j.pullRows(rows.getFeatures(), 1, fromCanaries).castTo(base.getFeatures().dataType());
        INDArray y = Nd4j.pullRows(rows.getLabels(), 1, fromCanaries).castTo(base.getLabels().dataType());
        return fromData.length == 0 ? new DataSet(x, y)
            : new DataSet(Nd4j.vstack(base.getFeatures(), x), Nd4j.vstack(base.getLabels(), y));
      }
    };
  }

  /** Black-box scores: minus each canary's loss under the final model (no regularisation term). */
  public double[] scores(MultiLayerNetwork net) {
    checkNotNull(net, "net");
    INDArray loss = net.scoreExamples(rows, false);
    double[] scores = loss.castTo(org.nd4j.linalg.api.buffer.DataType.DOUBLE).data().asDouble();
    for (int i = 0; i < scores.length; i++) {
      scores[i] = -scores[i];
    }
    return scores;
  }

  /** The lower bound on ε from the final model's losses. */
  public AuditBound bound(MultiLayerNetwork net, GuessPlan plan, double delta, double confidence) {
    return plan.bound(scores(net), coins.included(), delta, confidence);
  }
}
