package org.dp4j.clipping;

import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.api.MaskState;
import org.deeplearning4j.nn.conf.InputPreProcessor;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.memory.MemoryWorkspace;
import org.nd4j.linalg.api.memory.conf.WorkspaceConfiguration;
import org.nd4j.linalg.api.memory.enums.AllocationPolicy;
import org.nd4j.linalg.api.memory.enums.LearningPolicy;
import org.nd4j.linalg.api.memory.enums.ResetPolicy;
import org.nd4j.linalg.api.memory.enums.SpillPolicy;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;
import org.nd4j.common.primitives.Pair;

/**
 * Vectorised per-example clipping for a DL4J {@link MultiLayerNetwork}: one forward pass, one backward pass of
 * per-example errors δ, per-example gradient norms without materialising dense per-example gradients, and the
 * clipped sum Σ_i g_i·min(1, C/‖g_i‖) (Abadi et al. 2016, Alg. 1; docs/sampling.md#expected-batch-size) — all in batched matrix
 * operations, with no loop over examples.
 *
 * <p>Vectorised layers: {@code DenseLayer} (with or without {@code hasLayerNorm}), {@code OutputLayer} (any loss),
 * {@code LossLayer} (any loss), {@code ConvolutionLayer} (2D, NCHW or NHWC), {@code Convolution1DLayer},
 * {@code Convolution3D}, {@code DepthwiseConvolution2D}, {@code SeparableConvolution2D}, {@code Deconvolution2D},
 * {@code EmbeddingLayer}, {@code EmbeddingSequenceLayer}, {@code PReLULayer}, the parameter-free layers
 * ({@code SubsamplingLayer} 1D/2D/3D, {@code GlobalPoolingLayer}, {@code ActivationLayer}, {@code DropoutLayer},
 * {@code LocalResponseNormalization}, upsampling, zero-padding and cropping layers, {@code SpaceToDepthLayer}), the
 * CNN↔dense input preprocessors, and frozen layers ({@code FrozenLayer}, {@code FrozenLayerWithBackprop}: forward
 * only, no part in norms or sums, see {@link FrozenLayers}). A rule registered with {@link LayerRuleRegistry} comes
 * first; any other layer that keeps examples independent (recurrent, attention, wrappers, ...) takes the generic
 * exact path, DL4J's own backprop one example at a time (slower; {@link PrivacyValidator} lists the path of every
 * layer). {@link GraphPerExampleClipper} applies the same layer rules to a {@code ComputationGraph}. Layers that mix
 * examples (notably {@code BatchNormalization}) are refused when the clipper is built, with a message naming the
 * layer. The clipped sum does not include L1/L2 regularisation (DL4J adds it in the updater; it does not depend on
 * the data). Convolution and subsampling layers run dp4j's own im2col + GEMM code and DL4J's pooling ops on arrays
 * reused from step to step ({@code ConvolutionGradients}, {@code PoolingGradients}), not DL4J's layer code.
 *
 * <pre>{@code
 * // given: MultiLayerNetwork net; DataSet batch
 * PerExampleClipper clipper = PerExampleClipper.of(net);              // flat clipping
 * ClippedGradientSum s = clipper.clippedSum(batch.getFeatures(), batch.getLabels(), 1.0);
 * INDArray sum = s.sum();            // [1, net.numParams()], layout of net.params()
 * int clipped = s.clippedCount();
 * }</pre>
 *
 * <p>Not thread-safe: an instance keeps the state of one pass. {@link ExactPerExampleGradients} is the slow,
 * one-example-at-a-time reference used by the tests.
 */
public final class PerExampleClipper {
  private static final String WORKSPACE_ID = "DP4J_PER_EXAMPLE_CLIPPING";
  /** Learns its size on the first pass and is reused afterwards (like DL4J's own training workspaces). */
  static final WorkspaceConfiguration WORKSPACE = WorkspaceConfiguration.builder()
      .policyAllocation(AllocationPolicy.STRICT).policyLearning(LearningPolicy.FIRST_LOOP)
      .policyReset(ResetPolicy.BLOCK_LEFT).policySpill(SpillPolicy.REALLOCATE).build();

  private final MultiLayerNetwork net;
  private final ClippingMode mode;
  private final List<PerExampleLayer> layers;
  private final int parameterisedLayers;
  private final int lowestTrainable;
  private final Optional<FusedDenseClipper> fused;
  private INDArray saved;     // the target of addClippedSum while the generic pass runs

