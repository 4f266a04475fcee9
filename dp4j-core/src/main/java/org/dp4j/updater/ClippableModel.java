package org.dp4j.updater;

import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.List;
import org.deeplearning4j.nn.api.Model;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.dp4j.clipping.ClippedGradientSum;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * What a private step needs from a DL4J model, whatever its kind: its {@link DpSgd} mechanism, its flattened
 * gradient view (the array DL4J's updater and step function read), the parts of that view that belong to trainable
 * parameters (noise goes there and nowhere else; frozen parameters stay bit-identical), and its vectorised
 * per-example clipper. {@link PrivateGradient} runs the DP-SGD gradient on any implementation; {@link #of} adapts a
 * {@link MultiLayerNetwork} with {@link org.dp4j.clipping.PerExampleClipper}, a {@link ComputationGraph} with
 * {@link org.dp4j.clipping.GraphPerExampleClipper} (inputs and labels are arrays for that reason).
 *
 * <pre>{@code
 * // given: MultiLayerNetwork net; INDArray x; INDArray y
 * ClippableModel model = ClippableModel.of(net);            // net uses DpSgd
 * PrivateGradient g = PrivateGradient.of(model, PrefetchingNoise.secure());
 * g.accumulate(new INDArray[] {x}, new INDArray[] {y}, null, null);
 * g.finish();                                               // net.getFlattenedGradients() holds the private gradient
 * }</pre>
 */
public interface ClippableModel {
  /** The DL4J model. */
  Model model();

  /** The one DP-SGD mechanism shared by every trainable parameter. */
  DpSgd config();

  /** The flattened gradient view, [1, numParams], in the layout of the parameters. */
  INDArray gradientView();

  /** Views of {@link #gradientView()} covering the trainable parameters; the rest stays exactly zero. */
  List<INDArray> trainableViews();

  /** Views of {@link #gradientView()} covering frozen parameters (empty if none). */
  List<INDArray> frozenViews();

  /**
   * Adds Σ_i clip_C(g_i) over the batch to {@code target} (laid out like {@link #gradientView()}); frozen
   * parameters take no part in the norms. Batches may have 0 rows; masks may be null.
   */
  ClippedGradientSum addClippedSum(INDArray[] features, INDArray[] labels, INDArray[] featureMasks,
      INDArray[] labelMasks, double clipNorm, INDArray target);

  /**
   * Writes Σ_i clip_C(g_i) over the batch into {@code target} (overwriting it). The default zeroes the target and
   * adds; implementations may write directly.
   */
  default ClippedGradientSum clippedSum(INDArray[] features, INDArray[] labels, INDArray[] featureMasks,
      INDArray[] labelMasks, double clipNorm, INDArray target) {
    target.assign(0.0);
    return addClippedSum(features, labels, featureMasks, labelMasks, clipNorm, target);
  }

  /**
   * Refuses K views per example where {@link #clippedSumOfViews} cannot compute them; the default takes one view
   * only (a graph's clipper has no several-view path).
   */
  default void requireViews(int views) {
    checkArgument(views == 1, "several views per example (augmentation multiplicity) need a MultiLayerNetwork on "
        + "the fused dense path, was %s with %s views", model().getClass().getSimpleName(), views);
  }

  /**
   * Writes (or, with {@code accumulate}, adds) Σ_e clip_C(mean of example e's K gradients), example e being rows
   * e·K … e·K + K − 1 ({@link org.dp4j.clipping.PerExampleClipper#clippedSumOfViews}); with K = 1 the per-row sum.
   */
  default ClippedGradientSum clippedSumOfViews(INDArray features, INDArray labels, int views, double clipNorm,
      INDArray target, boolean accumulate) {
    requireViews(views);
    INDArray[] x = {features};
    INDArray[] y = {labels};
    return accumulate ? addClippedSum(x, y, null, null, clipNorm, target)
        : clippedSum(x, y, null, null, clipNorm, target);
  }

  /** A {@link MultiLayerNetwork} whose trainable layers share one {@link DpSgd} (checked here). */
  static ClippableModel of(MultiLayerNetwork net) {
    return new MultiLayerClippable(net);
  }

  /**
   * A {@link ComputationGraph} whose trainable layers share one {@link DpSgd} (checked here), clipped by
   * {@link org.dp4j.clipping.GraphPerExampleClipper} (every vertex validated here).
   */
  static ClippableModel of(ComputationGraph graph) {
    return new GraphClippable(graph);
  }
}
