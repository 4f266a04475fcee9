package org.dp4j.clipping;

import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.conf.layers.SubsamplingLayer;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * The windows of a max pooling that tile a convolution's output (kernel = stride, no padding, no dilation: the
 * 2×2/2 pooling of most CNNs), and the <em>window order</em> of that output which a fused convolution–pooling pair
 * uses ({@link ConvolutionPoolingFusion}): rows h in their natural order, and within each row first the columns
 * w = s·ow + b of window column b = 0 for every ow, then those of b = 1, …, then the columns right of the last
 * window. In that order the members (a, b) of all windows of an output row are contiguous runs of outW·C values at
 * fixed distances, so the pooling is a handful of long loops over arrays that the JIT vectorises
 * ({@link ActivatedMaxPooling}). Arrays are channels last, [n, H, W, C]; rows below the last window and columns
 * right of it keep their place and get no error.
 */
final class PoolingWindows {
  final int height;
  final int width;
  final int kernelH;
  final int kernelW;
  final int outH;
  final int outW;

  private PoolingWindows(int height, int width, int kernelH, int kernelW) {
    this.height = height;
    this.width = width;
    this.kernelH = kernelH;
    this.kernelW = kernelW;
    this.outH = height / kernelH;
    this.outW = width / kernelW;
  }

  /**
   * The windows of {@code pooling} over the {@code height}×{@code width} output of {@code convolution}, or null
   * when the pair does not use the window order: other than float32, windows that overlap, leave gaps, pad or
   * dilate, or a convolution dilated along the width (its patches are copied by runs of kW·C values).
   */
  static PoolingWindows of(SubsamplingLayer pooling, ConvolutionLayer convolution, DataType type, int height,
      int width) {
    int[] k = pooling.getKernelSize();
    int[] s = pooling.getStride();
    int[] d = pooling.getDilation();
    ConvolutionPatches geometry = ConvolutionPatches.of(1, height, width, k, s, d, pooling.getPadding(),
        pooling.getConvolutionMode());
    int[] p = geometry.padding();
    boolean tiles = k[0] == s[0] && k[1] == s[1] && d[0] == 1 && d[1] == 1 && p[0] == 0 && p[1] == 0
        && geometry.outputHeight() == height / k[0] && geometry.outputWidth() == width / k[1];
    return type == DataType.FLOAT && tiles && convolution.getDilation()[1] == 1 && height >= k[0] && width >= k[1]
        ? new PoolingWindows(height, width, k[0], k[1]) : null;
  }

  /** The natural column of the column at place {@code j} of a row in the window order. */
  int naturalColumn(int j) {
    return j < outW * kernelW ? (j % outW) * kernelW + j / outW : j;    // window column j / outW
  }

  /** Whether some positions lie in no window (they get no error). */
  boolean leavesRemainder() {
    return outH * kernelH != height || outW * kernelW != width;
  }

  /**
   * Copies an array in the window order into one in the natural order (or back, with {@code toNatural} false);
   * both [n, H, W, C], contiguous row-major, distinct.
   */
  void reorder(INDArray from, INDArray to, boolean toNatural) {
    INDArray natural = toNatural ? to : from;
    INDArray windowed = toNatural ? from : to;
    long n = natural.size(0);
    long c = natural.size(3);
    for (int b = 0; b < kernelW; b++) {
      // Window column b: every kW-th natural column from b on, a run of outW columns in the window order.
      INDArray naturalColumns = view(natural, n, c, outW, kernelW * c, b * c);
      INDArray windowColumns = view(windowed, n, c, outW, c, (long) b * outW * c);
      (toNatural ? naturalColumns : windowColumns).assign(toNatural ? windowColumns : naturalColumns);
    }
    int rest = width - outW * kernelW;
    if (rest > 0) {
      long first = (long) outW * kernelW * c;
      view(to, n, c, rest, c, first).assign(view(from, n, c, rest, c, first));
    }
  }

  /** [n, H, count, C] over a contiguous [n, H, W, C]: columns {@code step/C} apart, from element {@code start}. */
  private INDArray view(INDArray a, long n, long c, long count, long step, long start) {
    return Nd4j.create(a.data(), new long[] {n, height, count, c},
        new long[] {(long) height * width * c, (long) width * c, step, 1}, a.offset() + start, 'c');
  }
}
