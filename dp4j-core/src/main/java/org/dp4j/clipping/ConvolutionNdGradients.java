package org.dp4j.clipping;

import static org.dp4j.InvalidSettingException.checkArgument;

import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.ConvolutionMode;
import org.deeplearning4j.nn.conf.RNNFormat;
import org.deeplearning4j.nn.conf.layers.Convolution1DLayer;
import org.deeplearning4j.nn.conf.layers.Convolution3D;
import org.deeplearning4j.util.ConvolutionUtils;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * {@code Convolution1DLayer} (NCW or NWC, every {@code ConvolutionMode} including {@code Causal}, with an optional
 * feature mask [n, T]) and
 * {@code Convolution3D} (NCDHW or NDHWC): one group of channels, G_i = δ_iᵀX_i with the patches X_i [P, C·Πk]
 * of example i ({@link UnfoldedConvolutionRule}).
 */
final class ConvolutionNdGradients extends UnfoldedConvolutionRule {
  private final int[] kernel;
  private final int[] stride;
  private final int[] dilation;
  private final int[] padding;
  private final ConvolutionMode mode;
  private INDArray mask;

  private ConvolutionNdGradients(Layer layer, long chunkElements, ConvolutionNorms norms, int[] toChannelsFirst,
      int[] kernel, int[] stride, int[] dilation, int[] padding, ConvolutionMode mode) {
    super(layer, chunkElements, norms, toChannelsFirst);
    this.kernel = kernel;
    this.stride = stride;
    this.dilation = dilation;
    this.padding = padding;
    this.mode = mode;
  }

  static ConvolutionNdGradients oneDimensional(Layer layer, long chunkElements, ConvolutionNorms norms) {
    Convolution1DLayer conf = (Convolution1DLayer) layer.conf().getLayer();
    return new ConvolutionNdGradients(layer, chunkElements, norms,
        conf.getRnnDataFormat() == RNNFormat.NWC ? new int[] {0, 2, 1} : null,
        new int[] {conf.getKernelSize()[0]}, new int[] {conf.getStride()[0]}, new int[] {conf.getDilation()[0]},
        new int[] {conf.getPadding()[0]}, conf.getConvolutionMode());
  }

  @Override
  public void setInputMask(INDArray mask) {
    checkArgument(mask == null || kernel.length == 1, "a feature mask is only supported on a 1-D convolution");
    this.mask = mask;
  }

  /** The input mask reduced to the output steps, as DL4J's {@code Convolution1DLayer.feedForwardMaskArray}. */
  @Override
  INDArray outputMask() {
    return mask == null ? null : ConvolutionUtils.cnn1dMaskReduction(mask, kernel[0], stride[0], padding[0],
        dilation[0], mode);
  }

  static ConvolutionNdGradients threeDimensional(Layer layer, long chunkElements, ConvolutionNorms norms) {
    Convolution3D conf = (Convolution3D) layer.conf().getLayer();
    return new ConvolutionNdGradients(layer, chunkElements, norms,
        conf.getDataFormat() == Convolution3D.DataFormat.NDHWC ? new int[] {0, 4, 1, 2, 3} : null,
        conf.getKernelSize(), conf.getStride(), conf.getDilation(), conf.getPadding(), conf.getConvolutionMode());
  }

  @Override
  INDArray weightSquaredNorms(long start, long end) {
    INDArray x = rows(input, start, end);
    INDArray d = rows(delta, start, end);
    long[] inSize = spatial(x);
    long[] positions = spatial(d);
    int[] pad = Unfold.leadingPad(mode, padding, kernel, stride, dilation, inSize, positions);
    INDArray patches = Unfold.patches(x, kernel, stride, dilation, pad, positions);
    return groupedSquaredNorms(patchRows(patches), positionsByChannel(d));
  }

  @Override
  long elementsPerExample() {
    long k = input.size(1);
    for (int size : kernel) {
      k *= size;
    }
    long positions = delta.length() / delta.size(0) / delta.size(1);
    long out = delta.size(1);
    // Padded input, patches, errors, and the larger of the two norm forms.
    return input.length() / input.size(0) + positions * (2 * k + out)
        + Math.max(out * k, 2 * positions * positions);
  }

  static long[] spatial(INDArray a) {
    long[] size = new long[a.rank() - 2];
    for (int i = 0; i < size.length; i++) {
      size[i] = a.size(i + 2);
    }
    return size;
  }
}
