package org.dp4j.clipping;

import static org.dp4j.InvalidSettingException.checkArgument;

import java.nio.FloatBuffer;
import java.util.Arrays;
import org.deeplearning4j.nn.conf.ConvolutionMode;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.convolution.Convolution;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.INDArrayIndex;
import org.nd4j.linalg.indexing.NDArrayIndex;

/**
 * The geometry of one 2-D convolution (kernel, stride, dilation, padding, {@link ConvolutionMode}, input and output
 * size, as DL4J's {@code ConvolutionLayer} computes them) and its two layout transforms: {@link #unfold} (im2col)
 * turns a channels-last input [n, H, W, C] into the patch matrix [n·P, K] whose row (i, oh, ow) holds the input
 * window of output position (oh, ow) of example i, in the column order (kh, kw, c), K = kH·kW·C, P = outH·outW;
 * {@link #fold} (col2im) adds patch-shaped gradients back onto the input. A convolution is then one matrix product
 * with the weights reshaped to [out, K] in the same (kh, kw, c) order ({@link UnfoldedConvolution}).
 *
 * <p>Why this layout: copying the kH·kW strided windows of a channels-last input into a row-major buffer moves
 * contiguous runs of C values, and the patch matrix is ready for one large GEMM; ND4J's own {@code im2col} op writing
 * into the (oh, ow)-major order the GEMM needs was 5–10× slower on the MNIST CNNs (measured, float32, one thread).
 *
 * <p>A 1-D convolution over length L is the special case H = L, W = 1, kernel (k, 1) (the way DL4J's
 * {@code Convolution1DLayer} runs it): a 1-D rule reshapes its [n, C, L] input to [n, L, 1, C] and reuses this
 * class and {@link UnfoldedConvolution} unchanged.
 *
 * <pre>{@code
 * // given: INDArray x
 * ConvolutionPatches g = ConvolutionPatches.of(1, 28, 28, new int[] {5, 5}, new int[] {1, 1},
 *     new int[] {1, 1}, new int[] {0, 0}, ConvolutionMode.Truncate);     // 24×24 outputs, K = 25
 * INDArray patches = g.unfold(x.permute(0, 2, 3, 1), new ReusableArrays());  // x: [n, 1, 28, 28] (NCHW)
 * }</pre>
 */
final class ConvolutionPatches {
  private final int channels;
  private final int[] in;
  private final int[] kernel;
  private final int[] stride;
  private final int[] dilation;
  private final int[] padding;    // top, left
  private final int[] out;
  private final int[] padded;     // rows and columns of the zero-padded input the windows read
  private float[] foldRows;       // scratch of foldChannelsLast, allocated on its first call
  private float[] foldSums;
  private float[] foldAligned;
  private float[] unfoldImage;    // scratch of unfoldFloats, allocated on its first call
  private float[] unfoldRows;

  private ConvolutionPatches(int channels, int[] in, int[] kernel, int[] stride, int[] dilation, int[] padding,
      int[] out) {
    this.channels = channels;
    this.in = in;
    this.kernel = kernel;
    this.stride = stride;
    this.dilation = dilation;
    this.padding = padding;
    this.out = out;
    this.padded = new int[2];
    for (int d = 0; d < 2; d++) {
      int extent = (out[d] - 1) * stride[d] + (kernel[d] - 1) * dilation[d] + 1;
      padded[d] = Math.max(extent, padding[d] + in[d]);
    }
  }

