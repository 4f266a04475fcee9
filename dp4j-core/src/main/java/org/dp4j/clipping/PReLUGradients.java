package org.dp4j.clipping;

import java.util.Map;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.layers.PReLULayer;
import org.deeplearning4j.nn.params.PReLUParamInitializer;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.ops.transforms.Transforms;

/**
 * {@code PReLULayer}: f(x) = x for x ≥ 0 and αx below, with α shared along the configured axes. Example i's gradient
 * is ∂L_i/∂α = Σ_{shared axes} min(x_i, 0) ⊙ ε_i, one row of α's size per example (the size of one activation row,
 * so materialising it costs no more than the forward pass); the error below is DL4J's own.
 */
final class PReLUGradients implements PerExampleLayer {
  private final Layer layer;
  private final int[] sharedAxes;
  private INDArray input;
  private INDArray perExample;     // [n, α.length]

  PReLUGradients(Layer layer) {
    this.layer = layer;
    long[] axes = ((PReLULayer) layer.conf().getLayer()).getSharedAxes();
    this.sharedAxes = new int[axes == null ? 0 : axes.length];
    for (int a = 0; a < sharedAxes.length; a++) {
      sharedAxes[a] = (int) axes[a];
    }
  }

  @Override
  public INDArray forward(INDArray in) {
    input = in.dup();
    return layer.activate(in, true, LayerWorkspaceMgr.noWorkspaces());
  }

  @Override
  public INDArray backward(INDArray outputError, boolean needInputError) {
    INDArray g = Transforms.min(input, 0.0, true).muli(outputError);
    if (sharedAxes.length > 0) {
      g = g.sum(true, sharedAxes);
    }
    perExample = g.reshape('c', g.size(0), -1);
    input = null;
    return needInputError ? layer.backpropGradient(outputError, LayerWorkspaceMgr.noWorkspaces()).getSecond()
        : null;
  }

  @Override
  public boolean hasParams() {
    return true;
  }

  @Override
  public INDArray squaredNorms() {
    INDArray sq = perExample.norm2(1);
    return sq.muli(sq).reshape(perExample.size(0), 1);
  }

  @Override
  public void writeScaledSum(INDArray scale, Map<String, INDArray> gradientViews) {
    INDArray view = gradientViews.get(PReLUParamInitializer.WEIGHT_KEY);
    view.assign(perExample.mulColumnVector(scale).sum(0).reshape('c', view.shape()));
  }
}