  private PerExampleClipper(MultiLayerNetwork net, ClippingMode mode, List<PerExampleLayer> layers,
      Optional<FusedDenseClipper> fused) {
    this.net = net;
    this.mode = mode;
    this.layers = layers;
    this.fused = fused;
    this.parameterisedLayers = (int) layers.stream().filter(PerExampleLayer::hasParams).count();
    int lowest = 0;
    while (!layers.get(lowest).hasParams()) {
      lowest++;
    }
    this.lowestTrainable = lowest;
  }

  /** Flat clipping ({@link ClippingMode#FLAT}). */
  public static PerExampleClipper of(MultiLayerNetwork net) {
    return of(net, ClippingMode.FLAT);
  }

  /**
   * Validates every layer and preprocessor of an initialised network.
   *
   * @throws IllegalArgumentException naming the first layer whose per-example gradient is not supported
   */
  public static PerExampleClipper of(MultiLayerNetwork net, ClippingMode mode) {
    return of(net, mode, ConvolutionGradients.CHUNK_ELEMENTS);
  }

  /** As {@link #of(MultiLayerNetwork, ClippingMode)}, with the convolution chunk bound (elements) given. */
  static PerExampleClipper of(MultiLayerNetwork net, ClippingMode mode, long convolutionChunkElements) {
    return of(net, mode, convolutionChunkElements, ConvolutionNorms.BY_COST, true);
  }

  /** As above, with the way convolution norms are computed forced (to test each against the reference). */
  static PerExampleClipper of(MultiLayerNetwork net, ClippingMode mode, long convolutionChunkElements,
      ConvolutionNorms norms) {
    return of(net, mode, convolutionChunkElements, norms, true);
  }

  /** The layer-by-layer path even where the fused dense path applies (to test one against the other). */
  static PerExampleClipper generic(MultiLayerNetwork net, ClippingMode mode) {
    return of(net, mode, ConvolutionGradients.CHUNK_ELEMENTS, ConvolutionNorms.BY_COST, false);
  }

  private static PerExampleClipper of(MultiLayerNetwork net, ClippingMode mode, long convolutionChunkElements,
      ConvolutionNorms norms, boolean allowFused) {
    checkArgument(net.params() != null, "network must be initialised (call net.init()) before building a clipper");
    checkArgument(mode != null, "clipping mode must not be null");
    List<PerExampleLayer> rules = LayerRules.forNetwork(net, convolutionChunkElements, norms);
    if (net.getFlattenedGradients() == null) {
      net.initGradientsView();
    }
    // The fused path replaces the layer rules: only where every trainable layer has dp4j's own dense rule (not a
    // registered or generic one).
    boolean denseRules = rules.stream().filter(PerExampleLayer::hasParams)
        .allMatch(r -> r.getClass() == DenseGradients.class);
    return new PerExampleClipper(net, mode, rules,
        allowFused && denseRules ? FusedDenseClipper.forNetwork(net) : Optional.empty());
  }

  /**
   * Whether this clipper runs the fused dense path (a stack of dense layers without dropout, see
   * {@link FusedDenseClipper}) rather than the layer-by-layer one; both give the same sums.
   */
  public boolean isFused() {
    return fused.isPresent();
  }

  public ClippingMode mode() {
    return mode;
  }

  /** Clipped sum into a new array; see {@link #clippedSum(INDArray, INDArray, double, INDArray)}. */
  public ClippedGradientSum clippedSum(INDArray features, INDArray labels, double clipNorm) {
    return clippedSum(features, labels, clipNorm, Nd4j.create(dataType(), 1, net.numParams()));
  }

  /**
   * Computes Σ_i clip_C(g_i) for the batch and writes it into {@code target}.
   *
   * @param features one example per row (first dimension), as {@code net.output} takes them; may have 0 rows
   * @param labels one example per row, as the output layer's loss takes them
   * @param clipNorm C &gt; 0
   * @param target row vector [1, net.numParams()], overwritten (may be {@code net.getFlattenedGradients()})
   */
  public ClippedGradientSum clippedSum(INDArray features, INDArray labels, double clipNorm, INDArray target) {
    return clippedSum(features, labels, clipNorm, target, false);
  }

  /**
   * Adds Σ_i clip_C(g_i) for the batch to {@code target}: accumulates the clipped sums of the physical
   * micro-batches that make up one logical batch (each example is still clipped on its own, so the sum over the
   * logical batch has the same sensitivity C). Arguments as in
   * {@link #clippedSum(INDArray, INDArray, double, INDArray)}.
   */
  public ClippedGradientSum addClippedSum(INDArray features, INDArray labels, double clipNorm, INDArray target) {
    return run(features, labels, null, null, clipNorm, target, true);
  }

