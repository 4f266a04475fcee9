package org.dp4j.clipping;

import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * Layers without parameters that act on each example separately ({@code ActivationLayer}, {@code DropoutLayer},
 * {@code GlobalPoolingLayer}, {@code LocalResponseNormalization}, frozen layers): they contribute nothing to g_i
 * and pass the per-example error back through DL4J's own batched backprop ({@code SubsamplingLayer} has its own
 * rule, {@link PoolingGradients}).
 */
final class NoParameterLayer implements ParameterFreeLayer {
  private final Layer layer;

  NoParameterLayer(Layer layer) {
    this.layer = layer;
  }

  @Override
  public INDArray forward(INDArray input) {
    // The input is the layer below's output, which its rule may read again (tanh's derivative): DL4J's own forward
    // loops leave this flag set, and a DropoutLayer would then write its masked values over the input.
    layer.allowInputModification(false);
    return layer.activate(input, true, LayerWorkspaceMgr.noWorkspaces());
  }

  @Override
  public INDArray backward(INDArray outputError, boolean needInputError) {
    INDArray inputError = layer.backpropGradient(outputError, LayerWorkspaceMgr.noWorkspaces()).getSecond();
    return needInputError ? inputError : null;
  }
}
