package org.dp4j.clipping;

import java.util.Map;
import org.nd4j.linalg.api.ndarray.INDArray;

/** A layer rule without trainable parameters: it only passes activations forward and errors back. */
interface ParameterFreeLayer extends PerExampleLayer {

  @Override
  default boolean hasParams() {
    return false;
  }

  @Override
  default INDArray squaredNorms() {
    throw new UnsupportedOperationException(getClass().getSimpleName() + ": layer has no parameters");
  }

  @Override
  default void writeScaledSum(INDArray scale, Map<String, INDArray> gradientViews) {
    throw new UnsupportedOperationException(getClass().getSimpleName() + ": layer has no parameters");
  }
}