  /**
   * The geometry DL4J's {@code ConvolutionLayer} uses: in {@link ConvolutionMode#Same} the output is
   * ⌈in/stride⌉ and the top/left padding is DL4J's (the rest of the padding goes to the bottom/right); otherwise the
   * output is ⌊(in + 2p − (k−1)·d − 1)/s⌋ + 1 with the configured padding p ({@code Strict} also requires the
   * division to be exact, as DL4J does). {@code Causal} is a 1-D mode and is refused.
   */
  static ConvolutionPatches of(int channels, int height, int width, int[] kernel, int[] stride, int[] dilation,
      int[] padding, ConvolutionMode mode) {
    checkArgument(mode != ConvolutionMode.Causal, "ConvolutionMode.Causal is for 1-D convolutions, was given for 2-D");
    int[] in = {height, width};
    int[] out = new int[2];
    int[] pad = new int[2];
    for (int d = 0; d < 2; d++) {
      int effective = (kernel[d] - 1) * dilation[d] + 1;
      if (mode == ConvolutionMode.Same) {
        out[d] = (in[d] + stride[d] - 1) / stride[d];
        // DL4J's ConvolutionUtils.getSameModeTopLeftPadding: the bottom/right side gets the odd one.
        pad[d] = ((out[d] - 1) * stride[d] + effective - in[d]) / 2;
      } else {
        int span = in[d] + 2 * padding[d] - effective;
        checkArgument(span >= 0, "kernel %s (dilation %s) is larger than the padded input %s", kernel[d],
            dilation[d], in[d] + 2 * padding[d]);
        checkArgument(mode != ConvolutionMode.Strict || span % stride[d] == 0,
            "ConvolutionMode.Strict: (input %s + 2·padding %s − kernel extent %s) is not divisible by stride %s",
            in[d], padding[d], effective, stride[d]);
        out[d] = span / stride[d] + 1;
        pad[d] = padding[d];
      }
    }
    return new ConvolutionPatches(channels, in, kernel.clone(), stride.clone(), dilation.clone(), pad, out);
  }

  int outputHeight() {
    return out[0];
  }

  int outputWidth() {
    return out[1];
  }

  /** Top and left padding (in Same mode as DL4J computes it). */
  int[] padding() {
    return padding.clone();
  }

  int inputHeight() {
    return in[0];
  }

  int inputWidth() {
    return in[1];
  }

  /** P, the output positions per example. */
  int positions() {
    return out[0] * out[1];
  }

  /** K = kH·kW·C, the length of one patch. */
  int patchSize() {
    return kernel[0] * kernel[1] * channels;
  }

  /**
   * The patch matrix [n·P, K] (rows (i, oh, ow), columns (kh, kw, c)) of a channels-last input [n, H, W, C], which
   * may be any view, in the buffer "patches" of {@code arrays} (a zero-padded copy of the input goes to
   * "paddedInput" where the convolution pads).
   */
  INDArray unfold(INDArray channelsLast, ReusableArrays arrays) {
    return unfold(channelsLast, arrays, null);
  }

  /**
   * As {@link #unfold(INDArray, ReusableArrays)}, with the rows of each output row in the window order of
   * {@code windows} (natural order when null); the convolution's width dilation must then be 1.
   */
  INDArray unfold(INDArray channelsLast, ReusableArrays arrays, PoolingWindows windows) {
    long n = channelsLast.size(0);
    INDArray columns = arrays.get("patches", channelsLast.dataType(), n, out[0], out[1], kernel[0], kernel[1],
        channels);
    unfold(channelsLast, arrays, windows, columns);
    return columns.reshape('c', n * positions(), patchSize());
  }

  /**
   * As {@link #unfold(INDArray, ReusableArrays, PoolingWindows)}, into {@code columns} [n, outH, outW, kH, kW, C]
   * (contiguous row-major, e.g. some rows of a larger patch matrix).
   */
  void unfold(INDArray channelsLast, ReusableArrays arrays, PoolingWindows windows, INDArray columns) {
    if (!unfoldFloats(channelsLast, arrays, windows, columns)) {
      unfoldByViews(channelsLast, arrays, windows, columns);
    }
  }

