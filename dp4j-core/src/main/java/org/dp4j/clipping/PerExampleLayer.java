package org.dp4j.clipping;

import java.util.Map;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * Per-example gradient code for one DL4J layer type, one implementation per type (the layout of Opacus'
 * {@code grad_sample/}). An instance belongs to one layer of one network and keeps the state of one pass:
 * {@link #forward}, then {@link #backward} (or {@link #backwardFromLabels} for the output layer), then
 * {@link #squaredNorms} and {@link #writeScaledSum}. dp4j's built-in rules are batched (no loop over examples); a
 * layer without one takes the generic exact path (DL4J's own backprop one example at a time).
 *
 * <p>This is also the contract of a rule a user writes for a layer of their own and registers with
 * {@link LayerRuleRegistry}; the clippers ({@link PerExampleClipper}, {@link GraphPerExampleClipper}) then use it
 * for every layer whose configuration class is exactly the registered one. A rule must give example i's own
 * gradient: ‖g_i‖² in {@link #squaredNorms} and Σ_i scale_i·g_i in {@link #writeScaledSum}, where g_i is the
 * gradient of example i's loss alone (not divided by the batch size). For example, a layer y = x ⊙ w (one weight
 * per feature, parameter key "W") has g_i = x_i ⊙ δ_i:
 *
 * <pre>{@code
 * final class FeatureScaleRule implements PerExampleLayer {
 *   private final org.deeplearning4j.nn.api.Layer layer;
 *   private INDArray input;
 *   private INDArray delta;
 *
 *   FeatureScaleRule(org.deeplearning4j.nn.api.Layer layer) {
 *     this.layer = layer;
 *   }
 *
 *   public INDArray forward(INDArray in) {
 *     input = in;
 *     return in.mulRowVector(layer.getParam("W"));
 *   }
 *
 *   public INDArray backward(INDArray outputError, boolean needInputError) {
 *     delta = outputError;
 *     return needInputError ? outputError.mulRowVector(layer.getParam("W")) : null;
 *   }
 *
 *   public boolean hasParams() {
 *     return true;
 *   }
 *
 *   public INDArray squaredNorms() {
 *     INDArray norm = input.mul(delta).norm2(1);
 *     return norm.muli(norm).reshape(input.size(0), 1);
 *   }
 *
 *   public void writeScaledSum(INDArray scale, Map<String, INDArray> gradientViews) {
 *     INDArray sum = input.mul(delta).mulColumnVector(scale).sum(0);
 *     gradientViews.get("W").assign(sum.reshape(gradientViews.get("W").shape()));
 *   }
 * }
 *
 * // then: LayerRuleRegistry.register(FeatureScaleLayer.class, FeatureScaleRule::new);
 * }</pre>
 *
 * <p>The per-example gradients of a layer that mixes the examples of a batch (batch statistics) do not exist, and
 * no rule can make DP-SGD's sensitivity bound hold for it.
 */
public interface PerExampleLayer {

  /** Training-mode forward pass on a batch; returns the layer's output (may be null for an output layer). */
  INDArray forward(INDArray input);

  /**
   * Back-propagates the error with respect to this layer's output to the error with respect to its input;
   * returns null when {@code needInputError} is false.
   */
  INDArray backward(INDArray outputError, boolean needInputError);

  /**
   * For output layers: the per-example error starts from the loss of each example (not averaged).
   *
   * @param labelMask DL4J's label mask for this output (null: none); masked entries contribute nothing
   */
  default INDArray backwardFromLabels(INDArray labels, INDArray labelMask, boolean needInputError) {
    throw new UnsupportedOperationException(getClass().getSimpleName() + " is not an output layer");
  }

  /** Whether this layer is an output layer (a loss is attached to it). */
  default boolean isOutput() {
    return false;
  }

  /** The feature mask of this layer's input ([n, T] for time series), set before {@link #forward}; null: none. */
  default void setInputMask(INDArray mask) {
  }

  /** Whether the layer has trainable parameters. */
  boolean hasParams();

  /** ‖g_i‖² of each example's gradient for this layer's parameters, as a column [n, 1]. */
  INDArray squaredNorms();

  /** Writes Σ_i scale_i · g_i into the layer's parameter-gradient views (keys as in the layer's param table). */
  void writeScaledSum(INDArray scale, Map<String, INDArray> gradientViews);
}
