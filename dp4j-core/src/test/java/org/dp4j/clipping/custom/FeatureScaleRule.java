package org.dp4j.clipping.custom;

import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.dp4j.clipping.PerExampleLayer;
import org.nd4j.linalg.api.ndarray.INDArray;

/** The vectorised rule a user writes for {@link FeatureScaleLayer}: g_i = x_i ⊙ δ_i (the PerExampleLayer example). */
final class FeatureScaleRule implements PerExampleLayer {
  static final AtomicInteger PASSES = new AtomicInteger();
  private final org.deeplearning4j.nn.api.Layer layer;
  private INDArray input;
  private INDArray delta;

  FeatureScaleRule(org.deeplearning4j.nn.api.Layer layer) {
    this.layer = layer;
  }

  @Override
  public INDArray forward(INDArray in) {
    PASSES.incrementAndGet();
    input = in;
    return in.mulRowVector(layer.getParam("W"));
  }

  @Override
  public INDArray backward(INDArray outputError, boolean needInputError) {
    delta = outputError;
    return needInputError ? outputError.mulRowVector(layer.getParam("W")) : null;
  }

  @Override
  public boolean hasParams() {
    return true;
  }

  @Override
  public INDArray squaredNorms() {
    INDArray norm = input.mul(delta).norm2(1);
    return norm.muli(norm).reshape(input.size(0), 1);
  }

  @Override
  public void writeScaledSum(INDArray scale, Map<String, INDArray> gradientViews) {
    INDArray sum = input.mul(delta).mulColumnVector(scale).sum(0);
    gradientViews.get("W").assign(sum.reshape(gradientViews.get("W").shape()));
  }
}
