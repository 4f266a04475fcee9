package org.dp4j.clipping;

import org.nd4j.linalg.activations.IActivation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.INDArrayIndex;
import org.nd4j.linalg.indexing.NDArrayIndex;

/**
 * One pass of a convolution as im2col + GEMM, with per-example gradient norms and the clipped sum, without DL4J's
 * layer code: forward z = X·Wᵀ + b over the patch matrix X [n·P, K] of {@link ConvolutionPatches}; backward
 * δ = σ'(z) ⊙ ε, the input error by the GEMM δ·W folded back (col2im); per-example weight gradients
 * G_i = δ_iᵀX_i materialised by one batched product when they fit in one chunk (then the clipped sum is the
 * product cᵀ[G_1 … G_n], no second pass over the patches), else their norms chunk by chunk or by the Gram form
 * ({@link PatchGradients}) and the sum as one GEMM (c ⊙ δ)ᵀX (Opacus {@code grad_sample/conv.py}; Rochette et al.
 * 2019). Bias gradients are Σ_p δ_i,p; for float32 (Java im2col) the bias is the weight of one more patch column
 * of ones, so that the forward GEMM adds it and X_iᵀδ_i carries Σ_p δ_i,p as its last row. Shared by every
 * convolution rule (2-D here; 1-D through a reshape, see {@link ConvolutionPatches}). Weights come in DL4J's layout
 * [out, C, kH, kW].
 *
 * <p>Keeps the state of one pass; arrays live in the caller's workspace.
 */
final class UnfoldedConvolution {
  /**
   * Examples per im2col + GEMM of the forward pass and per GEMM + fold of the input error, so that what one writes
   * the other reads back from cache (~1.6 MB of patches for the MNIST CNN's second layer).
   */
  private static final long CHUNK_EXAMPLES = 16;
  private final IActivation activation;    // null: applied by the layer above (see ConvolutionPoolingFusion)
  private final ConvolutionNorms norms;
  private final long chunkElements;
  private final ReusableArrays arrays;
  private ConvolutionPatches geometry;
  private PoolingWindows windows;   // the row order of the patches (null: natural)
  private long n;
  private int[] kernelShape;      // out, C, kH, kW
  private INDArray weights4d;     // DL4J's [out, C, kH, kW]
  private INDArray weightsByPatch; // [out, K], columns (kh, kw, c) as the patches
  private INDArray patches;       // [n·P, K], columns (kh, kw, c), or [n·P, K + 1] with the ones of the bias last
  private boolean hasBias;
  private boolean biasInPatches;  // the bias is the patches' last column's weight (the patch rows are K + 1 long)
  private long rowLength;         // K, or K + 1 with the bias in the patches
  private INDArray preActivation; // [n·P, out]
  private INDArray output;        // σ(z) [n·P, out], null when the activation is deferred
  private INDArray delta;         // [n·P, out]
  private INDArray perExample;    // [n, K·out] (G_iᵀ, patch-major) when materialised in one piece, else null
  private INDArray biasPerExample; // [n, out]

  /**
   * @param activation the layer's activation, or null when the layer above applies it ({@link #forward} then
   *     returns the pre-activation z and {@link #backward} takes dL/dz)
   * @param arrays where the big arrays of each pass are kept (one instance per layer)
   */
  UnfoldedConvolution(IActivation activation, ConvolutionNorms norms, long chunkElements, ReusableArrays arrays) {
    this.activation = activation;
    this.norms = norms;
    this.chunkElements = chunkElements;
    this.arrays = arrays;
  }

  /**
   * @param channelsLast the input as [n, H, W, C] (any view)
   * @param geometry the convolution's geometry for this input size
   * @param weights4d [out, C, kH, kW]
   * @param bias [1, out] or null
   * @return the activations [n·P, out], i.e. channels-last [n, outH, outW, out] in row-major order (the
   *     pre-activation when the activation is deferred); not to be modified by the caller: {@link #backward}
   *     reads them again
   */
  INDArray forward(INDArray channelsLast, ConvolutionPatches geometry, INDArray weights4d, INDArray bias) {
    return forward(channelsLast, geometry, weights4d, bias, null);
  }

