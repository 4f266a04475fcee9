package org.dp4j.audit.whitebox;

import static com.google.common.base.Preconditions.checkNotNull;
import static org.dp4j.InvalidSettingException.checkArgument;

import org.deeplearning4j.nn.api.Model;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.optimize.api.BaseTrainingListener;
import org.nd4j.linalg.api.buffer.DataBuffer;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * The white-box auditor's view of training: after every update it reads the parameters at each canary's coordinate
 * and adds the update's alignment with the canary's direction, sign · (θ_{t−1} − θ_t)_j, to the canary's score
 * (Steinke, Nasr &amp; Jagielski 2023, white-box: the auditor sees all iterates). With plain SGD the sum telescopes to
 * the total move along the coordinate; with momentum or Adam it is still the sum of the observed updates. A canary
 * whose gradient pushes θ_j down (a Dirac canary, sign +1) scores high when it was included.
 *
 * <pre>{@code
 * // given: MultiLayerNetwork net; DiracCanaries canaries
 * CoordinateScores scores = new CoordinateScores(net, canaries.coordinates());
 * net.addListeners(scores.listener());           // or DpSgdTrainer.builder(...).onStep(scores::observe)
 * }</pre>
 */
public final class CoordinateScores {
  private final MultiLayerNetwork net;
  private final int[] coordinates;
  private final double[] signs;
  private final double[] last;
  private final double[] scores;
  private int updates;

  /** Sign +1 for every coordinate (Dirac canaries). */
  public CoordinateScores(MultiLayerNetwork net, int[] coordinates) {
    this(net, coordinates, filled(coordinates.length));
  }

  /**
   * @param signs +1 if an included canary pushes its coordinate down, −1 if up
   */
  public CoordinateScores(MultiLayerNetwork net, int[] coordinates, double[] signs) {
    this.net = checkNotNull(net, "net");
    checkArgument(coordinates.length == signs.length, "%s coordinates but %s signs", coordinates.length,
        signs.length);
    this.coordinates = coordinates.clone();
    this.signs = signs.clone();
    this.last = read();
    this.scores = new double[coordinates.length];
  }

  /** Reads the parameters after one update and adds its alignment to every score. */
  public void observe() {
    double[] now = read();
    for (int i = 0; i < now.length; i++) {
      scores[i] += signs[i] * (last[i] - now[i]);
      last[i] = now[i];
    }
    updates++;
  }

  /** A listener that calls {@link #observe} after every iteration (for DL4J's {@code fit} and for DpSgdStep). */
  public BaseTrainingListener listener() {
    return new BaseTrainingListener() {
      @Override
      public void iterationDone(Model model, int iteration, int epoch) {
        observe();
      }
    };
  }

  /** A copy of the scores so far. */
  public double[] scores() {
    return scores.clone();
  }

  /** Updates observed. */
  public int updates() {
    return updates;
  }

  private double[] read() {
    INDArray params = net.params();
    checkArgument(params.elementWiseStride() == 1, "the flattened parameters must be contiguous");
    // The buffer directly: INDArray.getDouble checks the shape on every call, which costs more than the step.
    DataBuffer buffer = params.data();
    long offset = params.offset();
    double[] values = new double[coordinates.length];
    for (int i = 0; i < values.length; i++) {
      values[i] = buffer.getDouble(offset + coordinates[i]);
    }
    return values;
  }

  private static double[] filled(int n) {
    double[] ones = new double[n];
    java.util.Arrays.fill(ones, 1.0);
    return ones;
  }
}
