package org.dp4j.clipping;

import java.util.Map;
import org.deeplearning4j.nn.conf.dropout.IDropout;
import org.deeplearning4j.nn.conf.layers.BaseOutputLayer;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.FeedForwardLayer;
import org.deeplearning4j.nn.params.DefaultParamInitializer;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.nd4j.linalg.activations.IActivation;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.ops.impl.transforms.custom.LayerNorm;
import org.nd4j.linalg.api.ops.impl.transforms.custom.LayerNormBp;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.lossfunctions.ILossFunction;

/**
 * {@code DenseLayer} and {@code OutputLayer}: z = aW + b, so example i's gradient is the outer product a_i δ_iᵀ
 * (and δ_i for the bias). Its norm follows from ‖a_i δ_iᵀ‖_F = ‖a_i‖‖δ_i‖ without materialising it:
 * ‖g_i‖² = ‖a_i‖²‖δ_i‖² + ‖δ_i‖²; the scaled sum Σ c_i g_i is aᵀ(c ⊙ δ), one matrix product
 * (Goodfellow 2015, "Efficient per-example gradient computations"; docs/dl4j-internals.md#per-example-gradients).
 *
 * <p>With {@code hasLayerNorm}, z = g ⊙ ĥ + b where ĥ standardises h = aW over each row (Ba et al. 2016, "Layer
 * normalization", Eq. 4), which acts on each example alone: the gain's gradient is δ_i ⊙ ĥ_i, the bias's δ_i, and the
 * weights' a_i e_iᵀ with e_i = ∂L_i/∂h_i from DL4J's own {@code LayerNormBp}, so
 * ‖g_i‖² = ‖a_i‖²‖e_i‖² + ‖δ_i‖² + ‖δ_i ⊙ ĥ_i‖².
 */
final class DenseGradients implements PerExampleLayer {
  private final StepCounts counts;
  private final org.deeplearning4j.nn.api.Layer layer;
  private final IActivation activation;
  private final IDropout dropout;
  private final ILossFunction loss;
  private final boolean hasBias;
  private final boolean layerNorm;
  private INDArray input;
  private INDArray preActivation;
  private INDArray output;           // σ(z) of a hidden layer, read again by the backward pass (tanh)
  private INDArray preNorm;           // h = aW (layer norm only)
  private INDArray normalised;        // ĥ (layer norm only)
  private INDArray delta;             // ∂L_i/∂(aW): e_i with layer norm, δ_i without
  private INDArray outputDelta;       // δ_i = ∂L_i/∂z (layer norm only)

  DenseGradients(org.deeplearning4j.nn.api.Layer layer, StepCounts counts) {
    this.counts = counts;
    this.layer = layer;
    FeedForwardLayer conf = (FeedForwardLayer) layer.conf().getLayer();
    this.activation = conf.getActivationFn();
    this.dropout = conf.getIDropout();
    this.loss = conf instanceof BaseOutputLayer ? ((BaseOutputLayer) conf).getLossFn() : null;
    this.hasBias = layer.paramTable().containsKey(DefaultParamInitializer.BIAS_KEY);
    this.layerNorm = conf instanceof DenseLayer && ((DenseLayer) conf).hasLayerNorm();
  }

  @Override
  public INDArray forward(INDArray in) {
    input = dropout == null ? in
        : dropout.applyDropout(in, in.ulike(), counts.iteration(), counts.epoch(),
            LayerWorkspaceMgr.noWorkspaces());
    preActivation = input.mmul(layer.getParam(DefaultParamInitializer.WEIGHT_KEY));
    if (layerNorm) {
      normalise();
    }
    if (hasBias) {
      preActivation.addiRowVector(layer.getParam(DefaultParamInitializer.BIAS_KEY));
    }
    // An output layer's activation is folded into its loss gradient; nobody reads its output here.
    output = isOutput() ? null : activation.getActivation(preActivation.dup(), true);
    return output;
  }

  /** h → g ⊙ ĥ with DL4J's own LayerNorm op (as {@code BaseLayer.preOutputWithPreNorm}), keeping h and ĥ. */
  private void normalise() {
    INDArray gain = layer.getParam(DefaultParamInitializer.GAIN_KEY);
    preNorm = preActivation;
    normalised = preNorm.ulike();
    Nd4j.getExecutioner().exec(new LayerNorm(preNorm, Nd4j.ones(gain.dataType(), gain.shape()), normalised, true, 1));
    preActivation = preNorm.ulike();
    Nd4j.getExecutioner().exec(new LayerNorm(preNorm, gain, preActivation, true, 1));
  }

  @Override
  public INDArray backward(INDArray outputError, boolean needInputError) {
    delta = ActivationBackprop.dLdz(activation, preActivation, output, outputError);
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
    if (layerNorm) {
      // e = ∂L/∂h through the normalisation, row by row (the gain gradient it also returns is the batch sum).
      outputDelta = delta;
      INDArray gain = layer.getParam(DefaultParamInitializer.GAIN_KEY);
      delta = outputDelta.ulike();
      Nd4j.getExecutioner().exec(new LayerNormBp(preNorm, gain, outputDelta, delta, gain.ulike(), true, 1));
      preNorm = null;
    }
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
    if (layerNorm) {
      INDArray sq = inputSq.muli(deltaSq);
      INDArray gainSq = outputDelta.mul(normalised).norm2(1);
      sq.addi(gainSq.muli(gainSq));
      if (hasBias) {
        INDArray biasSq = outputDelta.norm2(1);
        sq.addi(biasSq.muli(biasSq));
      }
      return sq.reshape(input.size(0), 1);
    }
    if (hasBias) {
      inputSq.addi(1.0);
    }
    return inputSq.muli(deltaSq).reshape(n, 1);
  }

  @Override
  public void writeScaledSum(INDArray scale, Map<String, INDArray> gradientViews) {
    INDArray scaledDelta = delta.mulColumnVector(scale);
    Nd4j.gemm(input, scaledDelta, gradientViews.get(DefaultParamInitializer.WEIGHT_KEY), true, false, 1.0, 0.0);
    INDArray scaledOutputDelta = layerNorm ? outputDelta.mulColumnVector(scale) : scaledDelta;
    if (hasBias) {
      INDArray biasView = gradientViews.get(DefaultParamInitializer.BIAS_KEY);
      biasView.assign(scaledOutputDelta.sum(0).reshape(biasView.shape()));
    }
    if (layerNorm) {
      INDArray gainView = gradientViews.get(DefaultParamInitializer.GAIN_KEY);
      gainView.assign(scaledOutputDelta.muli(normalised).sum(0).reshape(gainView.shape()));
    }
  }
}