  /**
   * As above, with the output positions of each row in the window order of {@code windows} (natural order when
   * null): the activation must then be deferred, and {@link #backward} takes dL/dz in the same order.
   */
  INDArray forward(INDArray channelsLast, ConvolutionPatches geometry, INDArray weights4d, INDArray bias,
      PoolingWindows windows) {
    this.geometry = geometry;
    this.windows = windows;
    this.n = channelsLast.size(0);
    this.weights4d = weights4d;
    this.kernelShape = new int[] {(int) weights4d.size(0), (int) weights4d.size(1), (int) weights4d.size(2),
        (int) weights4d.size(3)};
    DataType type = channelsLast.dataType();
    int out = kernelShape[0];
    weightsByPatch = arrays.get("weightsByPatch", type, out, kernelShape[2], kernelShape[3], kernelShape[1])
        .assign(weights4d.permute(0, 2, 3, 1)).reshape('c', out, geometry.patchSize());
    long positions = geometry.positions();
    long k = geometry.patchSize();
    hasBias = bias != null;
    biasInPatches = hasBias && geometry.unfoldsInJava(type, n, k + 1);
    rowLength = biasInPatches ? k + 1 : k;
    INDArray forwardWeights = weightsByPatch;
    if (biasInPatches) {
      // [W b] against patch rows [x 1]: the GEMM adds the bias, and each example's weight-gradient product X_iᵀδ_i
      // gets its bias gradient Σ_p δ_i,p as one more row, instead of an ND4J row-vector add and a sum over the P
      // positions (measured: the MNIST CNNs' steps 2–4 ms faster in CPU time).
      forwardWeights = arrays.get("weightsWithBias", type, out, k + 1);
      forwardWeights.get(NDArrayIndex.all(), NDArrayIndex.interval(0, k)).assign(weightsByPatch);
      forwardWeights.get(NDArrayIndex.all(), NDArrayIndex.point(k)).assign(bias.reshape(out));
    }
    patches = arrays.get("patches", type, n * positions, rowLength);
    preActivation = arrays.get("preActivation", type, n * positions, out);
    // CHUNK_EXAMPLES examples at a time: the GEMM reads the patches just written while they are still in cache.
    for (long first = 0; first < n; first += CHUNK_EXAMPLES) {
      long count = Math.min(CHUNK_EXAMPLES, n - first);
      INDArrayIndex rows = NDArrayIndex.interval(first * positions, (first + count) * positions);
      INDArray chunk = patches.get(rows, NDArrayIndex.all());
      INDArray examples = channelsLast.get(NDArrayIndex.interval(first, first + count), NDArrayIndex.all(),
          NDArrayIndex.all(), NDArrayIndex.all());
      if (biasInPatches) {
        if (!geometry.unfoldFloats(examples, arrays, windows, chunk)) {
          throw new IllegalStateException("the Java im2col refused patches it was checked to take");
        }
      } else {
        geometry.unfold(examples, arrays, windows, chunk.reshape('c', count, geometry.outputHeight(),
            geometry.outputWidth(), kernelShape[2], kernelShape[3], kernelShape[1]));
      }
      INDArray z = preActivation.get(rows, NDArrayIndex.all());
      Nd4j.gemm(chunk, forwardWeights, z, false, true, 1.0, 0.0);
      if (hasBias && !biasInPatches) {
        z.addiRowVector(bias);
      }
    }
    if (activation == null) {
      output = null;
      return preActivation;
    }
    INDArray a = arrays.get("activation", type, patches.size(0), out).assign(preActivation);
    INDArray activated = activation.getActivation(a, true);
    output = activated == a ? a : a.assign(activated);
    return output;
  }

