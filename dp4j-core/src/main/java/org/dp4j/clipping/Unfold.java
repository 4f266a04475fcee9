package org.dp4j.clipping;

import org.deeplearning4j.nn.conf.ConvolutionMode;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.INDArrayIndex;
import org.nd4j.linalg.indexing.NDArrayIndex;

/**
 * The im2col ("unfold") of a channels-first batch in 1, 2 or 3 spatial dimensions: for output position o and kernel
 * offset a along each axis, the patch entry is {@code x[o·s + a·d − pad]} (zero outside the input). One strided copy
 * per kernel offset, none per example. {@link UnfoldedConvolutionRule}'s rules build per-example weight-gradient norms
 * from it (Rochette et al. 2019, "Efficient per-example gradient computations in convolutional neural networks").
 */
final class Unfold {
  private Unfold() {
  }

  /**
   * @param x [m, C, s_1 … s_k], channels first
   * @param leadingPad padding before the first element along each spatial axis (may be negative)
   * @param positions output positions along each spatial axis
   * @return [m, C, Π kernel, Π positions] ('c' order; kernel offsets and positions row-major)
   */
  static INDArray patches(INDArray x, int[] kernel, int[] stride, int[] dilation, int[] leadingPad,
      long[] positions) {
    int axes = kernel.length;
    long m = x.size(0);
    long channels = x.size(1);
    long[] paddedShape = new long[axes + 2];
    paddedShape[0] = m;
    paddedShape[1] = channels;
    INDArrayIndex[] interior = new INDArrayIndex[axes + 2];
    interior[0] = NDArrayIndex.all();
    interior[1] = NDArrayIndex.all();
    int[] shift = new int[axes];
    long kernelSize = 1;
    long positionCount = 1;
    for (int a = 0; a < axes; a++) {
      shift[a] = Math.max(0, leadingPad[a]);
      long last = (positions[a] - 1) * stride[a] + (long) (kernel[a] - 1) * dilation[a] - leadingPad[a] + shift[a];
      paddedShape[a + 2] = Math.max(shift[a] + x.size(a + 2), last + 1);
      interior[a + 2] = NDArrayIndex.interval(shift[a], shift[a] + x.size(a + 2));
      kernelSize *= kernel[a];
      positionCount *= positions[a];
    }
    INDArray padded = Nd4j.zeros(x.dataType(), paddedShape);
    // A negative pad drops leading input elements: they are never read below.
    padded.get(interior).assign(x);
    long[] outShape = new long[2 + 2 * axes];
    outShape[0] = m;
    outShape[1] = channels;
    for (int a = 0; a < axes; a++) {
      outShape[2 + a] = kernel[a];
      outShape[2 + axes + a] = positions[a];
    }
    INDArray out = Nd4j.createUninitialized(x.dataType(), outShape, 'c');
    int[] offset = new int[axes];
    for (long k = 0; k < kernelSize; k++) {
      INDArrayIndex[] target = new INDArrayIndex[outShape.length];
      INDArrayIndex[] source = new INDArrayIndex[axes + 2];
      target[0] = NDArrayIndex.all();
      target[1] = NDArrayIndex.all();
      source[0] = NDArrayIndex.all();
      source[1] = NDArrayIndex.all();
      for (int a = 0; a < axes; a++) {
        target[2 + a] = NDArrayIndex.point(offset[a]);
        target[2 + axes + a] = NDArrayIndex.all();
        long start = (long) offset[a] * dilation[a] - leadingPad[a] + shift[a];
        source[2 + a] = NDArrayIndex.interval(start, stride[a], start + (positions[a] - 1) * stride[a] + 1);
      }
      out.get(target).assign(padded.get(source));
      for (int a = axes - 1; a >= 0 && ++offset[a] == kernel[a]; a--) {
        offset[a] = 0;
      }
    }
    return out.reshape('c', m, channels, kernelSize, positionCount);
  }

  /**
   * The padding before the first element that DL4J uses along each axis: the configured padding, (k−1)·d for
   * {@code Causal} (1-D only), and for {@code Same} ⌊((o−1)·s + (k−1)·d + 1 − i)/2⌋ as in
   * {@code ConvolutionUtils.getSameModeTopLeftPadding}.
   */
  static int[] leadingPad(ConvolutionMode mode, int[] padding, int[] kernel, int[] stride, int[] dilation,
      long[] inputSize, long[] positions) {
    int[] pad = new int[kernel.length];
    for (int a = 0; a < kernel.length; a++) {
      if (mode == ConvolutionMode.Same) {
        pad[a] = (int) (((positions[a] - 1) * stride[a] + (long) (kernel[a] - 1) * dilation[a] + 1 - inputSize[a]) / 2);
      } else if (mode == ConvolutionMode.Causal) {
        pad[a] = (kernel[a] - 1) * dilation[a];
      } else {
        pad[a] = padding[a];
      }
    }
    return pad;
  }
}
