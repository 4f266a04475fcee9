package org.dp4j.clipping;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.layers.BaseOutputLayer;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.FeedForwardLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.nn.params.DefaultParamInitializer;
import org.nd4j.linalg.activations.IActivation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.memory.MemoryWorkspace;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;
import org.nd4j.linalg.lossfunctions.ILossFunction;
import org.nd4j.linalg.ops.transforms.Transforms;

/**
 * The fast path of {@link PerExampleClipper} for a plain stack of {@code DenseLayer}s ending in an
 * {@code OutputLayer} (no dropout, no preprocessors): its own forward and backward pass on buffers allocated
 * once and reused (no DL4J layer objects, no per-layer workspaces), per-example norms by the outer-product
 * identity ‖a_i δ_iᵀ‖_F² = ‖a_i‖²‖δ_i‖², and the clipped sum of each layer as one gemm aᵀ(c ⊙ δ) straight into
 * the target (Goodfellow 2015, "Efficient per-example gradient computations"; Abadi et al. 2016, Alg. 1;
 * Boninsegna's survey; docs/sampling.md#expected-batch-size). No per-example gradient is ever materialised. Only ND4J ops are used, so it runs on any
 * backend. Equal to the generic layer-by-layer path and to {@link ExactPerExampleGradients} to rounding
 * ({@code FusedDenseClipperTest}).
 */
final class FusedDenseClipper {
  private final DataType type;
  private final Dense[] layers;
  private int capacity;

  /** One layer's parameters (views into {@code net.params()}), buffers and state of the current pass. */
  private static final class Dense {
    final INDArray weights;
    final INDArray bias;
    final IActivation activation;
    final ILossFunction loss;
    final long parameterOffset;
    final int nIn;
    final int nOut;
    INDArray preActivationBuffer;
    INDArray outputBuffer;
    INDArray errorBuffer;
    // Views of the first n rows of the buffers and of this layer's slice of the target, kept while n and the
    // target stay the same (creating ND4J views costs more than the small operations on them).
    int viewRows = -1;
    INDArray preActivation;
    INDArray output;
    INDArray error;
    INDArray viewTarget;
    INDArray weightGradient;
    INDArray biasGradient;
    INDArray input;
    INDArray delta;
    INDArray inputSquaredNorms;

    void viewRows(int n) {
      if (n != viewRows) {
        preActivation = rows(preActivationBuffer, n);
        output = outputBuffer == null ? null : rows(outputBuffer, n);
        error = errorBuffer == null ? null : rows(errorBuffer, n);
        viewRows = n;
      }
    }

    void viewTarget(INDArray target) {
      if (target != viewTarget) {
        long weightCount = (long) nIn * nOut;
        weightGradient = target.get(NDArrayIndex.point(0),
            NDArrayIndex.interval(parameterOffset, parameterOffset + weightCount)).reshape('f', nIn, nOut);
        biasGradient = bias == null ? null : target.get(NDArrayIndex.point(0),
            NDArrayIndex.interval(parameterOffset + weightCount, parameterOffset + weightCount + nOut));
        viewTarget = target;
      }
    }

    Dense(Layer layer, long parameterOffset) {
      FeedForwardLayer conf = (FeedForwardLayer) layer.conf().getLayer();
      this.weights = layer.getParam(DefaultParamInitializer.WEIGHT_KEY);
      this.bias = layer.paramTable().get(DefaultParamInitializer.BIAS_KEY);
      this.activation = conf.getActivationFn();
      this.loss = conf instanceof BaseOutputLayer ? ((BaseOutputLayer) conf).getLossFn() : null;
      this.parameterOffset = parameterOffset;
      this.nIn = (int) conf.getNIn();
      this.nOut = (int) conf.getNOut();
    }
  }

  private FusedDenseClipper(DataType type, Dense[] layers) {
    this.type = type;
    this.layers = layers;
  }

