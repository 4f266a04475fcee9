package org.dp4j.clipping;

import java.util.Map;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * Per-example gradient code for one DL4J layer type, one implementation per type (the layout of Opacus'
 * {@code grad_sample/}). An instance belongs to one layer of one network and keeps the state of one pass:
 * {@link #forward}, then {@link #backward} (or {@link #backwardFromLabels} for the output layer), then
 * {@link #squaredNorms} and {@link #writeScaledSum}. Everything is batched: no loop over examples.
 */
interface PerExampleLayer {

  /** The feature mask of this layer's input ([n, T] for time series), set before {@link #forward}; null: none. */
  default void setInputMask(INDArray mask) {
  }

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

  /** Whether the layer has trainable parameters. */
  boolean hasParams();

  /** ‖g_i‖² of each example's gradient for this layer's parameters, as a column [n, 1]. */
  INDArray squaredNorms();

  /** Writes Σ_i scale_i · g_i into the layer's parameter-gradient views (keys as in the layer's param table). */
  void writeScaledSum(INDArray scale, Map<String, INDArray> gradientViews);
}
