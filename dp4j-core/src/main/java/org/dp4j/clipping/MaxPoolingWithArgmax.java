package org.dp4j.clipping;

import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * Where each maximum of a 2-D max pooling came from, so that the backward pass is a scatter of the output error to
 * those positions instead of a second search of every window (ND4J's {@code maxpool2d_bp}, which DL4J's
 * {@code SubsamplingLayer} calls, searches again). The forward values come from ND4J's own {@code maxpool2d}
 * (except in the flat 2×2 stride-1 search, {@link #poolFlat}, which selects them itself); the position of output
 * o is the first input position of its window, in row-major order of the kernel offsets and inside the input
 * (padding takes no part), whose value equals o. That is where libnd4j's search
 * ({@code ConvolutionUtils::pooling2dBP}) sends the error: it starts from the most negative finite value of the type
 * and moves only on a strictly larger value, so it stops on the first occurrence of the maximum; when nothing
 * exceeds its start (a window of NaN or −∞) it keeps the window's first position, as here. Errors of overlapping
 * windows are added in the order of the output positions, as libnd4j does. {@code MaxPoolingWithArgmaxTest} checks
 * the input error against DL4J's layer, ties and padding included.
 *
 * <p>Arrays are logical NCHW [n, C, H, W] of any strides (a channels-last buffer is seen through a permutation); the
 * input error is laid out channels last when the input is (its channel stride is 1), else channels first, in a
 * buffer reused from pass to pass. The search is a sweep per kernel offset with a select per position (no branch on
 * the data): a branchy search for the maximum in Java was 2–4× slower than ND4J's op followed by this sweep
 * (measured, float32, the MNIST CNN's first pooling layer).
 */
final class MaxPoolingWithArgmax {
  private final int[] kernel;
  private final int[] stride;
  private final int[] dilation;
  private final ReusableArrays arrays;
  private int[] argmax = new int[0];    // per output element (loop order), ih·W + iw in its (example, channel) plane
  private long[] inputShape;
  private boolean channelsLast;
  private double[] maxima = new double[0];    // the outputs of one (example, channel) plane
  private boolean flat;                       // whether the last locate took the flat 2×2 stride-1 path
  private float[] flatInput = new float[0];
  private float[] flatOutput = new float[0];
  private int[] firstOfFour = new int[0];

  MaxPoolingWithArgmax(int[] kernel, int[] stride, int[] dilation, ReusableArrays arrays) {
    this.kernel = kernel.clone();
    this.stride = stride.clone();
    this.dilation = dilation.clone();
    this.arrays = arrays;
  }

  /**
   * The flat 2×2 stride-1 search ({@link #locateFlat}) computing the pooled values itself, in place of ND4J's
   * {@code maxpool2d}: each output is the maximum of its window's four floats, selected, never computed (a pooled
   * 0 may be +0 where ND4J's is −0). False, with nothing written, when the pooling is not of that kind or a window
   * holds a NaN: ND4J's op and {@link #locate} then run.
   *
   * @param in logical NCHW [n, C, H, W]
   * @param out logical NCHW [n, C, outH, outW], written when true is returned
   * @param padding top and left padding of this pooling (as DL4J computes it)
   */
  boolean poolFlat(INDArray in, INDArray out, int[] padding) {
    int n = (int) in.size(0);
    int c = (int) in.size(1);
    boolean channelsLastInput = c > 1 && in.stride(1) == 1;
    flat = kernel[0] == 2 && kernel[1] == 2 && stride[0] == 1 && stride[1] == 1 && dilation[0] == 1
        && dilation[1] == 1 && padding[0] == 0 && padding[1] == 0 && in.dataType() == DataType.FLOAT
        && out.dataType() == DataType.FLOAT && !channelsLastInput && BufferElements.rowMajor(in)
        && BufferElements.rowMajor(out)
        && (long) n * c * in.size(2) * in.size(3) < Integer.MAX_VALUE;
    if (!flat) {
      return false;
    }
    inputShape = in.shape();
    channelsLast = false;
    int outputs = (int) out.length();
    if (argmax.length < outputs) {
      argmax = new int[outputs];
    }
    flat = locateFlat(in, out);
    return flat;
  }

  /**
   * Finds and keeps the position of each maximum by the general sweep.
   *
   * @param in logical NCHW [n, C, H, W], float or double ({@link BufferElements#supports})
   * @param out ND4J's max pooling of {@code in}, logical NCHW [n, C, outH, outW]
   * @param padding top and left padding of this pooling (as DL4J computes it)
   */
  void locate(INDArray in, INDArray out, int[] padding) {
    inputShape = in.shape();
    int n = (int) in.size(0);
    int c = (int) in.size(1);
    int outH = (int) out.size(2);
    int outW = (int) out.size(3);
    channelsLast = c > 1 && in.stride(1) == 1;
    if (argmax.length < n * c * outH * outW) {
      argmax = new int[n * c * outH * outW];
    }
    flat = false;
    Window window = new Window(BufferElements.of(in), padding, (int) in.size(2), (int) in.size(3),
        (int) in.stride(2), (int) in.stride(3));
    BufferElements y = BufferElements.of(out);
    long[] xs = in.stride();
    long[] ys = out.stride();
    int planeOutputs = outH * outW;
    if (maxima.length < planeOutputs) {
      maxima = new double[planeOutputs];
    }
    for (int i = 0; i < n; i++) {
      for (int ch = 0; ch < c; ch++) {
        int plane = (int) (i * xs[0] + ch * xs[1]);
        int outPlane = (int) (i * ys[0] + ch * ys[1]);
        for (int oh = 0; oh < outH; oh++) {
          for (int ow = 0; ow < outW; ow++) {
            maxima[oh * outW + ow] = y.get(outPlane + (int) (oh * ys[2] + ow * ys[3]));
          }
        }
        window.locatePlane(plane, maxima, argmax, (i * c + ch) * planeOutputs, outH, outW);
      }
    }
  }

  /** Whether the last {@link #locate} took the flat 2×2 stride-1 path (tests check that the path they test ran). */
  boolean lastLocateWasFlat() {
    return flat;
  }

  /**
   * 2×2 windows, stride 1, no padding or dilation, float32, contiguous NCHW: the windows start at every position j
   * of the flat input (those that wrap a row or a plane are computed and never read), so the search is one long
   * branch-free loop over a Java copy of the input that the JIT vectorises: the maximum of x[j], x[j+1], x[j+W],
   * x[j+W+1] by {@code Math.max}, and the first of the four (row-major) equal to it, which is written to
   * {@code out}. False, with {@code out} not written, when a window holds a NaN.
   */
  private boolean locateFlat(INDArray in, INDArray out) {
    int height = (int) in.size(2);
    int width = (int) in.size(3);
    int planes = (int) (in.size(0) * in.size(1));
    int total = planes * height * width;
    int outH = (int) out.size(2);
    int outW = (int) out.size(3);
    if (flatInput.length < total) {
      flatInput = new float[total];
      firstOfFour = new int[total];
    }
    if (flatOutput.length < planes * outH * outW) {
      flatOutput = new float[planes * outH * outW];
    }
    float[] x = flatInput;
    float[] y = flatOutput;
    int[] first = firstOfFour;
    in.data().asNioFloat().get((int) in.offset(), x, 0, total);
    int starts = total - width - 1;
    for (int j = 0; j < starts; j++) {
      float a = x[j];
      float b = x[j + 1];
      float c = x[j + width];
      float d = x[j + width + 1];
      float m = Math.max(Math.max(a, b), Math.max(c, d));
      int notA = a != m ? 1 : 0;
      int notB = b != m ? 1 : 0;
      int notC = c != m ? 1 : 0;
      // 0, 1, 2 or 3: (0,0), (0,1), (1,0), (1,1); 4 for a window with a NaN (Math.max gives NaN).
      first[j] = Float.isNaN(m) ? 4 : notA * (1 + notB * (1 + notC));
    }
    int o = 0;
    for (int p = 0; p < planes; p++) {
      for (int oh = 0; oh < outH; oh++) {
        int j = (p * height + oh) * width;
        for (int ow = 0; ow < outW; ow++, j++, o++) {
          int k = first[j];
          if (k == 4) {
            return false;
          }
          // Arithmetic on k rather than a chain of selects: k is unpredictable, branches on it cost more than the search.
          int at = (k >> 1) * width + (k & 1);
          y[o] = x[j + at];    // the first member holding the maximum (the first loop stores no float: it vectorises)
          argmax[o] = oh * width + ow + at;
        }
      }
    }
    out.data().asNioFloat().put((int) out.offset(), y, 0, planes * outH * outW);
    return true;
  }

  /**
   * @param outputError logical NCHW [n, C, outH, outW], any strides
   * @return the error with respect to the input of the last {@link #locate}, logical NCHW [n, C, H, W]
   */
  INDArray backward(INDArray outputError) {
    INDArray inputError = logicalView("scatteredError", outputError, inputShape[2], inputShape[3]);
    if (flat && outputError.dataType() == DataType.FLOAT && BufferElements.rowMajor(outputError)) {
      return scatterFlat(outputError, inputError);
    }
    inputError.assign(0);
    BufferElements e = BufferElements.of(outputError);
    BufferElements g = BufferElements.of(inputError);
    long[] es = outputError.stride();
    long[] gs = inputError.stride();
    int n = (int) outputError.size(0);
    int c = (int) outputError.size(1);
    int outH = (int) outputError.size(2);
    int outW = (int) outputError.size(3);
    int w = (int) inputShape[3];
    int j = 0;
    for (int i = 0; i < n; i++) {
      for (int ch = 0; ch < c; ch++) {
        int errorPlane = (int) (i * es[0] + ch * es[1]);
        int plane = (int) (i * gs[0] + ch * gs[1]);
        for (int oh = 0; oh < outH; oh++) {
          for (int ow = 0; ow < outW; ow++) {
            int at = argmax[j++];
            if (at >= 0) {
              int target = plane + (int) ((at / w) * gs[2] + (at % w) * gs[3]);
              g.set(target, g.get(target) + e.get(errorPlane + (int) (oh * es[2] + ow * es[3])));
            }
          }
        }
      }
    }
    return inputError;
  }

  /**
   * The backward pass after {@link #locateFlat}: the same sums in the same order (output positions in loop order),
   * on Java arrays (float additions, as libnd4j's), into the contiguous NCHW {@code inputError}.
   */
  private INDArray scatterFlat(INDArray outputError, INDArray inputError) {
    int planeSize = (int) (inputShape[2] * inputShape[3]);
    int total = (int) (inputShape[0] * inputShape[1]) * planeSize;
    int outputs = (int) outputError.length();
    int planeOutputs = (int) (outputError.size(2) * outputError.size(3));
    float[] g = flatInput;    // the search's copy of the input is no longer needed
    float[] e = flatOutput;
    java.util.Arrays.fill(g, 0, total, 0f);
    outputError.data().asNioFloat().get((int) outputError.offset(), e, 0, outputs);
    for (int o = 0, plane = 0; o < outputs; plane += planeSize) {
      for (int q = 0; q < planeOutputs; q++, o++) {
        g[plane + argmax[o]] += e[o];
      }
    }
    inputError.data().asNioFloat().put((int) inputError.offset(), g, 0, total);
    return inputError;
  }

  /** The window search of one input: positions are ih·W + iw within an (example, channel) plane. */
  private final class Window {
    private final BufferElements x;
    private final int padTop;
    private final int padLeft;
    private final int height;
    private final int width;
    private final int rowStride;
    private final int columnStride;
    private final double lowest;
    private final int kernelH = kernel[0];
    private final int kernelW = kernel[1];
    private final int strideH = stride[0];
    private final int strideW = stride[1];
    private final int dilationH = dilation[0];
    private final int dilationW = dilation[1];

    Window(BufferElements x, int[] padding, int height, int width, int rowStride, int columnStride) {
      this.x = x;
      this.padTop = padding[0];
      this.padLeft = padding[1];
      this.height = height;
      this.width = width;
      this.rowStride = rowStride;
      this.columnStride = columnStride;
      this.lowest = -x.largest();
    }

    /**
     * The positions of one plane's maxima into {@code at[from …]}, one output row at a time: a sweep per kernel
     * offset, backwards, selecting the offset wherever the value equals the maximum (no branch on the data); the
     * rare windows without a match above the search's start go through {@link #first}.
     */
    void locatePlane(int plane, double[] max, int[] at, int from, int outH, int outW) {
      java.util.Arrays.fill(at, from, from + outH * outW, -1);
      for (int kh = kernelH - 1; kh >= 0; kh--) {
        for (int kw = kernelW - 1; kw >= 0; kw--) {
          for (int oh = 0; oh < outH; oh++) {
            int ih = oh * strideH - padTop + kh * dilationH;
            if (ih < 0 || ih >= height) {
              continue;
            }
            int row = from + oh * outW;
            for (int ow = 0; ow < outW; ow++) {
              int iw = ow * strideW - padLeft + kw * dilationW;
              if (iw >= 0 && iw < width) {
                boolean hit = x.get(plane + ih * rowStride + iw * columnStride) == max[oh * outW + ow];
                at[row + ow] = hit ? ih * width + iw : at[row + ow];
              }
            }
          }
        }
      }
      for (int o = 0; o < outH * outW; o++) {
        if (at[from + o] < 0 || !(max[o] > lowest)) {
          at[from + o] = first(plane, o / outW, o % outW, max[o]);
        }
      }
    }

    /**
     * The first position of window (oh, ow) holding {@code max}, the window's first position when the maximum did
     * not exceed the start of libnd4j's search, or −1 for a window wholly in the padding. Scans backwards so that
     * the last select is the first match.
     */
    int first(int plane, int oh, int ow, double max) {
      int top = oh * strideH - padTop;
      int left = ow * strideW - padLeft;
      int at = -1;
      int start = -1;
      for (int kh = kernelH - 1; kh >= 0; kh--) {
        int ih = top + kh * dilationH;
        if (ih < 0 || ih >= height) {
          continue;
        }
        for (int kw = kernelW - 1; kw >= 0; kw--) {
          int iw = left + kw * dilationW;
          if (iw < 0 || iw >= width) {
            continue;
          }
          int position = ih * width + iw;
          start = position;
          at = x.get(plane + ih * rowStride + iw * columnStride) == max ? position : at;
        }
      }
      return max > lowest && at >= 0 ? at : start;
    }
  }

  /** A reused buffer seen as logical NCHW [n, C, height, width], laid out as {@link #channelsLast} says. */
  private INDArray logicalView(String name, INDArray like, long height, long width) {
    long n = like.size(0);
    long c = like.size(1);
    return channelsLast
        ? arrays.get(name, like.dataType(), n, height, width, c).permute(0, 3, 1, 2)
        : arrays.get(name, like.dataType(), n, c, height, width);
  }
}