  /**
   * The fast path for {@code net} if every layer is a trainable {@code DenseLayer} (the last an
   * {@code OutputLayer}) without dropout, layer normalisation or input preprocessors; empty otherwise (the generic
   * path then applies).
   * The network has already passed {@link LayerRules}.
   */
  static Optional<FusedDenseClipper> forNetwork(MultiLayerNetwork net) {
    int count = net.getnLayers();
    Dense[] dense = new Dense[count];
    long offset = 0;
    for (int i = 0; i < count; i++) {
      Layer layer = net.getLayer(i);
      org.deeplearning4j.nn.conf.layers.Layer conf = layer.conf().getLayer();
      Class<?> expected = i == count - 1 ? OutputLayer.class : DenseLayer.class;
      // A frozen layer's conf() is its inner layer's: check the layer object (frozen layers take the generic path).
      if (conf.getClass() != expected || LayerRules.isFrozen(layer) || conf.getIDropout() != null
          || conf instanceof DenseLayer && ((DenseLayer) conf).hasLayerNorm()
          || net.getLayerWiseConfigurations().getInputPreProcess(i) != null) {
        return Optional.empty();
      }
      dense[i] = new Dense(layer, offset);
      offset += layer.numParams();
    }
    return Optional.of(new FusedDenseClipper(net.params().dataType(), dense));
  }

  /**
   * Writes (or, with {@code accumulate}, adds) Σ_i clip(g_i) into {@code target} and returns the statistics.
   * Features and labels have n ≥ 1 rows and the network's data type.
   */
  ClippedGradientSum clippedSum(INDArray features, INDArray labels, double clipNorm, ClippingMode mode,
      INDArray target, boolean accumulate) {
    return clippedSum(features, labels, 1, clipNorm, mode, target, accumulate);
  }

  /**
   * As {@link #clippedSum(INDArray, INDArray, double, ClippingMode, INDArray, boolean)}, with {@code views} rows per
   * example (augmentation multiplicity, De et al. 2022): rows e·K … e·K + K − 1 are the K views of example e, whose
   * gradient is the mean of its views' gradients, g_e = (1/K) Σ_k a_k δ_kᵀ per layer. That mean is clipped as one
   * example's gradient, so each example still moves the sum by at most C. Its squared norm comes from the views'
   * Gram matrices, ‖Σ_k a_k δ_kᵀ‖_F² = Σ_{k,l} (a_k·a_l)(δ_k·δ_l) (with the bias, a_k·a_l + 1), and the clipped
   * sum is one gemm aᵀ(c' ⊙ δ) with c'_row = c_e / K for each of e's rows. The statistics returned have one norm per
   * example, not per row. With one view this is the per-row path above.
   *
   * <p>Views whose gradients nearly cancel make the Gram sum a difference of large terms, so with several views the
   * norms and the clipped sum are computed in double precision, and each norm is clipped at an upper bound that adds
   * the sum's worst-case rounding error (never below the exact norm): a float32 Gram sum could come out far too
   * small, even negative, and the scaled views' float32 sum could then exceed C by its rounding error.
   */
  ClippedGradientSum clippedSum(INDArray features, INDArray labels, int views, double clipNorm, ClippingMode mode,
      INDArray target, boolean accumulate) {
    int n = (int) features.size(0);
    int examples = n / views;
    ensureCapacity(n);
    for (Dense d : layers) {
      d.viewRows(n);
      d.viewTarget(target);
    }
    forward(features, n);
    backward(labels, n);
    List<INDArray> squaredNorms = new ArrayList<>(layers.length);
    if (views == 1) {
      for (Dense d : layers) {
        squaredNorms.add(rowSquaredNorms(d.delta).muli(d.inputSquaredNorms));
      }
      ClipFactors factors = ClipFactors.compute(squaredNorms, n, type, mode, clipNorm);
      for (int l = 0; l < layers.length; l++) {
        writeScaledSum(layers[l], factors.scale(l), accumulate);
      }
      return factors.result(target, clipNorm, mode);
    }
    INDArray[] inputs = new INDArray[layers.length];
    INDArray[] deltas = new INDArray[layers.length];
    for (int l = 0; l < layers.length; l++) {
      inputs[l] = freshDouble(layers[l].input);
      deltas[l] = freshDouble(layers[l].delta);
      squaredNorms.add(groupSquaredNormBounds(inputs[l], deltas[l], layers[l].bias != null, views, examples));
    }
    ClipFactors factors = ClipFactors.compute(squaredNorms, examples, type, mode, clipNorm);
    for (int l = 0; l < layers.length; l++) {
      writeScaledSumOfViews(layers[l], inputs[l], deltas[l], rowScales(factors.scale(l), views, examples),
          accumulate);
    }
    return factors.result(target, clipNorm, mode);
  }