  /**
   * {@link #unfold} by ND4J copies of strided views of the (zero-padded, contiguous) input: for double, for width
   * dilation, and for float32 beyond int indexing ({@link #unfoldFloats} does the rest).
   */
  void unfoldByViews(INDArray channelsLast, ReusableArrays arrays, PoolingWindows windows, INDArray columns) {
    long n = channelsLast.size(0);
    INDArray source = channelsLast;
    if (padded[0] != in[0] || padded[1] != in[1] || padding[0] != 0 || padding[1] != 0) {
      // Borders stay zero from pass to pass; only the interior is written.
      source = arrays.getZeroPadded("paddedInput", channelsLast.dataType(), n, padded[0], padded[1], channels);
      source.get(NDArrayIndex.all(), NDArrayIndex.interval(padding[0], padding[0] + in[0]),
          NDArrayIndex.interval(padding[1], padding[1] + in[1]), NDArrayIndex.all()).assign(channelsLast);
    }
    if (dilation[1] == 1) {
      INDArray contiguous = !BufferElements.rowMajor(source)
          ? arrays.get("channelsLastInput", source.dataType(), source.shape()).assign(source) : source;
      INDArray rows = columns.reshape('c', n, out[0], out[1], kernel[0], (long) kernel[1] * channels);
      if (windows == null) {
        copyColumns(contiguous, rows, 0, 0, out[1], 1);
      } else {
        for (int b = 0; b < windows.kernelW; b++) {
          copyColumns(contiguous, rows, b * windows.outW, b, windows.outW, windows.kernelW);
        }
        int tiled = windows.outW * windows.kernelW;
        copyColumns(contiguous, rows, tiled, tiled, out[1] - tiled, 1);
      }
    } else {
      if (windows != null) {
        throw new IllegalStateException("the window order needs a convolution without width dilation");
      }
      for (int kh = 0; kh < kernel[0]; kh++) {
        for (int kw = 0; kw < kernel[1]; kw++) {
          columns.get(NDArrayIndex.all(), NDArrayIndex.all(), NDArrayIndex.all(), NDArrayIndex.point(kh),
              NDArrayIndex.point(kw), NDArrayIndex.all()).assign(source.get(NDArrayIndex.all(), window(0, kh),
              window(1, kw), NDArrayIndex.all()));
        }
      }
    }
  }

  /**
   * {@link #unfold} in Java, for float32 without width dilation when the indices fit an int
   * ({@link #unfoldsInJava}): each example is read row by row into a zero-padded image in a Java array, its patch
   * rows are put together there from the runs of kW·C values of each kernel row, and they are written in one copy
   * (an input whose rows are not contiguous is first copied to a channels-last buffer). No view objects and no
   * strided copies: the DP step of the MNIST ReLU CNN took 38.1–39.4 ms against 42.2–43.8 ms with
   * {@link #unfoldByViews} (minimum CPU time per step, one thread, alternating runs). Scratch arrays live as long
   * as this geometry (one pass).
   *
   * @param columns row-major, n·P rows of K values as in {@link #unfold}, or of K + 1 values whose last is set to 1
   *     (the patch matrix [X 1], for a convolution's bias as one more weight column; see {@link UnfoldedConvolution})
   * @return false, having done nothing, when the input or the output does not qualify
   */
  boolean unfoldFloats(INDArray channelsLast, ReusableArrays arrays, PoolingWindows windows, INDArray columns) {
    int c = channels;
    int k = patchSize();
    int p = positions();
    long n = channelsLast.size(0);
    boolean ones = columns.length() == n * p * (k + 1);
    int rowLength = ones ? k + 1 : k;
    if (!unfoldsInJava(channelsLast.dataType(), n, rowLength) || columns.dataType() != DataType.FLOAT
        || !BufferElements.rowMajor(columns) || columns.data().length() >= Integer.MAX_VALUE
        || columns.length() != n * p * rowLength) {
      return false;
    }
    long[] st = channelsLast.stride();
    int inputRow = in[1] * c;
    boolean rowsContiguous = (c == 1 || st[3] == 1) && (in[1] == 1 || st[2] == c);
    if (!rowsContiguous || channelsLast.data().length() >= Integer.MAX_VALUE) {
      channelsLast = arrays.get("channelsLastInput", DataType.FLOAT, channelsLast.shape()).assign(channelsLast);
      st = channelsLast.stride();
    }
    int paddedRow = padded[1] * c;
    if (unfoldImage == null || unfoldRows.length != p * rowLength) {
      unfoldImage = new float[padded[0] * paddedRow];     // the borders stay zero
      unfoldRows = new float[p * rowLength];
      for (int r = k; ones && r < unfoldRows.length; r += rowLength) {
        unfoldRows[r] = 1f;                                // the ones stay one
      }
    }
    float[] image = unfoldImage;
    float[] rows = unfoldRows;
    // Where in the padded image the window of each patch row starts, rows in the order asked for.
    int[] start = new int[p];
    for (int oh = 0; oh < out[0]; oh++) {
      for (int j = 0; j < out[1]; j++) {
        int ow = windows == null ? j : windows.naturalColumn(j);
        start[oh * out[1] + j] = oh * stride[0] * paddedRow + ow * stride[1] * c;
      }
    }
    int run = kernel[1] * c;
    int rowStep = dilation[0] * paddedRow;
    boolean oneRead = padded[1] == in[1] && (in[0] == 1 || st[1] == inputRow);
    FloatBuffer source = channelsLast.data().asNioFloat();
    FloatBuffer target = columns.data().asNioFloat();
    for (int i = 0; i < n; i++) {
      long example = channelsLast.offset() + i * st[0];
      if (oneRead) {
        source.get((int) example, image, padding[0] * paddedRow, in[0] * inputRow);
      } else {
        for (int h = 0; h < in[0]; h++) {
          source.get((int) (example + h * st[1]), image, (h + padding[0]) * paddedRow + padding[1] * c, inputRow);
        }
      }
      for (int r = 0; r < p; r++) {
        for (int kh = 0, from = start[r], to = r * rowLength; kh < kernel[0]; kh++, from += rowStep, to += run) {
          System.arraycopy(image, from, rows, to, run);
        }
      }
      target.put((int) (columns.offset() + i * p * rowLength), rows, 0, p * rowLength);
    }
    return true;
  }

