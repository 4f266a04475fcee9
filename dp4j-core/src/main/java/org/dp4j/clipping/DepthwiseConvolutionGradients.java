package org.dp4j.clipping;

import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.CNN2DFormat;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.conf.layers.DepthwiseConvolution2D;
import org.deeplearning4j.nn.conf.layers.SeparableConvolution2D;
import org.deeplearning4j.nn.params.SeparableConvolutionParamInitializer;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * {@code DepthwiseConvolution2D} and {@code SeparableConvolution2D} (NCHW or NHWC): input channel c with depth
 * multiplier m feeds output channels c·m … c·m + m − 1 alone, so each input channel is a group with its own patches
 * X_{i,c} [P, kH·kW] and G_{i,c} = δ_{i,c}ᵀX_{i,c} ({@link UnfoldedConvolutionRule}). A separable layer then applies a
 * 1×1 convolution W_p [out, C·m] to the depthwise output Y_i [P, C·m]: its gradient is δ_iᵀY_i, and the depthwise
 * error is δ_iW_p.
 */
final class DepthwiseConvolutionGradients extends UnfoldedConvolutionRule {
  private final ConvolutionLayer conf;
  private final int multiplier;
  private final boolean separable;

  DepthwiseConvolutionGradients(Layer layer, long chunkElements, ConvolutionNorms norms) {
    super(layer, chunkElements, norms, channelsFirst((ConvolutionLayer) layer.conf().getLayer()));
    this.conf = (ConvolutionLayer) layer.conf().getLayer();
    this.separable = conf instanceof SeparableConvolution2D;
    this.multiplier = separable ? ((SeparableConvolution2D) conf).getDepthMultiplier()
        : ((DepthwiseConvolution2D) conf).getDepthMultiplier();
  }

  private static int[] channelsFirst(ConvolutionLayer conf) {
    return conf.getCnn2dDataFormat() == CNN2DFormat.NHWC ? new int[] {0, 3, 1, 2} : null;
  }

  @Override
  INDArray weightSquaredNorms(long start, long end) {
    INDArray x = rows(input, start, end);
    INDArray d = rows(delta, start, end);
    long m = x.size(0);
    long channels = x.size(1);
    long[] positions = ConvolutionNdGradients.spatial(d);
    int[] pad = Unfold.leadingPad(conf.getConvolutionMode(), conf.getPadding(), conf.getKernelSize(),
        conf.getStride(), conf.getDilation(), ConvolutionNdGradients.spatial(x), positions);
    // [m, C, K, P] → [m, C, P, K]: one group per input channel.
    INDArray patches = Unfold.patches(x, conf.getKernelSize(), conf.getStride(), conf.getDilation(), pad, positions)
        .permute(0, 1, 3, 2).dup('c');
    long p = patches.size(2);
    if (!separable) {
      return groupedSquaredNorms(patches, byInputChannel(d.reshape('c', m, channels * multiplier, p), channels));
    }
    INDArray pointwise = layer.getParam(SeparableConvolutionParamInitializer.POINT_WISE_WEIGHT_KEY)
        .reshape('c', -1, channels * multiplier);                                        // [out, C·m]
    INDArray depthwiseOutput = depthwiseOutput(patches);                                  // [m, P, C·m]
    INDArray errors = positionsByChannel(d);                                              // [m, 1, P, out]
    INDArray pointwiseSq = groupedSquaredNorms(depthwiseOutput.reshape('c', m, 1, p, channels * multiplier), errors);
    INDArray depthwiseError = errors.reshape('c', m * p, -1).mmul(pointwise)             // [m·P, C·m]
        .reshape('c', m, p, channels * multiplier).permute(0, 2, 1).dup('c');            // [m, C·m, P]
    return pointwiseSq.addi(groupedSquaredNorms(patches, byInputChannel(depthwiseError, channels)));
  }

  /** [m, C·mult, P] (channel c·mult + j) → [m, C, P, mult]. */
  private INDArray byInputChannel(INDArray a, long channels) {
    return a.reshape('c', a.size(0), channels, multiplier, a.size(2)).permute(0, 1, 3, 2).dup('c');
  }

  /** Y = the depthwise convolution without bias, [m, P, C·mult], channel c·mult + j: one batched product. */
  private INDArray depthwiseOutput(INDArray patches) {
    long m = patches.size(0);
    long channels = patches.size(1);
    long p = patches.size(2);
    long k = patches.size(3);
    // Separable depthwise weights are [mult, C, kH, kW]; per channel [K, mult].
    INDArray weights = layer.getParam(SeparableConvolutionParamInitializer.DEPTH_WISE_WEIGHT_KEY)
        .reshape('c', multiplier, channels, k).permute(1, 2, 0).dup('c');
    INDArray x = patches.permute(1, 0, 2, 3).dup('c').reshape('c', channels, m * p, k);
    INDArray y = Nd4j.matmul(x, weights);                                                 // [C, m·P, mult]
    return y.reshape('c', channels, m, p, multiplier).permute(1, 2, 0, 3).dup('c')
        .reshape('c', m, p, channels * multiplier);
  }

  @Override
  long elementsPerExample() {
    long channels = input.size(1);
    long k = (long) conf.getKernelSize()[0] * conf.getKernelSize()[1];
    long positions = delta.size(2) * delta.size(3);
    long mid = channels * multiplier;
    // Padded input, patches, errors and products per group, and for a separable layer Y and its errors.
    return input.length() / input.size(0) + positions * (2 * channels * k + 3 * mid + delta.size(1))
        + channels * Math.max(multiplier * k, 2 * positions * positions) + mid * delta.size(1);
  }
}