  /** A new row-major double copy (views of the buffers, or of the caller's features, are not reshaped in place). */
  private static INDArray freshDouble(INDArray m) {
    return Nd4j.create(DataType.DOUBLE, m.shape(), 'c').assign(m);
  }

  /**
   * An upper bound on ‖Σ_k a_k δ_kᵀ‖_F² / K² for each example's K rows, as a column [examples, 1] of the network's
   * type. The Gram sum T = Σ_{k,l} (a_k·a_l)(δ_k·δ_l) is computed in double; its rounding error is at most
   * (nIn + nOut + K² + 8)·u·S with u = 2⁻⁵³ and S = (Σ_k ‖a_k‖‖δ_k‖)² ≥ Σ_{k,l} |a_k·a_l||δ_k·δ_l| (Cauchy–Schwarz;
   * Higham 2002, Sec. 3.1, for the dot products). Twice that is added to max(T, 0).
   */
  private INDArray groupSquaredNormBounds(INDArray a, INDArray delta, boolean bias, int views, int examples) {
    INDArray total = Nd4j.zeros(DataType.DOUBLE, examples, 1);
    INDArray scale = Nd4j.zeros(DataType.DOUBLE, examples, 1);
    for (int k = 0; k < views; k++) {
      INDArray inputSq = rowSquaredNorms(viewRows(a, k, views));
      if (bias) {
        inputSq.addi(1.0);
      }
      INDArray diagonal = inputSq.muli(rowSquaredNorms(viewRows(delta, k, views)));   // ‖a_k‖²‖δ_k‖², the k = l term
      total.addi(diagonal);
      scale.addi(Transforms.sqrt(diagonal, true));
      for (int l = k + 1; l < views; l++) {
        INDArray inputDots = rowDots(viewRows(a, k, views), viewRows(a, l, views));
        if (bias) {
          inputDots.addi(1.0);
        }
        total.addi(inputDots.muli(rowDots(viewRows(delta, k, views), viewRows(delta, l, views))).muli(2.0));
      }
    }
    double gamma = 2.0 * (a.size(1) + delta.size(1) + (long) views * views + 8) * 0x1p-53;
    INDArray bound = Transforms.max(total, 0.0, false).addi(scale.muli(scale).muli(gamma));
    // Divided by K², then (for a narrower type) rounded up by more than the cast can round it down.
    bound.divi((double) views * views);
    return type == DataType.DOUBLE ? bound : bound.muli(1 + 0x1p-20).castTo(type);
  }

  /**
   * Rows k, k + K, k + 2K, … (the k-th view of every example) of a row-major array, as a view of [m, K, d]. (A
   * strided row interval is refused by ND4J 1.0.0-M2.1's {@code get} for some sizes, e.g. rows 1 and 3 of four.)
   */
  private static INDArray viewRows(INDArray m, int k, int views) {
    return m.reshape('c', m.size(0) / views, views, m.size(1))
        .get(NDArrayIndex.all(), NDArrayIndex.point(k), NDArrayIndex.all());
  }

  /** a_i·b_i per row, as a column. */
  private static INDArray rowDots(INDArray a, INDArray b) {
    return a.mul(b).sum(1).reshape(a.size(0), 1);
  }

  /** Σ_rows c'_row a_row δ_rowᵀ (and Σ c'_row δ_row for the bias) in double, written or added into the target. */
  private static void writeScaledSumOfViews(Dense d, INDArray input, INDArray delta, INDArray rowScale,
      boolean accumulate) {
    INDArray scaledDelta = delta.muliColumnVector(rowScale);
    INDArray weights = Nd4j.create(DataType.DOUBLE, new long[] {d.nIn, d.nOut}, 'f');
    Nd4j.gemm(input, scaledDelta, weights, true, false, 1.0, 0.0);
    addOrAssign(d.weightGradient, weights, accumulate);
    if (d.bias != null) {
      addOrAssign(d.biasGradient, scaledDelta.sum(0), accumulate);
    }
  }

