package org.dp4j.clipping;

import java.util.List;
import java.util.Map;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.RNNFormat;
import org.deeplearning4j.nn.conf.layers.RnnLossLayer;
import org.deeplearning4j.nn.conf.layers.RnnOutputLayer;
import org.deeplearning4j.nn.params.DefaultParamInitializer;
import org.nd4j.linalg.activations.IActivation;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.lossfunctions.ILossFunction;

/**
 * {@code RnnOutputLayer} (a dense output layer applied at every time step) and {@code RnnLossLayer} (its loss
 * without parameters): example i's loss is the sum of its per-step losses, so its error at step t is the loss
 * gradient of row (i, t) — with DL4J's label mask (per step [n, T] or per output) zeroing masked entries — and its
 * weight gradient is Σ_t x_{i,t} δ_{i,t}ᵀ ({@link TimeSummedGradients}). Which entries count follows DL4J: the label
 * mask, not the feature mask, decides the loss terms.
 */
final class RnnOutputGradients implements PerExampleLayer {
  private final Layer layer;
  private final String where;
  private final boolean hasParams;
  private final boolean hasBias;
  private final IActivation activation;
  private final ILossFunction loss;
  private final RNNFormat format;
  private final long chunkElements;
  private INDArray input;       // [n, T, nIn]
  private INDArray preOut;      // [n·T, nOut], rows (example, step)
  private TimeSummedGradients block;

  RnnOutputGradients(Layer layer, String where, long chunkElements) {
    this.layer = layer;
    this.where = where;
    org.deeplearning4j.nn.conf.layers.Layer conf = layer.conf().getLayer();
    if (conf instanceof RnnOutputLayer) {
      RnnOutputLayer out = (RnnOutputLayer) conf;
      this.activation = out.getActivationFn();
      this.loss = out.getLossFn();
      this.format = out.getRnnDataFormat();
      this.hasParams = true;
    } else {
      RnnLossLayer out = (RnnLossLayer) conf;
      this.activation = out.getActivationFn();
      this.loss = out.getLossFn();
      this.format = out.getRnnDataFormat();
      this.hasParams = false;
    }
    this.hasBias = layer.paramTable().containsKey(DefaultParamInitializer.BIAS_KEY);
    this.chunkElements = chunkElements;
  }

  @Override
  public INDArray forward(INDArray in) {
    input = SequenceArrays.batchMajor(in, format, where);
    INDArray rows = input.reshape('c', input.size(0) * input.size(1), input.size(2));
    if (hasParams) {
      preOut = rows.mmul(layer.getParam(DefaultParamInitializer.WEIGHT_KEY));
      if (hasBias) {
        preOut.addiRowVector(layer.getParam(DefaultParamInitializer.BIAS_KEY));
      }
    } else {
      preOut = rows;
    }
    return null;
  }

  @Override
  public INDArray backward(INDArray outputError, boolean needInputError) {
    throw new UnsupportedOperationException(where + " is an output layer");
  }

  @Override
  public INDArray backwardFromLabels(INDArray labels, INDArray labelMask, boolean needInputError) {
    long n = input.size(0);
    long steps = input.size(1);
    INDArray y = SequenceArrays.batchMajor(labels.castTo(input.dataType()), format, where);
    INDArray mask = null;
    if (labelMask != null) {
      mask = labelMask.rank() == 3
          ? SequenceArrays.batchMajor(labelMask.castTo(input.dataType()), format, where).reshape('c', n * steps,
              y.size(2))
          : SequenceArrays.mask(labelMask, input.dataType(), n, steps, where).reshape('c', n * steps, 1);
    }
    // One row per (example, step): the gradient of that term of the example's loss, not the batch mean.
    INDArray delta = loss.computeGradient(y.reshape('c', n * steps, y.size(2)), preOut.dup('c'), activation, mask);
    INDArray delta3 = delta.reshape('c', n, steps, delta.size(1));
    preOut = null;
    if (hasParams) {
      block = new TimeSummedGradients(List.of(input), delta3, hasBias, chunkElements);
    }
    if (!needInputError) {
      return null;
    }
    INDArray error = hasParams
        ? delta.mmul(layer.getParam(DefaultParamInitializer.WEIGHT_KEY).transpose())
            .reshape('c', n, steps, input.size(2))
        : delta3;
    return SequenceArrays.toFormat(error, format);
  }

  @Override
  public boolean isOutput() {
    return true;
  }

  @Override
  public boolean hasParams() {
    return hasParams;
  }

  @Override
  public INDArray squaredNorms() {
    return block.squaredNorms();
  }

  @Override
  public void writeScaledSum(INDArray scale, Map<String, INDArray> gradientViews) {
    block.writeScaledSum(scale, List.of(gradientViews.get(DefaultParamInitializer.WEIGHT_KEY)),
        gradientViews.get(DefaultParamInitializer.BIAS_KEY));
  }
}
