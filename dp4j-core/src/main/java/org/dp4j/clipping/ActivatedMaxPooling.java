package org.dp4j.clipping;

import java.nio.ByteOrder;
import java.nio.IntBuffer;
import org.deeplearning4j.nn.conf.CNN2DFormat;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.conf.layers.SubsamplingLayer;
import org.nd4j.linalg.activations.IActivation;
import org.nd4j.linalg.activations.impl.ActivationIdentity;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * The rule of a max-pooling {@code SubsamplingLayer} whose input is the pre-activation z of the convolution below it
 * ({@link ConvolutionPoolingFusion}): it pools z and then applies the convolution's activation σ (ReLU or identity)
 * to the pooled values, so that σ and its derivative touch a quarter of the elements (2×2 pooling) and the
 * convolution's output never leaves its channels-last GEMM layout.
 *
 * <p>Why this equals DL4J's conv → σ → max-pool: σ is non-decreasing, so max_w σ(z) = σ(max_w z) in every window w.
 * The error of a window goes to the first position (row-major kernel order) holding its maximum, as libnd4j's
 * pooling backward sends it ({@link MaxPoolingWithArgmax}). Where max z &gt; 0 the positions holding max σ(z) are
 * exactly those holding max z (ReLU is the identity there), so the first one is the same; where max z ≤ 0 every
 * σ(z) of the window is 0 and DL4J's error, whichever position it reaches, is multiplied by ReLU's derivative 0 there
 * (libnd4j's {@code relu_bp} passes the error only where z &gt; 0), as it is multiplied by 0 here. With identity σ
 * the two orders are the same computation. Values are selected, never computed, so the step is bit-for-bit DL4J's
 * (a pooled 0 may be +0 where DL4J's is −0). This needs every z finite: a NaN or infinite z (checked on every pass)
 * sends the pass through DL4J's order instead: σ on z, then {@link PoolingGradients}.
 *
 * <p>The fast path (float32, windows that tile the input: kernel = stride, no padding, no dilation — the 2×2/2
 * pooling of most CNNs) reads z in the window order of {@link PoolingWindows}, which the convolution's GEMM writes
 * directly: for each output row, the members (a, b) of all its windows are runs of outW·C values at fixed
 * distances, so every step is a long branch-free loop over Java int arrays (the bits of the floats) that the JIT
 * vectorises (a first version looping over the C channels of one window at a time ran 4–6× slower, a second one on
 * float arrays selecting by a float comparison 3.6× slower than the int version on Gaussian z): the maximum by
 * {@code Math.max} on order-preserving ints; the first member holding it by masks in reverse member order; ReLU and
 * its mask from the bits of the maximum. The
 * backward pass writes every position once: the error where the member matches (and, for ReLU, the maximum was
 * positive), else 0 (an and of the bits, so a 0 stays +0 whatever the error). Other configurations take DL4J's
 * order on reused arrays, as exact as before.
 */
final class ActivatedMaxPooling implements ParameterFreeLayer {
  private final SubsamplingLayer conf;
  private final ConvolutionLayer convolution;
  private final IActivation activation;
  private final boolean relu;
  private final boolean channelsLast;
  private final ReusableArrays arrays = new ReusableArrays();
  private final PoolingGradients dl4jOrder;
  private INDArray preActivation;    // z in the layer's layout and natural order (DL4J's order only)
  private PoolingWindows windows;    // the order of z's positions (null: natural)
  private boolean fastPass;          // whether the last forward pass took the fast path
  private boolean viewOutput;        // NCHW output as a view of the channels-last buffer (see handOverChannelsLast)
  private long n;
  // Floats as their bits (see poolFast), in the window order.
  private int[] tile = new int[0];      // the kH input rows of one output row: z (as ordered ints), or dL/dz
  private int[] zeroRow = new int[0];
  private int[] pooled = new int[0];
  private int[] errors = new int[0];
  private int[] rowMax = new int[0];
  private int[] rowMember = new int[0];     // one output row's members, then copied to member
  private int[] rowPooled = new int[0];
  private int[] rowError = new int[0];
  private int[] rowInputError = new int[0];
  private int[][] runs = new int[1][0];     // one output row's window members, each from index 0
  private int[] member = new int[0];        // per output: the window member of its maximum, kH·kW: no error

  /**
   * @param conf a max-pooling layer
   * @param convolution the convolution below it, whose activation (ReLU without options, or identity) this rule
   *     applies after pooling
   */
  ActivatedMaxPooling(SubsamplingLayer conf, ConvolutionLayer convolution) {
    this.conf = conf;
    this.convolution = convolution;
    this.activation = convolution.getActivationFn();
    this.relu = !(activation instanceof ActivationIdentity);
    this.channelsLast = conf.getCnn2dDataFormat() == CNN2DFormat.NHWC;
    this.dl4jOrder = new PoolingGradients(conf);
  }

  /**
   * Whether the fast path of an NCHW layer may return its output as an NCHW-shaped view of its channels-last buffer
   * (for a {@link ConvolutionGradients} above, which reads that memory directly) instead of a copy in NCHW order.
   */
  void handOverChannelsLast(boolean allowed) {
    viewOutput = allowed;
  }

  boolean handsOverChannelsLast() {
    return viewOutput;
  }

  /** Whether the last {@link #forward} took the fast path (tests check that the path they mean to test ran). */
  boolean lastPassWasFast() {
    return fastPass;
  }

  @Override
  public INDArray forward(INDArray z) {
    n = z.size(0);
    INDArray nhwc = channelsLast ? z : z.permute(0, 2, 3, 1);
    windows = PoolingWindows.of(conf, convolution, z.dataType(), (int) nhwc.size(1), (int) nhwc.size(2));
    if (windows != null && !BufferElements.rowMajor(nhwc)) {
      throw new IllegalStateException("the fused convolution must hand over its channels-last output");
    }
    int c = (int) nhwc.size(3);
    fastPass = windows != null && poolFast(nhwc, c);
    if (fastPass) {
      INDArray out = arrays.get("pooledChannelsLast", DataType.FLOAT, n, windows.outH, windows.outW, c);
      ints(out).put((int) out.offset(), pooled, 0, (int) out.length());
      if (channelsLast) {
        return out;
      }
      return viewOutput ? out.permute(0, 3, 1, 2)
          : arrays.get("pooled", DataType.FLOAT, n, c, windows.outH, windows.outW).assign(out.permute(0, 3, 1, 2));
    }
    // DL4J's order: σ on a copy of z (in the natural order), then the pooling rule.
    preActivation = z;
    if (windows != null) {
      INDArray natural = arrays.get("naturalInput", z.dataType(), nhwc.shape());
      windows.reorder(nhwc, natural, true);
      preActivation = channelsLast ? natural : natural.permute(0, 3, 1, 2);
    }
    INDArray activated = arrays.get("activated", z.dataType(), z.shape()).assign(preActivation);
    INDArray a = activation.getActivation(activated, true);
    return dl4jOrder.forward(a == activated ? a : activated.assign(a));
  }

  /**
   * The fast forward pass into {@link #pooled} and {@link #member}; false when some z is not finite.
   *
   * <p>Works on the bits of z as ints, so that every loop is int arithmetic the JIT vectorises (a select on a float
   * comparison is not vectorised by HotSpot's C2 and mispredicts on real data): −0 is first made +0 (float
   * comparison treats them as equal, so DL4J's first member holding the maximum may be either), then every value
   * is mapped to an int of the same order (the bits of a non-negative float are already ordered as ints; those of a
   * negative one are ordered backwards, so its 31 low bits are flipped). The maximum of a window is then the int
   * maximum, a member holds it exactly when its int equals it, and the map is undone on the maxima only.
   */
  private boolean poolFast(INDArray nhwc, int c) {
    int kh = windows.kernelH;
    int kw = windows.kernelW;
    int outputs = (int) n * windows.outH * windows.outW * c;
    int run = windows.outW * c;    // one output row
    int rowLength = windows.width * c;
    int tileLength = kh * rowLength;
    tile = grown(tile, tileLength);
    pooled = grown(pooled, outputs);
    rowMax = grown(rowMax, run);
    rowMember = grown(rowMember, run);
    rowPooled = grown(rowPooled, run);
    if (runs.length != kh * kw || runs[0].length < run) {
      runs = new int[kh * kw][run];
    }
    member = grown(member, Math.max(outputs, run));
    IntBuffer source = ints(nhwc);
    int base = (int) nhwc.offset();
    int[] z = tile;
    int[] max = rowMax;
    int[] at = member;
    int none = kh * kw;
    int notFinite = 0;
    for (int i = 0; i < n; i++) {
      for (int oh = 0; oh < windows.outH; oh++) {
        // The kH input rows of this output row, read straight from the buffer into a tile that stays in cache.
        source.get(base + (i * windows.height + oh * kh) * rowLength, z, 0, tileLength);
        for (int j = 0; j < tileLength; j++) {
          int bits = z[j];
          notFinite |= ((bits & 0x7f800000) ^ 0x7f800000) - 1;    // negative for ±∞ and NaN only
          int minusZero = bits ^ 0x80000000;
          bits &= (minusZero | -minusZero) >> 31;                  // −0 → +0, others unchanged
          z[j] = bits ^ ((bits >> 31) & 0x7fffffff);               // ordered as the floats
        }
        int o = (i * windows.outH + oh) * run;
        // Every loop below indexes all its arrays by the same j: HotSpot's C2 (JDK 17) does not vectorise a loop
        // that reads one array and writes another at different offsets (they might be the same array), so each
        // member's run is first copied to the start of its own array (System.arraycopy is a vectorised copy).
        for (int a = 0; a < kh; a++) {
          for (int b = 0; b < kw; b++) {
            System.arraycopy(z, a * rowLength + b * run, runs[a * kw + b], 0, run);
          }
        }
        System.arraycopy(runs[0], 0, max, 0, run);
        for (int m = 1; m < none; m++) {
          int[] x = runs[m];
          for (int j = 0; j < run; j++) {
            max[j] = Math.max(max[j], x[j]);
          }
        }
        // The first member holding the maximum: selects in reverse order, the last one wins (some member holds it).
        int[] first = rowMember;
        for (int m = none - 1; m >= 0; m--) {
          int[] x = runs[m];
          for (int j = 0; j < run; j++) {
            int differ = x[j] ^ max[j];
            int equal = ~(differ | -differ) >> 31;           // −1 where equal, else 0
            first[j] = (first[j] & ~equal) | (m & equal);
          }
        }
        int[] values = rowPooled;
        for (int j = 0; j < run; j++) {
          int ordered = max[j];
          int bits = ordered ^ ((ordered >> 31) & 0x7fffffff);
          // −1 where the maximum is > 0 (sign clear, not +0): ReLU passes it and its error.
          int pass = relu ? (-bits & ~bits) >> 31 : -1;
          values[j] = bits & pass;
          first[j] = (first[j] & pass) | (none & ~pass);
        }
        System.arraycopy(values, 0, pooled, o, run);
        System.arraycopy(first, 0, at, o, run);
      }
    }
    return notFinite >= 0;
  }

  /** The elements of a float array's buffer as their bits (indices in elements, as for the floats). */
  private static IntBuffer ints(INDArray floats) {
    return floats.data().asNio().order(ByteOrder.nativeOrder()).asIntBuffer();
  }

  private int[] zeros(int length) {
    if (zeroRow.length < length) {
      zeroRow = new int[length];
    }
    return zeroRow;
  }

  private static int[] grown(int[] a, int length) {
    return a.length < length ? new int[length] : a;
  }

  @Override
  public INDArray backward(INDArray outputError, boolean needInputError) {
    if (!needInputError) {
      return null;
    }
    if (!fastPass) {
      INDArray error = activation.backprop(preActivation, dl4jOrder.backward(outputError, true)).getFirst();
      if (windows == null) {
        return error;
      }
      INDArray natural = arrays.get("naturalError", error.dataType(), n, windows.height, windows.width,
          error.size(channelsLast ? 3 : 1)).assign(channelsLast ? error : error.permute(0, 2, 3, 1));
      INDArray windowed = arrays.get("inputError", error.dataType(), natural.shape());
      windows.reorder(natural, windowed, false);
      return channelsLast ? windowed : windowed.permute(0, 3, 1, 2);
    }
    int c = (int) outputError.size(channelsLast ? 3 : 1);
    int run = windows.outW * c;
    int rowLength = windows.width * c;
    INDArray given = channelsLast ? outputError : outputError.permute(0, 2, 3, 1);
    // Read in place when it is contiguous channels-last float memory (a convolution above hands over such a view).
    INDArray e = given.dataType() == DataType.FLOAT && BufferElements.rowMajor(given)
        ? given : arrays.get("errorChannelsLast", DataType.FLOAT, n, windows.outH, windows.outW, c)
            .assign(given.castTo(DataType.FLOAT));
    errors = grown(errors, (int) e.length());
    ints(e).get((int) e.offset(), errors, 0, (int) e.length());
    INDArray inputError = arrays.get("inputError", DataType.FLOAT, n, windows.height, windows.width, c);
    IntBuffer target = ints(inputError);
    int base = (int) inputError.offset();
    int tileLength = windows.kernelH * rowLength;
    int[] d = tile;
    java.util.Arrays.fill(d, 0, tileLength, 0);    // positions of the tile in no window stay 0
    int[] at = member;
    rowError = grown(rowError, run);
    rowMember = grown(rowMember, run);
    rowInputError = grown(rowInputError, run);
    int[] error = rowError;
    int[] first = rowMember;
    int[] out = rowInputError;
    for (int i = 0; i < n; i++) {
      for (int oh = 0; oh < windows.outH; oh++) {
        int o = (i * windows.outH + oh) * run;
        // Same-index loops on copies starting at 0, which the JIT vectorises (see poolFast).
        System.arraycopy(errors, o, error, 0, run);
        System.arraycopy(at, o, first, 0, run);
        for (int a = 0; a < windows.kernelH; a++) {
          for (int b = 0; b < windows.kernelW; b++) {
            int m = a * windows.kernelW + b;
            for (int j = 0; j < run; j++) {
              // All bits of the error where its member is m, else none: (x − 1) >> 31 is −1 only for x = 0.
              out[j] = error[j] & (((first[j] ^ m) - 1) >> 31);
            }
            System.arraycopy(out, 0, d, a * rowLength + b * run, run);
          }
        }
        target.put(base + (i * windows.height + oh * windows.kernelH) * rowLength, d, 0, tileLength);
      }
      for (int h = windows.outH * windows.kernelH; h < windows.height; h++) {    // rows in no window
        target.put(base + (i * windows.height + h) * rowLength, zeros(rowLength), 0, rowLength);
      }
    }
    return channelsLast ? inputError : inputError.permute(0, 3, 1, 2);
  }
}
