package org.dp4j.clipping;

import java.util.Map;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.CNN2DFormat;
import org.deeplearning4j.nn.conf.ConvolutionMode;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.params.ConvolutionParamInitializer;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * {@code ConvolutionLayer} (2D, NCHW or NHWC, any kernel/stride/padding/dilation and {@link ConvolutionMode} DL4J
 * accepts for it): with the im2col patches X_i [P, K] of example i (P output positions, K = inChannels·kH·kW) and
 * its error δ_i [P, out], the weight gradient is G_i = δ_iᵀ X_i and the bias gradient is δ_iᵀ1. Forward and backward
 * run as im2col + GEMM on dp4j's own code ({@link UnfoldedConvolution}), not through DL4J's layer; norms materialise
 * G_i, or use the Gram form ⟨X_iX_iᵀ, δ_iδ_iᵀ⟩ where that is cheaper ({@link ConvolutionNorms}), a chunk of
 * examples at a time (memory bounded by {@link #CHUNK_ELEMENTS} by default); the scaled sum Σ c_i G_i is one matrix
 * product over the batch (Opacus {@code grad_sample/conv.py}).
 */
final class ConvolutionGradients implements PerExampleLayer {
  /** Default upper bound on the elements of the per-example weight gradients held at once (32 MiB in double). */
  static final long CHUNK_ELEMENTS = 1L << 22;

  private final Layer layer;
  private final ConvolutionLayer conf;
  private final boolean channelsLast;
  private final UnfoldedConvolution convolution;
  private long n;
  private ConvolutionPatches geometry;

  ConvolutionGradients(Layer layer, long chunkElements, ConvolutionNorms norms) {
    this.layer = layer;
    this.conf = (ConvolutionLayer) layer.conf().getLayer();
    this.channelsLast = conf.getCnn2dDataFormat() == CNN2DFormat.NHWC;
    this.convolution = new UnfoldedConvolution(conf.getActivationFn(), norms, chunkElements);
  }

  @Override
  public INDArray forward(INDArray input) {
    n = input.size(0);
    INDArray nhwc = channelsLast ? input : input.permute(0, 2, 3, 1);
    geometry = ConvolutionPatches.of((int) nhwc.size(3), (int) nhwc.size(1), (int) nhwc.size(2),
        conf.getKernelSize(), conf.getStride(), conf.getDilation(), conf.getPadding(), conf.getConvolutionMode());
    INDArray bias = conf.hasBias() ? layer.getParam(ConvolutionParamInitializer.BIAS_KEY) : null;
    INDArray a = convolution.forward(nhwc, geometry, layer.getParam(ConvolutionParamInitializer.WEIGHT_KEY), bias)
        .reshape('c', n, geometry.outputHeight(), geometry.outputWidth(), -1);
    return channelsLast ? a : a.permute(0, 3, 1, 2).dup('c');
  }

  @Override
  public INDArray backward(INDArray outputError, boolean needInputError) {
    // Rows (example, position), one column per output channel: a copy, so backprop may overwrite it.
    INDArray error = (channelsLast ? outputError : outputError.permute(0, 2, 3, 1)).dup('c')
        .reshape('c', n * geometry.positions(), -1);
    INDArray inputError = convolution.backward(error, needInputError);
    return inputError == null || !channelsLast ? inputError : inputError.permute(0, 2, 3, 1).dup('c');
  }

  @Override
  public boolean hasParams() {
    return true;
  }

  @Override
  public INDArray squaredNorms() {
    return convolution.squaredNorms();
  }

  @Override
  public void writeScaledSum(INDArray scale, Map<String, INDArray> gradientViews) {
    convolution.writeScaledSum(scale, gradientViews.get(ConvolutionParamInitializer.WEIGHT_KEY),
        conf.hasBias() ? gradientViews.get(ConvolutionParamInitializer.BIAS_KEY) : null);
  }
}