  private static void addOrAssign(INDArray target, INDArray value, boolean accumulate) {
    INDArray cast = value.castTo(target.dataType()).reshape(target.shape());
    if (accumulate) {
      target.addi(cast);
    } else {
      target.assign(cast);
    }
  }

  /** Each example's factor c_e / K, repeated for its K rows: a column [examples·K, 1] in double. */
  private static INDArray rowScales(INDArray scale, int views, int examples) {
    return Nd4j.zeros(DataType.DOUBLE, examples, views).addiColumnVector(scale.castTo(DataType.DOUBLE))
        .divi((double) views)
        .reshape('c', (long) examples * views, 1);
  }

  private void forward(INDArray features, int n) {
    INDArray input = features;
    for (Dense d : layers) {
      d.input = input;
      INDArray inputSq = rowSquaredNorms(input);
      d.inputSquaredNorms = d.bias == null ? inputSq : inputSq.addi(1.0);
      INDArray z = d.preActivation;
      Nd4j.gemm(input, d.weights, z, false, false, 1.0, 0.0);
      if (d.bias != null) {
        z.addiRowVector(d.bias);
      }
      if (d.loss == null) {
        INDArray a = d.output.assign(z);
        INDArray activated = d.activation.getActivation(a, true);
        input = activated == a ? a : a.assign(activated);
      }
    }
  }

  private void backward(INDArray labels, int n) {
    Dense last = layers[layers.length - 1];
    // One row per example: the gradient of each example's own loss, not the batch mean.
    last.delta = last.loss.computeGradient(labels, last.preActivation, last.activation, null);
    for (int l = layers.length - 2; l >= 0; l--) {
      Dense d = layers[l];
      Dense next = layers[l + 1];
      Nd4j.gemm(next.delta, next.weights, d.error, false, true, 1.0, 0.0);
      // dL/dz is written over z, which is not needed afterwards.
      d.delta = ActivationBackprop.dLdz(d.activation, d.preActivation, d.output, d.error);
    }
  }

  /** ‖row_i‖² as a column [n, 1], by a reduction (no temporary of the matrix' size). */
  private static INDArray rowSquaredNorms(INDArray m) {
    INDArray norms = m.norm2(1);
    return norms.muli(norms).reshape(m.size(0), 1);
  }

  /** Σ_i c_i a_i δ_iᵀ = aᵀ(c ⊙ δ) into the weight view, Σ_i c_i δ_i into the bias view. */
  private static void writeScaledSum(Dense d, INDArray scale, boolean accumulate) {
    // δ is not needed after this layer's sum (norms are done), so it is scaled in place.
    INDArray scaledDelta = d.delta.muliColumnVector(scale);
    Nd4j.gemm(d.input, scaledDelta, d.weightGradient, true, false, 1.0, accumulate ? 1.0 : 0.0);
    if (d.bias != null) {
      INDArray biasSum = scaledDelta.sum(0);
      if (accumulate) {
        d.biasGradient.addi(biasSum);
      } else {
        d.biasGradient.assign(biasSum);
      }
    }
  }

  private void ensureCapacity(int n) {
    if (n <= capacity) {
      return;
    }
    // Grown rarely (Poisson batch sizes vary around their mean), always outside any open workspace.
    capacity = Math.max(n, capacity + capacity / 4);
    for (Dense d : layers) {
      d.viewRows = -1;
    }
    try (MemoryWorkspace ignored = Nd4j.getWorkspaceManager().scopeOutOfWorkspaces()) {
      for (Dense d : layers) {
        d.preActivationBuffer = Nd4j.create(type, capacity, d.nOut);
        if (d.loss == null) {
          d.outputBuffer = Nd4j.create(type, capacity, d.nOut);
          d.errorBuffer = Nd4j.create(type, capacity, d.nOut);
        }
      }
    }
  }

  /** The first n rows of a row-major buffer: a contiguous view, so gemm writes into it directly. */
  private static INDArray rows(INDArray buffer, int n) {
    return buffer.get(NDArrayIndex.interval(0, n), NDArrayIndex.all());
  }
}
