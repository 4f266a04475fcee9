package org.dp4j.clipping;

import java.util.Map;
import org.deeplearning4j.nn.conf.layers.BatchNormalization;
import org.deeplearning4j.nn.conf.layers.CenterLossOutputLayer;
import org.deeplearning4j.nn.conf.layers.Layer;
import org.deeplearning4j.nn.conf.ocnn.OCNNOutputLayer;
import org.dp4j.InvalidSettingException;

/**
 * DL4J layers whose gradient mixes the examples of a batch: per-example gradients, and with them the sensitivity
 * bound of DP-SGD (Abadi et al. 2016, Alg. 1), do not exist, so every clipper refuses them and names a replacement.
 * ({@code LocalResponseNormalization} is not one of them: DL4J normalises across neighbouring channels of one
 * example at one position.)
 */
final class MixingLayers {
  private static final Map<Class<? extends Layer>, String> WHY = Map.of(
      BatchNormalization.class, "BatchNormalization mixes the examples of a batch through its batch statistics, so "
          + "per-example gradients (and the sensitivity bound of DP-SGD) do not exist; remove it and normalise the "
          + "inputs instead, or normalise each example on its own (DenseLayer.hasLayerNorm(true), or no "
          + "normalisation)",
      CenterLossOutputLayer.class, "CenterLossOutputLayer's centre gradient divides by the number of examples of "
          + "each class in the batch, which mixes the examples of a batch; use an OutputLayer (or an OutputLayer "
          + "after a DenseLayer embedding) instead",
      OCNNOutputLayer.class, "OCNNOutputLayer averages its gradient over the batch and sets r from a percentile of "
          + "the batch's scores, which mixes the examples of a batch; use an OutputLayer with a one-class loss "
          + "instead");

  private MixingLayers() {
  }

  /** Why the layer cannot be clipped per example and what to use instead, or null if it keeps examples apart. */
  static String refusal(Layer conf) {
    return WHY.get(conf.getClass());
  }

  /** @throws IllegalArgumentException naming the layer and the replacement when it mixes examples */
  static void check(Layer conf, String where) {
    String why = refusal(conf);
    if (why != null) {
      throw new InvalidSettingException(where + ": " + why);
    }
  }
}
