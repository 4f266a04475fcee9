package org.dp4j.clipping;

import java.util.Map;
import org.deeplearning4j.nn.conf.dropout.IDropout;
import org.deeplearning4j.nn.conf.layers.BaseOutputLayer;
import org.deeplearning4j.nn.conf.layers.FeedForwardLayer;
import org.deeplearning4j.nn.params.DefaultParamInitializer;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.nd4j.linalg.activations.IActivation;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.lossfunctions.ILossFunction;

/**
 * {@code DenseLayer} and {@code OutputLayer}: z = aW + b, so example i's gradient is the outer product a_i δ_iᵀ
 * (and δ_i for the bias). Its norm follows from ‖a_i δ_iᵀ‖_F = ‖a_i‖‖δ_i‖ without materialising it:
 * ‖g_i‖² = ‖a_i‖²‖δ_i‖² + ‖δ_i‖²; the scaled sum Σ c_i g_i is aᵀ(c ⊙ δ), one matrix product
 * (Goodfellow 2015, "Efficient per-example gradient computations"; docs/dl4j-internals.md#per-example-gradients).
 */
final class DenseGradients implements PerExampleLayer {
  private final StepCounts counts;
  private final org.deeplearning4j.nn.api.Layer layer;
  private final IActivation activation;
  private final IDropout dropout;
  private final ILossFunction loss;
  private final boolean hasBias;
  private INDArray input;
  private INDArray preActivation;
  private INDArray delta;

  DenseGradients(org.deeplearning4j.nn.api.Layer layer, StepCounts counts) {
    this.counts = counts;
    this.layer = layer;
    FeedForwardLayer conf = (FeedForwardLayer) layer.conf().getLayer();
    this.activation = conf.getActivationFn();
    this.dropout = conf.getIDropout();
    this.loss = conf instanceof BaseOutputLayer ? ((BaseOutputLayer) conf).getLossFn() : null;
    this.hasBias = layer.paramTable().containsKey(DefaultParamInitializer.BIAS_KEY);
  }

  @Override
  public INDArray forward(INDArray in) {
    input = dropout == null ? in
        : dropout.applyDropout(in, in.ulike(), counts.iteration(), counts.epoch(),
            LayerWorkspaceMgr.noWorkspaces());
    preActivation = input.mmul(layer.getParam(DefaultParamInitializer.WEIGHT_KEY));
    if (hasBias) {
      preActivation.addiRowVector(layer.getParam(DefaultParamInitializer.BIAS_KEY));
    }
    // An output layer's activation is folded into its loss gradient; nobody reads its output here.
    return isOutput() ? null : activation.getActivation(preActivation.dup(), true);
  }

  @Override
  public INDArray backward(INDArray outputError, boolean needInputError) {
    delta = activation.backprop(preActivation, outputError).getFirst();
    return inputError(needInputError);
  }

  @Override
  public INDArray backwardFromLabels(INDArray labels, INDArray labelMask, boolean needInputError) {
    // One row per example: the gradient of that example's loss, not the batch mean.
    delta = loss.computeGradient(labels, preActivation, activation, labelMask);
    return inputError(needInputError);
  }

  private INDArray inputError(boolean needed) {
    preActivation = null;
    if (!needed) {
      return null;
    }
    INDArray error = delta.mmul(layer.getParam(DefaultParamInitializer.WEIGHT_KEY).transpose());
    return dropout == null ? error : dropout.backprop(error, error, counts.iteration(), counts.epoch());
  }

  @Override
  public boolean isOutput() {
    return loss != null;
  }

  @Override
  public boolean hasParams() {
    return true;
  }

  @Override
  public INDArray squaredNorms() {
    long n = input.size(0);
    // Reshaped to [n]: ND4J keeps a [n, 1] shape for the norm of a one-column array (an output with nOut = 1).
    INDArray inputSq = input.norm2(1).reshape(n);
    inputSq.muli(inputSq);
    INDArray deltaSq = delta.norm2(1).reshape(n);
    deltaSq.muli(deltaSq);
    if (hasBias) {
      inputSq.addi(1.0);
    }
    return inputSq.muli(deltaSq).reshape(n, 1);
  }

  @Override
  public void writeScaledSum(INDArray scale, Map<String, INDArray> gradientViews) {
    INDArray scaledDelta = delta.mulColumnVector(scale);
    Nd4j.gemm(input, scaledDelta, gradientViews.get(DefaultParamInitializer.WEIGHT_KEY), true, false, 1.0, 0.0);
    if (hasBias) {
      INDArray biasView = gradientViews.get(DefaultParamInitializer.BIAS_KEY);
      biasView.assign(scaledDelta.sum(0).reshape(biasView.shape()));
    }
  }
}
