package org.dp4j.mbcd;

import static org.dp4j.InvalidSettingException.checkArgument;

import org.deeplearning4j.nn.conf.ConvolutionMode;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.convolution.Convolution;
import org.nd4j.linalg.factory.Nd4j;

/**
 * The shape arithmetic of a 2D sliding window over NCHW feature maps held as flat rows (one example per row,
 * 'c' order c·H·W, as DL4J's CNN↔dense preprocessors flatten them), and the im2col / col2im pair that turns
 * a convolution into W_mat·P(x) and its transpose (Chen &amp; Liu B.2.2; docs/errata.md#dp-mbcd-lifted-updates, #dp-mbcd-convolution). Output size and
 * padding follow DL4J's {@link ConvolutionMode}: Truncate/Strict use the configured padding and
 * ⌊(in + 2p − k)/s⌋ + 1; Same uses ⌈in/s⌉ and the top-left padding ⌊((out − 1)s + k − in)/2⌋ (the rest at the
 * bottom/right). No dilation.
 */
final class ConvolutionGeometry {
  private final int channels;
  private final int height;
  private final int width;
  private final int[] kernel;
  private final int[] stride;
  private final int[] padding;
  private final int[] outSize;
  private final boolean same;

  private ConvolutionGeometry(int channels, int height, int width, int[] kernel, int[] stride,
      int[] padding, int[] outSize, boolean same) {
    this.channels = channels;
    this.height = height;
    this.width = width;
    this.kernel = kernel;
    this.stride = stride;
    this.padding = padding;
    this.outSize = outSize;
    this.same = same;
  }

  /** A window of {@code kernel} sliding by {@code stride} over [channels, height, width] maps. */
  static ConvolutionGeometry of(int channels, int height, int width, int[] kernel, int[] stride,
      int[] padding, ConvolutionMode mode) {
    checkArgument(channels >= 1 && height >= 1 && width >= 1,
        "input maps must be non-empty, were %sx%sx%s", channels, height, width);
    checkArgument(kernel[0] >= 1 && kernel[1] >= 1 && stride[0] >= 1 && stride[1] >= 1,
        "kernel and stride must be >= 1, were %sx%s and %sx%s", kernel[0], kernel[1], stride[0],
        stride[1]);
    checkArgument(mode == ConvolutionMode.Truncate || mode == ConvolutionMode.Strict
            || mode == ConvolutionMode.Same,
        "convolution mode must be Truncate, Strict or Same, was %s", mode);
    int[] in = {height, width};
    int[] out = new int[2];
    int[] pad = new int[2];
    boolean same = mode == ConvolutionMode.Same;
    for (int a = 0; a < 2; a++) {
      if (same) {
        out[a] = (in[a] + stride[a] - 1) / stride[a];
        pad[a] = Math.max(0, ((out[a] - 1) * stride[a] + kernel[a] - in[a]) / 2);
      } else {
        pad[a] = padding[a];
        out[a] = (in[a] + 2 * pad[a] - kernel[a]) / stride[a] + 1;
      }
      checkArgument(out[a] >= 1, "kernel %s does not fit the padded input %s (padding %s)",
          kernel[a], in[a], pad[a]);
    }
    return new ConvolutionGeometry(channels, height, width, kernel.clone(), stride.clone(), pad, out,
        same);
  }

  int channels() {
    return channels;
  }

  /** c·H·W, the width of an input row. */
  int inputSize() {
    return channels * height * width;
  }

  int outHeight() {
    return outSize[0];
  }

  int outWidth() {
    return outSize[1];
  }

  /** L = H_out·W_out, the number of window positions. */
  int positions() {
    return outSize[0] * outSize[1];
  }

  /** K = c·k_h·k_w, the length of one patch. */
  int patchSize() {
    return channels * kernel[0] * kernel[1];
  }

  int kernelHeight() {
    return kernel[0];
  }

  int kernelWidth() {
    return kernel[1];
  }

  /** k_h·k_w. */
  int windowArea() {
    return kernel[0] * kernel[1];
  }

  /**
   * m = ⌈k_h/s_h⌉·⌈k_w/s_w⌉: no input element lies in more than m windows, so ‖P(x)‖_F² ≤ m‖x‖² (the bound often quoted,
   * k_h·k_w, is m at stride 1: docs/errata.md#dp-mbcd-lipschitz-f).
   */
  int coverage() {
    return ceilDiv(kernel[0], stride[0]) * ceilDiv(kernel[1], stride[1]);
  }

  /** im2col of rows [b, c·H·W]: the patches as [b, c, k_h, k_w, H_out, W_out] ('c' order). */
  INDArray columns(INDArray rows) {
    long b = rows.rows();
    INDArray maps = rows.reshape('c', b, channels, height, width);
    INDArray cols = Nd4j.createUninitialized(rows.dataType(),
        new long[] {b, channels, kernel[0], kernel[1], outSize[0], outSize[1]}, 'c');
    Convolution.im2col(maps, kernel[0], kernel[1], stride[0], stride[1], padding[0], padding[1], 1, 1,
        same, cols);
    return cols;
  }

  /** col2im, the transpose of {@link #columns}: sums [b, c, k_h, k_w, H_out, W_out] back into rows [b, c·H·W]. */
  INDArray accumulate(INDArray columns) {
    long b = columns.size(0);
    INDArray maps = Nd4j.create(columns.dataType(), b, channels, height, width);
    Convolution.col2im(columns.dup('c'), maps, stride[0], stride[1], padding[0], padding[1], height,
        width, 1, 1);
    return maps.reshape('c', b, (long) channels * height * width);
  }

  private static int ceilDiv(int a, int b) {
    return (a + b - 1) / b;
  }
}
