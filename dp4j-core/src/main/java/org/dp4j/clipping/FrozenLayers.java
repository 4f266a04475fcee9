package org.dp4j.clipping;

import org.deeplearning4j.nn.conf.layers.Layer;
import org.deeplearning4j.nn.conf.layers.misc.FrozenLayer;
import org.deeplearning4j.nn.conf.layers.misc.FrozenLayerWithBackprop;

/**
 * Transfer learning's frozen layers ({@code FrozenLayer}, {@code FrozenLayerWithBackprop}, and the layers
 * {@code TransferLearning.Builder.setFeatureExtractor} wraps in them): their parameters are not trained, so they
 * take no part in per-example norms, clipped sums, noise or updates. A private step leaves them bit-identical.
 */
public final class FrozenLayers {
  private FrozenLayers() {
  }

  /** Whether the layer configuration is a frozen wrapper. */
  public static boolean isFrozen(Layer conf) {
    return conf instanceof FrozenLayer || conf instanceof FrozenLayerWithBackprop;
  }

  /**
   * Whether the network layer's parameters are frozen. A frozen layer's {@code conf()} is its inner layer's, so the
   * layer object itself is checked.
   */
  public static boolean isFrozen(org.deeplearning4j.nn.api.Layer layer) {
    return layer instanceof org.deeplearning4j.nn.layers.FrozenLayer
        || layer instanceof org.deeplearning4j.nn.layers.FrozenLayerWithBackprop;
  }

  /**
   * Whether the graph vertex's parameters are frozen: a {@code FrozenVertex}, or a layer vertex whose layer is
   * frozen ({@code setFeatureExtractor} on a graph wraps layers in {@code FrozenLayer}).
   */
  public static boolean isFrozen(org.deeplearning4j.nn.graph.vertex.GraphVertex vertex) {
    return vertex instanceof org.deeplearning4j.nn.graph.vertex.impl.FrozenVertex
        || vertex.hasLayer() && LayerRules.isFrozen(vertex.getLayer());
  }

  /** Whether errors propagate through the frozen network layer to the layers below it. */
  static boolean passesErrorsBack(org.deeplearning4j.nn.api.Layer layer) {
    return layer instanceof org.deeplearning4j.nn.layers.FrozenLayerWithBackprop;
  }
}