  /**
   * Whether {@link #unfoldFloats} takes the input of n examples of this type into a row-major patch matrix of
   * n·P rows of {@code rowLength} values: float32, no width dilation, and the patch matrix and the input within int
   * indexing.
   */
  boolean unfoldsInJava(DataType type, long n, long rowLength) {
    return type == DataType.FLOAT && dilation[1] == 1 && n * positions() * rowLength < Integer.MAX_VALUE
        && n * in[0] * in[1] * channels < Integer.MAX_VALUE;
  }

  /**
   * Copies the patches of {@code count} output columns, the first {@code first} and then every {@code step}-th,
   * into output columns {@code to}, {@code to + 1}, … of {@code rows} [n, outH, outW, kH, kW·C]: one copy from a
   * strided rank-5 view of the input (with width dilation 1 a patch row's kW·C values for one kh are contiguous in
   * the channels-last input, and ND4J copies rank-5 views fast, rank-6 ones slowly).
   */
  private void copyColumns(INDArray contiguous, INDArray rows, int to, int first, int count, int step) {
    if (count <= 0) {
      return;
    }
    long n = rows.size(0);
    long rowLength = (long) padded[1] * channels;
    INDArray source = Nd4j.create(contiguous.data(), new long[] {n, out[0], count, kernel[0],
        (long) kernel[1] * channels}, new long[] {padded[0] * rowLength, stride[0] * rowLength,
        (long) step * stride[1] * channels, dilation[0] * rowLength, 1},
        contiguous.offset() + (long) first * stride[1] * channels, 'c');
    INDArray target = count == out[1] ? rows : rows.get(NDArrayIndex.all(), NDArrayIndex.all(),
        NDArrayIndex.interval(to, to + count), NDArrayIndex.all(), NDArrayIndex.all());
    target.assign(source);
  }

  /** Rows (or columns) of the padded input that kernel offset k reads, one per output position. */
  private INDArrayIndex window(int d, int k) {
    int first = k * dilation[d];
    return NDArrayIndex.interval(first, stride[d], first + (out[d] - 1) * stride[d] + 1);
  }

