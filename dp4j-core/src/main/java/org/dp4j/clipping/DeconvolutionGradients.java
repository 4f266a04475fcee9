package org.dp4j.clipping;

import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.CNN2DFormat;
import org.deeplearning4j.nn.conf.layers.Deconvolution2D;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * {@code Deconvolution2D} (transposed convolution, NCHW or NHWC): input position q with kernel offset a writes output
 * position q·s + a·d − pad, so example i's weight gradient is G_i[c, o, a] = Σ_q x_i[c, q] δ_i[o, q·s + a·d − pad]:
 * the unfolded <em>output error</em> U_i [Q, out·kH·kW] with the input in the role of the error,
 * G_i = x_iᵀU_i ({@link UnfoldedConvolutionRule}).
 */
final class DeconvolutionGradients extends UnfoldedConvolutionRule {
  private final Deconvolution2D conf;

  DeconvolutionGradients(Layer layer, long chunkElements, ConvolutionNorms norms) {
    super(layer, chunkElements, norms,
        ((Deconvolution2D) layer.conf().getLayer()).getCnn2dDataFormat() == CNN2DFormat.NHWC
            ? new int[] {0, 3, 1, 2} : null);
    this.conf = (Deconvolution2D) layer.conf().getLayer();
  }

  @Override
  INDArray weightSquaredNorms(long start, long end) {
    INDArray x = rows(input, start, end);
    INDArray d = rows(delta, start, end);
    long[] positions = ConvolutionNdGradients.spatial(x);
    int[] pad = Unfold.leadingPad(conf.getConvolutionMode(), conf.getPadding(), conf.getKernelSize(),
        conf.getStride(), conf.getDilation(), ConvolutionNdGradients.spatial(d), positions);
    INDArray unfolded = Unfold.patches(d, conf.getKernelSize(), conf.getStride(), conf.getDilation(), pad,
        positions);
    return groupedSquaredNorms(patchRows(unfolded), positionsByChannel(x));
  }

  @Override
  long elementsPerExample() {
    long k = (long) conf.getKernelSize()[0] * conf.getKernelSize()[1] * delta.size(1);
    long positions = input.size(2) * input.size(3);
    return delta.length() / delta.size(0) + positions * (2 * k + input.size(1))
        + Math.max(input.size(1) * k, 2 * positions * positions);
  }
}