  /**
   * As {@link #clippedSum(INDArray, INDArray, double, INDArray)} or (with {@code accumulate})
   * {@link #addClippedSum}, with DL4J's masks: the feature mask ([n, T] for time series, null: none) reaches each
   * layer as DL4J propagates it ({@code feedForwardMaskArray}), so a masked time step contributes nothing to any
   * example's gradient or norm; the label mask (null: none) selects the output's loss terms.
   */
  public ClippedGradientSum clippedSum(INDArray features, INDArray labels, INDArray featureMask,
      INDArray labelMask, double clipNorm, INDArray target, boolean accumulate) {
    checkArgument(featureMask == null || featureMask.size(0) == features.size(0),
        "featureMask must have one row per example (%s), was %s", features.size(0),
        featureMask == null ? null : Arrays.toString(featureMask.shape()));
    checkArgument(labelMask == null || labelMask.size(0) == labels.size(0),
        "labelMask must have one row per example (%s), was %s", labels.size(0),
        labelMask == null ? null : Arrays.toString(labelMask.shape()));
    return run(features, labels, featureMask, labelMask, clipNorm, target, accumulate);
  }

  /**
   * Augmentation multiplicity (De et al. 2022): writes (or, with {@code accumulate}, adds) Σ_e clip_C(ḡ_e), where
   * example e has {@code views} consecutive rows (e·K … e·K + K − 1: e.g. an image and its mirror) and ḡ_e is the
   * mean of their gradients. Each example is clipped once, after the mean, so the sum's sensitivity to adding or
   * removing one example is still C whatever K is; the statistics returned have one norm per example. Only the fused
   * dense path computes it ({@link #isFused()}; its Gram-form norms need no per-example gradient).
   *
   * @param features K·m rows, the K views of each of m examples together
   * @param labels one row per feature row (each example's label repeated K times)
   * @param views K ≥ 1; 1 is {@link #clippedSum(INDArray, INDArray, INDArray, INDArray, double, INDArray, boolean)}
   * @throws IllegalArgumentException if K &gt; 1 and the network is not a fused dense stack, or the rows are not a
   *     multiple of K
   *
   * <p>The norms in the statistics are the upper bounds each example was clipped at (see
   * {@code FusedDenseClipper}: exact up to rounding, never below the exact norm).
   */
  public ClippedGradientSum clippedSumOfViews(INDArray features, INDArray labels, int views, double clipNorm,
      INDArray target, boolean accumulate) {
    requireViews(views);
    if (views == 1) {
      return run(features, labels, null, null, clipNorm, target, accumulate);
    }
    checkArgument(features != null && features.size(0) % views == 0, "the %s feature rows are not a whole number "
        + "of examples of %s views each", features == null ? null : features.size(0), views);
    return run(features, labels, null, null, views, clipNorm, target, accumulate);
  }

  /**
   * Refuses K views per example where {@link #clippedSumOfViews} cannot compute them (K &lt; 1, or K &gt; 1 off the
   * fused dense path), before any training.
   */
  public void requireViews(int views) {
    checkArgument(views >= 1, "views per example must be >= 1, was %s", views);
    checkArgument(views == 1 || fused.isPresent(), "several views per example (augmentation multiplicity) need the "
        + "fused dense path: a plain stack of DenseLayers ending in an OutputLayer, without dropout, layer norm, "
        + "preprocessors or frozen layers");
  }

  private ClippedGradientSum clippedSum(INDArray features, INDArray labels, double clipNorm, INDArray target,
      boolean accumulate) {
    return run(features, labels, null, null, clipNorm, target, accumulate);
  }

  private ClippedGradientSum run(INDArray features, INDArray labels, INDArray featureMask,
      INDArray labelMask, double clipNorm, INDArray target, boolean accumulate) {
    return run(features, labels, featureMask, labelMask, 1, clipNorm, target, accumulate);
  }

