package org.dp4j.clipping;

import java.util.Map;
import org.deeplearning4j.nn.conf.layers.LossLayer;
import org.nd4j.linalg.api.ndarray.INDArray;

/** {@code LossLayer}: no parameters; the per-example error is the loss gradient with respect to its input. */
final class LossLayerGradients implements PerExampleLayer {
  private final LossLayer conf;
  private INDArray input;

  LossLayerGradients(LossLayer conf) {
    this.conf = conf;
  }

  @Override
  public INDArray forward(INDArray input) {
    this.input = input;
    return null;
  }

  @Override
  public INDArray backward(INDArray outputError, boolean needInputError) {
    throw new UnsupportedOperationException("LossLayer is an output layer");
  }

  @Override
  public INDArray backwardFromLabels(INDArray labels, INDArray labelMask, boolean needInputError) {
    // computeGradient returns one row per example, not averaged over the batch.
    return needInputError ? conf.getLossFn().computeGradient(labels, input.dup(), conf.getActivationFn(),
        labelMask) : null;
  }

  @Override
  public boolean isOutput() {
    return true;
  }

  @Override
  public boolean hasParams() {
    return false;
  }

  @Override
  public INDArray squaredNorms() {
    throw new UnsupportedOperationException("LossLayer has no parameters");
  }

  @Override
  public void writeScaledSum(INDArray scale, Map<String, INDArray> gradientViews) {
    throw new UnsupportedOperationException("LossLayer has no parameters");
  }
}
