package org.dp4j.clipping;

import java.util.Map;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * Layers without parameters that act on each example separately ({@code ActivationLayer}, {@code DropoutLayer},
 * {@code SubsamplingLayer}, {@code GlobalPoolingLayer}): they contribute nothing to g_i and pass the per-example
 * error back through DL4J's own batched backprop.
 */
final class NoParameterLayer implements PerExampleLayer {
  private final Layer layer;

  NoParameterLayer(Layer layer) {
    this.layer = layer;
  }

  @Override
  public INDArray forward(INDArray input) {
    return layer.activate(input, true, LayerWorkspaceMgr.noWorkspaces());
  }

  @Override
  public INDArray backward(INDArray outputError, boolean needInputError) {
    INDArray inputError = layer.backpropGradient(outputError, LayerWorkspaceMgr.noWorkspaces()).getSecond();
    return needInputError ? inputError : null;
  }

  @Override
  public boolean hasParams() {
    return false;
  }

  @Override
  public INDArray squaredNorms() {
    throw new UnsupportedOperationException("layer has no parameters");
  }

  @Override
  public void writeScaledSum(INDArray scale, Map<String, INDArray> gradientViews) {
    throw new UnsupportedOperationException("layer has no parameters");
  }
}