  /**
   * @param outputError ε [n·P, out] (channels-last rows), or dL/dz when the activation is deferred; may be
   *     overwritten
   * @return the error with respect to the input as a logical NCHW [n, C, H, W] array in a reused buffer — for
   *     float32 a view of a channels-last buffer [n, H, W, C] (folded in Java), else NCHW memory — or null when not
   *     needed
   */
  INDArray backward(INDArray outputError, boolean needInputError) {
    // dL/dz is written over z, which is not needed afterwards.
    delta = activation == null ? outputError
        : ActivationBackprop.dLdz(activation, preActivation, output, outputError);
    preActivation = null;
    output = null;
    if (!needInputError) {
      return null;
    }
    long imageLength = n * geometry.inputHeight() * geometry.inputWidth() * weights4d.size(1);
    if (delta.dataType() == DataType.FLOAT && imageLength < Integer.MAX_VALUE
        && CHUNK_EXAMPLES * geometry.positions() * geometry.patchSize() < Integer.MAX_VALUE) {
      // δ·W with W in the patch column order (kh, kw, c), rows in δ's own order, folded in Java, channels last;
      // CHUNK_EXAMPLES examples at a time, so that the patch gradients are read back from cache, not memory.
      long positions = geometry.positions();
      long k = geometry.patchSize();
      INDArray image = arrays.get("foldChannelsLast", DataType.FLOAT, n, geometry.inputHeight(),
          geometry.inputWidth(), weights4d.size(1));
      INDArray chunk = arrays.get("patchGradients", delta.dataType(), Math.min(n, CHUNK_EXAMPLES) * positions, k);
      for (long first = 0; first < n; first += CHUNK_EXAMPLES) {
        long count = Math.min(CHUNK_EXAMPLES, n - first);
        INDArray rows = delta.get(NDArrayIndex.interval(first * positions, (first + count) * positions),
            NDArrayIndex.all());
        INDArray target = count * positions == chunk.size(0) ? chunk
            : chunk.get(NDArrayIndex.interval(0, count * positions), NDArrayIndex.all());
        Nd4j.gemm(rows, weightsByPatch, target, false, false, 1.0, 0.0);
        geometry.foldChannelsLast(target, count, image, first, windows);
      }
      return image.permute(0, 3, 1, 2);
    }
    INDArray naturalDelta = delta;
    if (windows != null) {
      // col2im reads the patch gradients in the natural order: reorder the (smaller) error first.
      long out = delta.size(1);
      naturalDelta = arrays.get("naturalDelta", delta.dataType(), delta.shape());
      windows.reorder(delta.reshape('c', n, windows.height, windows.width, out),
          naturalDelta.reshape('c', n, windows.height, windows.width, out), true);
    }
    INDArray patchGradients = arrays.get("patchGradients", delta.dataType(), patches.size(0), patches.size(1));
    Nd4j.gemm(naturalDelta, weights4d.reshape('c', kernelShape[0], geometry.patchSize()), patchGradients, false, false,
        1.0, 0.0);
    return geometry.fold(patchGradients, n, arrays);
  }

  /** ‖g_i‖² over the weights and the bias, [n, 1]. */
  INDArray squaredNorms() {
    long positions = geometry.positions();
    long k = rowLength;     // with the bias in the patches, the bias gradient is the products' last row
    long out = kernelShape[0];
    INDArray deltas = delta.reshape('c', n, positions, out);
    INDArray x = patches.reshape('c', n, positions, k);
    boolean gram = norms.useGram(positions, k, out);
    INDArray sq;
    if (!gram && n * out * k <= chunkElements) {
      // G_iᵀ = X_iᵀδ_i: the same products as δ_iᵀX_i, 5–10% faster in OpenBLAS for these thin shapes (measured).
      INDArray g = arrays.get("perExample", delta.dataType(), n, k, out);
      Nd4j.matmul(x, deltas, g, true, false, false);
      perExample = g.reshape('c', n, k * out);
      sq = PatchGradients.rowSquaredNorms(perExample);
    } else {
      perExample = null;
      sq = PatchGradients.squaredNorms(x, deltas, gram, chunkElements);
    }
    if (hasBias && !biasInPatches) {
      biasPerExample = deltas.sum(1);
      sq.addi(PatchGradients.rowSquaredNorms(biasPerExample));
    }
    return sq;
  }

  /**
   * Writes Σ_i scale_i · g_i into the weight-gradient view [out, C, kH, kW] and the bias view (null without bias).
   * {@link #squaredNorms()} must have run.
   */
  void writeScaledSum(INDArray scale, INDArray weightView, INDArray biasView) {
    long out = kernelShape[0];
    long k = geometry.patchSize();
    INDArray sum;    // [out, K] (or [out, K + 1], the bias last) as the patch columns are laid out
    if (perExample != null) {
      INDArray transposed = Nd4j.createUninitialized(delta.dataType(), rowLength, out);
      Nd4j.gemm(scale, perExample, transposed.reshape('c', 1, transposed.length()), true, false, 1.0, 0.0);
      sum = transposed.transpose();
    } else {
      sum = Nd4j.createUninitialized(delta.dataType(), out, rowLength);
      INDArray scaled = delta.reshape('c', n, geometry.positions() * out).mulColumnVector(scale)
          .reshape('c', n * geometry.positions(), out);
      Nd4j.gemm(scaled, patches, sum, true, false, 1.0, 0.0);
    }
    INDArray weightSum = biasInPatches ? sum.get(NDArrayIndex.all(), NDArrayIndex.interval(0, k)) : sum;
    weightView.assign(weightSum.reshape('c', out, kernelShape[2], kernelShape[3], kernelShape[1])
        .permute(0, 3, 1, 2));
    if (biasInPatches) {
      biasView.assign(sum.get(NDArrayIndex.all(), NDArrayIndex.point(k)).reshape(biasView.shape()));
    } else if (hasBias) {
      INDArray biasSum = Nd4j.createUninitialized(delta.dataType(), 1, out);
      Nd4j.gemm(scale, biasPerExample, biasSum, true, false, 1.0, 0.0);
      biasView.assign(biasSum.reshape(biasView.shape()));
    }
  }
}