  /**
   * The adjoint of {@link #unfold} in Java, for float32, for {@code count} examples: Σ over the patches that contain
   * each input element of their gradients, written into examples {@code firstExample}, … of the channels-last
   * {@code image} [n, H, W, C] (float32, contiguous; padding positions dropped). Each example's P·K gradients are
   * read in one copy and added, a kernel row's kW·C values at a time, into that example's image kept in cache, which
   * is written back in one copy: against ND4J's {@code col2im} on the permuted view ({@link #fold}) it needs no
   * layout change of its input or output, and it reads the rows in the window order of {@code windows} directly.
   * The sums per input element run over the patches in row order, then kernel order. Its scratch arrays live as
   * long as this geometry (one pass), so the chunks of one pass share them.
   *
   * @param patchGradients [count·P, K], float32, contiguous, columns (kh, kw, c) as in {@link #unfold} (e.g. δ·W for
   *     weights W laid out [out, kH, kW, C]); rows (i, oh, ow) in the natural order, or in the window order of
   *     {@code windows} when not null
   */
  void foldChannelsLast(INDArray patchGradients, long count, INDArray image, long firstExample,
      PoolingWindows windows) {
    int k = patchSize();
    int p = positions();
    int imageSize = in[0] * in[1] * channels;
    long n = count;
    if (foldRows == null) {
      foldRows = new float[p * k];
      foldSums = new float[imageSize];
      foldAligned = new float[imageSize];
    }
    float[] rows = foldRows;                   // one example's patch gradients
    float[] sums = foldSums;                   // its folded image
    float[] aligned = foldAligned;             // one run of gradients at the place it is added to
    // The input element (h0, w0) at the top-left of the window of each row, padding included.
    int[] top = new int[p];
    int[] left = new int[p];
    for (int oh = 0; oh < out[0]; oh++) {
      for (int j = 0; j < out[1]; j++) {
        int ow = windows == null ? j : windows.naturalColumn(j);
        top[oh * out[1] + j] = oh * stride[0] - padding[0];
        left[oh * out[1] + j] = ow * stride[1] - padding[1];
      }
    }
    FloatBuffer source = patchGradients.data().asNioFloat();
    FloatBuffer target = image.data().asNioFloat();
    int c = channels;
    for (int i = 0; i < n; i++) {
      source.get((int) patchGradients.offset() + i * p * k, rows, 0, p * k);
      Arrays.fill(sums, 0, imageSize, 0f);
      for (int r = 0; r < p; r++) {
        for (int kh = 0; kh < kernel[0]; kh++) {
          int h = top[r] + kh * dilation[0];
          if (h < 0 || h >= in[0]) {
            continue;
          }
          if (dilation[1] == 1) {
            // The kernel row's kW·C values are contiguous in the patch row and in the channels-last image: one run
            // (clipped to the image where the window hangs over the padding).
            int first = Math.max(0, -left[r]);
            int last = Math.min(kernel[1], in[1] - left[r]);
            int from = r * k + (kh * kernel[1] + first) * c;
            int to = (h * in[1] + left[r] + first) * c;
            int end = to + (last - first) * c;
            // Copied to the same place of an image-sized array first, so that the sum indexes both arrays alike:
            // C2 does not vectorise a loop over two arrays at different offsets (they might be the same array).
            System.arraycopy(rows, from, aligned, to, end - to);
            for (int e = to; e < end; e++) {
              sums[e] += aligned[e];
            }
            continue;
          }
          for (int kw = 0; kw < kernel[1]; kw++) {
            int w = left[r] + kw * dilation[1];
            if (w < 0 || w >= in[1]) {
              continue;
            }
            int from = r * k + (kh * kernel[1] + kw) * c;
            int to = (h * in[1] + w) * c;
            for (int ch = 0; ch < c; ch++) {
              sums[to + ch] += rows[from + ch];
            }
          }
        }
      }
      target.put((int) (image.offset() + (firstExample + i) * imageSize), sums, 0, imageSize);
    }
  }

  /**
   * The adjoint of {@link #unfold}: Σ over the patches that contain each input element of their gradients, as an
   * NCHW array [n, C, H, W] (padding positions dropped), by ND4J's {@code col2im} (which overwrites its output).
   *
   * @param patchGradients [n·P, K] with columns in DL4J's weight order (c, kh, kw), e.g. δ·W for weights W
   *     [out, C·kH·kW]; rows (i, oh, ow) as in {@link #unfold}
   */
  INDArray fold(INDArray patchGradients, long n, ReusableArrays arrays) {
    // col2im reads [n, C, kH, kW, outH, outW]: a permuted view of the GEMM's output, no copy (a copy to that
    // layout first was twice as slow, measured).
    INDArray columns = patchGradients.reshape('c', n, out[0], out[1], channels, kernel[0], kernel[1])
        .permute(0, 3, 4, 5, 1, 2);
    INDArray image = arrays.get("foldImage", patchGradients.dataType(), n, channels, in[0], in[1]);
    Convolution.col2im(columns, image, stride[0], stride[1], padding[0], padding[1], in[0], in[1], dilation[0],
        dilation[1]);
    return image;
  }
}
