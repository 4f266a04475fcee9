package org.dp4j.clipping;

import static org.dp4j.clipping.SequenceArrays.maskColumn;
import static org.dp4j.clipping.SequenceArrays.step;
import static org.dp4j.clipping.SequenceArrays.stepCopy;

import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.deeplearning4j.nn.conf.RNNFormat;
import org.deeplearning4j.nn.conf.layers.recurrent.SimpleRnn;
import org.deeplearning4j.nn.params.SimpleRnnParamInitializer;
import org.nd4j.linalg.activations.IActivation;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;

/**
 * {@code SimpleRnn} without layer normalisation: h_t = m_t·act(x_t W + h_{t-1} R + b) with zero initial state and
 * full back-propagation through time, as DL4J computes it (a feature mask m_t zeroes masked steps, whose errors are
 * then zero). The input projection of all steps and the input error are one matrix product each; example i's
 * gradient of [W; R; b] is Σ_t [x_{i,t}; h_{i,t-1}; 1] δ_{i,t}ᵀ ({@link TimeSummedGradients}; Elman 1990, the
 * per-example sum over steps as in Opacus' DPRNN).
 */
final class SimpleRnnGradients extends MaskedSequenceGradients {
  private final IActivation activation;
  private final RNNFormat format;
  private INDArray pre;         // [T, n, H]
  private INDArray out;         // [T, n, H]
  private TimeSummedGradients block;

  /**
   * @param conf the layer's configuration
   * @param params its parameters by key (W, RW, b)
   */
  SimpleRnnGradients(SimpleRnn conf, Function<String, INDArray> params, String where, long chunkElements) {
    super(params, where, chunkElements);
    this.activation = conf.getActivationFn();
    this.format = conf.getRnnDataFormat();
  }

  @Override
  public INDArray forward(INDArray in) {
    readInput(in, format);
    long n = input.size(0);
    long steps = input.size(1);
    INDArray w = params.apply(SimpleRnnParamInitializer.WEIGHT_KEY);
    INDArray projected = input.reshape('c', n * steps, input.size(2)).mmul(w)
        .addiRowVector(params.apply(SimpleRnnParamInitializer.BIAS_KEY)).reshape('c', n, steps, w.size(1));
    pre = Nd4j.create(input.dataType(), steps, n, w.size(1));
    out = pre.ulike();
    INDArray recurrent = params.apply(SimpleRnnParamInitializer.RECURRENT_WEIGHT_KEY);
    INDArray hPrev = null;
    for (long t = 0; t < steps; t++) {
      INDArray z = stepCopy(projected, t);
      if (hPrev != null) {
        z.addi(hPrev.mmul(recurrent));
      }
      step(pre, t).assign(z);
      INDArray h = activation.getActivation(z, true);
      if (mask != null) {
        h.muliColumnVector(maskColumn(mask, t));
      }
      step(out, t).assign(h);
      hPrev = h;
    }
    return SequenceArrays.toFormat(out.permute(1, 0, 2), format);
  }

  @Override
  public INDArray backward(INDArray outputError, boolean needInputError) {
    INDArray eps = SequenceArrays.batchMajor(outputError, format, where);
    long steps = eps.size(1);
    INDArray recurrentT = params.apply(SimpleRnnParamInitializer.RECURRENT_WEIGHT_KEY).transpose();
    INDArray delta = pre.ulike();
    INDArray dNext = null;
    for (long t = steps - 1; t >= 0; t--) {
      INDArray dh = stepCopy(eps, t);
      if (dNext != null) {
        dh.addi(dNext.mmul(recurrentT));
      }
      if (mask != null) {
        dh.muliColumnVector(maskColumn(mask, t));
      }
      INDArray d = step(delta, t);
      // Without a mask the kept output is σ(z): the derivative from it is bit for bit DL4J's backprop.
      d.assign(ActivationBackprop.dLdz(activation, step(pre, t).dup('c'), mask == null ? step(out, t) : null, dh));
      dNext = d;
    }
    block = new TimeSummedGradients(List.of(input, SequenceArrays.timeToBatchMajor(SequenceArrays.previousStep(out))),
        SequenceArrays.timeToBatchMajor(delta), true, chunkElements);
    pre = null;
    return needInputError
        ? SequenceArrays.inputError(delta, params.apply(SimpleRnnParamInitializer.WEIGHT_KEY), format) : null;
  }

  @Override
  public boolean hasParams() {
    return true;
  }

  @Override
  public INDArray squaredNorms() {
    return block.squaredNorms();
  }

  @Override
  public void writeScaledSum(INDArray scale, Map<String, INDArray> gradientViews) {
    block.writeScaledSum(scale, List.of(gradientViews.get(SimpleRnnParamInitializer.WEIGHT_KEY),
        gradientViews.get(SimpleRnnParamInitializer.RECURRENT_WEIGHT_KEY)),
        gradientViews.get(SimpleRnnParamInitializer.BIAS_KEY));
  }
}