  private ClippedGradientSum run(INDArray features, INDArray labels, INDArray featureMask,
      INDArray labelMask, int views, double clipNorm, INDArray target, boolean accumulate) {
    checkArgument(clipNorm > 0 && Double.isFinite(clipNorm), "clipNorm must be finite and > 0, was %s", clipNorm);
    checkArgument(features != null && labels != null, "features and labels must not be null");
    checkArgument(features.size(0) == labels.size(0),
        "features and labels must have the same number of examples, were %s and %s",
        features.size(0), labels.size(0));
    checkArgument(target.rank() == 2 && target.size(0) == 1 && target.size(1) == net.numParams(),
        "target must be a row vector [1, %s], was %s", net.numParams(), Arrays.toString(target.shape()));
    int n = (int) features.size(0);
    if (n == 0) {
      // An empty Poisson batch: the sum is zero (the DP step still adds its noise).
      if (!accumulate) {
        target.assign(0.0);
      }
      return new ClippedGradientSum(target, new double[0], 0, clipNorm, mode);
    }
    // Intermediate arrays live in a workspace reused across calls (as DL4J's own fit does); only the target
    // and plain Java values leave it.
    try (MemoryWorkspace ignored = Nd4j.getWorkspaceManager().getAndActivateWorkspace(WORKSPACE, WORKSPACE_ID)) {
      INDArray x = features.castTo(dataType());
      INDArray y = labels.castTo(dataType());
      if (fused.isPresent() && featureMask == null && labelMask == null) {
        return fused.get().clippedSum(x, y, views, clipNorm, mode, target, accumulate);
      }
      if (accumulate) {
        // DL4J's own backprop inside some layers writes into the network's gradient view, which target may be.
        if (saved == null) {
          saved = rowOutsideWorkspaces(dataType(), net.numParams());
        }
        saved.assign(target);
      }
      backpropagate(x, y, featureMask, labelMask == null ? null : labelMask.castTo(dataType()), n);
      ClippedGradientSum result = clipAndSum(n, clipNorm, target);
      if (accumulate) {
        target.addi(saved);
      }
      if (featureMask != null) {
        net.clearLayerMaskArrays();    // as DL4J's fit does after its step
      }
      return result;
    }
  }

  /** A row vector [1, length] allocated outside any open workspace (kept across calls). */
  static INDArray rowOutsideWorkspaces(DataType type, long length) {
    try (MemoryWorkspace ignored = Nd4j.getWorkspaceManager().scopeOutOfWorkspaces()) {
      return Nd4j.create(type, 1, length);
    }
  }

  private ClippedGradientSum clipAndSum(int n, double clipNorm, INDArray target) {
    List<INDArray> layerSq = new ArrayList<>(parameterisedLayers);
    for (PerExampleLayer layer : layers) {
      if (layer.hasParams()) {
        layerSq.add(layer.squaredNorms());
      }
    }
    ClipFactors factors = ClipFactors.compute(layerSq, n, dataType(), mode, clipNorm);
    writeSums(factors, target);
    return factors.result(target, clipNorm, mode);
  }

  private void backpropagate(INDArray features, INDArray labels, INDArray featureMask, INDArray labelMask, int n) {
    LayerWorkspaceMgr workspaces = LayerWorkspaceMgr.noWorkspaces();
    INDArray activation = features;
    // The feature mask as DL4J's own fit propagates it: through each preprocessor and layer (which keep it as
    // their input mask, as DL4J's layers do).
    Pair<INDArray, MaskState> mask = featureMask == null ? null : new Pair<>(featureMask, MaskState.Active);
    for (int i = 0; i < layers.size(); i++) {
      InputPreProcessor pre = net.getLayerWiseConfigurations().getInputPreProcess(i);
      if (pre != null) {
        activation = pre.preProcess(activation, n, workspaces);
        if (mask != null) {
          mask = pre.feedForwardMaskArray(mask.getFirst(), mask.getSecond(), n);
        }
      }
      layers.get(i).setInputMask(mask == null ? null : mask.getFirst());
      if (mask == null) {
        net.getLayer(i).setMaskArray(null);   // some layers (Convolution1DLayer) cannot propagate a null mask
      } else {
        mask = net.getLayer(i).feedForwardMaskArray(mask.getFirst(), mask.getSecond(), n);
      }
      activation = layers.get(i).forward(activation);
    }
    // Errors go back only as far as the lowest layer with trainable parameters: frozen layers below it (transfer
    // learning) cost a forward pass and nothing else.
    int last = layers.size() - 1;
    INDArray error = layers.get(last).backwardFromLabels(labels, labelMask, last > lowestTrainable);
    for (int i = last; i >= lowestTrainable; i--) {
      if (i < last) {
        error = layers.get(i).backward(error, i > lowestTrainable);
      }
      InputPreProcessor pre = net.getLayerWiseConfigurations().getInputPreProcess(i);
      if (pre != null && i > lowestTrainable) {
        error = pre.backprop(error, n, workspaces);
      }
    }
  }

  private void writeSums(ClipFactors factors, INDArray target) {
    long offset = 0;
    int p = 0;
    for (int i = 0; i < layers.size(); i++) {
      Layer layer = net.getLayer(i);
      long size = layer.numParams();
      INDArray slice = target.get(NDArrayIndex.all(), NDArrayIndex.interval(offset, offset + size));
      if (layers.get(i).hasParams()) {
        Map<String, INDArray> views = GradientViews.of(layer, slice);
        layers.get(i).writeScaledSum(factors.scale(p++), views);
      } else if (size > 0) {
        slice.assign(0.0);    // frozen parameters: no gradient
      }
      offset += size;
    }
  }

  private DataType dataType() {
    return net.params().dataType();
  }
}
