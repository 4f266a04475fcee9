package org.dp4j.clipping;

import java.util.Map;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.CNN2DFormat;
import org.deeplearning4j.nn.conf.ConvolutionMode;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.conf.layers.SubsamplingLayer;
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
  private final SubsamplingLayer pooling;    // the fused pooling above, which applies the activation; null: none
  private final ReusableArrays arrays = new ReusableArrays();
  private final UnfoldedConvolution convolution;
  private long n;
  private ConvolutionPatches geometry;
  private boolean errorView;    // input error as a view of channels-last memory (see handOverChannelsLastError)

  ConvolutionGradients(Layer layer, long chunkElements, ConvolutionNorms norms) {
    this(layer, chunkElements, norms, null);
  }

  /**
   * @param pooling the max pooling above that applies this layer's activation ({@link ConvolutionPoolingFusion}),
   *     or null: {@link #forward} then returns the pre-activation z as a view of the channels-last GEMM output
   *     (NCHW-shaped for an NCHW layer, no transpose; positions in the window order of {@link PoolingWindows} when
   *     the pooling tiles the output) and {@link #backward} takes dL/dz in the same layout
   */
  ConvolutionGradients(Layer layer, long chunkElements, ConvolutionNorms norms, SubsamplingLayer pooling) {
    this.layer = layer;
    this.conf = (ConvolutionLayer) layer.conf().getLayer();
    this.channelsLast = conf.getCnn2dDataFormat() == CNN2DFormat.NHWC;
    this.pooling = pooling;
    this.convolution = new UnfoldedConvolution(pooling != null ? null : conf.getActivationFn(), norms,
        chunkElements, arrays);
  }

  @Override
  public INDArray forward(INDArray input) {
    n = input.size(0);
    INDArray nhwc = channelsLast ? input : channelsLastBuffer(input);
    if (nhwc == null) {
      nhwc = transposeLastTwo("inputChannelsLast", input.reshape('c', n, input.size(1),
          input.size(2) * input.size(3))).reshape('c', n, input.size(2), input.size(3), input.size(1));
    }
    geometry = ConvolutionPatches.of((int) nhwc.size(3), (int) nhwc.size(1), (int) nhwc.size(2),
        conf.getKernelSize(), conf.getStride(), conf.getDilation(), conf.getPadding(), conf.getConvolutionMode());
    INDArray bias = conf.hasBias() ? layer.getParam(ConvolutionParamInitializer.BIAS_KEY) : null;
    PoolingWindows windows = pooling == null ? null : PoolingWindows.of(pooling, conf, input.dataType(),
        geometry.outputHeight(), geometry.outputWidth());
    INDArray a = convolution.forward(nhwc, geometry, layer.getParam(ConvolutionParamInitializer.WEIGHT_KEY), bias,
        windows);
    long out = a.size(1);
    if (pooling != null && !channelsLast) {
      return a.reshape('c', n, geometry.outputHeight(), geometry.outputWidth(), out).permute(0, 3, 1, 2);
    }
    return channelsLast ? a.reshape('c', n, geometry.outputHeight(), geometry.outputWidth(), out)
        : transposeLastTwo("outputChannelsFirst", a.reshape('c', n, geometry.positions(), out))
            .reshape('c', n, out, geometry.outputHeight(), geometry.outputWidth());
  }

  @Override
  public INDArray backward(INDArray outputError, boolean needInputError) {
    long positions = geometry.positions();
    // Rows (example, position), one column per output channel, in a buffer of our own (backprop overwrites it).
    INDArray error;
    if (channelsLast) {
      error = arrays.get("error", outputError.dataType(), n, outputError.size(1), outputError.size(2),
          outputError.size(3)).assign(outputError);
    } else {
      // An error laid out channels last behind its NCHW shape (a fused pooling layer's) is used in place.
      INDArray inPlace = pooling != null ? channelsLastBuffer(outputError) : null;
      error = inPlace != null ? inPlace
          : transposeLastTwo("error", outputError.reshape('c', n, outputError.size(1), positions));
    }
    INDArray inputError = convolution.backward(error.reshape('c', n * positions, -1), needInputError);
    if (inputError == null) {
      return null;
    }
    INDArray nhwc = channelsLastBuffer(inputError);    // the float32 fold's layout
    if (channelsLast) {
      long c = inputError.size(1);
      return nhwc != null ? nhwc : transposeLastTwo("inputErrorChannelsLast", inputError.reshape('c', n, c, -1))
          .reshape('c', n, inputError.size(2), inputError.size(3), c);
    }
    if (nhwc != null && !errorView) {
      return arrays.get("inputErrorChannelsFirst", inputError.dataType(), inputError.shape()).assign(inputError);
    }
    return inputError;
  }

  /**
   * Whether an NCHW layer may return its input error as an NCHW-shaped view of channels-last memory (for a fused
   * pooling rule below, which reads that memory directly) instead of a copy in NCHW order.
   */
  void handOverChannelsLastError(boolean allowed) {
    errorView = allowed;
  }

  boolean handsOverChannelsLastError() {
    return errorView;
  }

  /**
   * The channels-last array [n, H, W, C] behind an NCHW-shaped view when its memory is laid out that way (a
   * permuted view of a contiguous channels-last array), else null.
   */
  private static INDArray channelsLastBuffer(INDArray nchw) {
    INDArray nhwc = nchw.permute(0, 2, 3, 1);
    return BufferElements.rowMajor(nhwc) ? nhwc : null;
  }

  /** [n, a, b] → [n, b, a] into the named buffer: a batch of matrix transposes, the fast way to switch layouts. */
  private INDArray transposeLastTwo(String name, INDArray m) {
    return arrays.get(name, m.dataType(), m.size(0), m.size(2), m.size(1)).assign(m.permute(0, 2, 1));
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
