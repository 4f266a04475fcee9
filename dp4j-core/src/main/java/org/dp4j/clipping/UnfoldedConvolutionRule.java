package org.dp4j.clipping;

import java.util.Map;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.layers.BaseLayer;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.gradient.Gradient;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.nd4j.linalg.activations.IActivation;
import org.nd4j.linalg.activations.impl.ActivationIdentity;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;

/**
 * The convolution variants other than the 2-D {@code ConvolutionLayer} (1-D, 3-D, depthwise, separable,
 * transposed), whose weight gradient for example i is a sum over output positions of outer products: with the
 * unfolded patches X_i [P, K] ({@link Unfold}) and the errors δ_i [P, out] of one group of channels, G_i = δ_iᵀX_i.
 * Norms: ‖G_i‖² summed over groups, for a chunk of examples at a time (memory bounded by the chunk bound), either
 * from G_i or from the Gram form ⟨X_iX_iᵀ, δ_iδ_iᵀ⟩ ({@link ConvolutionNorms}; Rochette et al. 2019); the bias
 * gradient is Σ_positions δ_i.
 *
 * <p>The forward pass, the error for the layer below and the clipped sum Σ c_i G_i come from DL4J's own layer, so
 * every {@code ConvolutionMode}, stride, dilation, padding and data format has DL4J's exact semantics: the sum is
 * DL4J's batch gradient for the output errors scaled row by row by c_i (the gradient is linear in the error).
 */
abstract class UnfoldedConvolutionRule implements PerExampleLayer {
  private static final String CHUNK_WORKSPACE_ID = "DP4J_UNFOLDED_CONVOLUTION_CHUNK";

  final Layer layer;
  private final ConvolutionLayer conf;
  private final long chunkElements;
  final ConvolutionNorms norms;
  private final int[] toChannelsFirst;    // permutation of the layer's activations to channels first, or null
  private INDArray preActivation;
  private INDArray outputError;
  INDArray input;                          // channels first [n, C, spatial…]
  INDArray delta;                          // channels first [n, out, spatial…]

  UnfoldedConvolutionRule(Layer layer, long chunkElements, ConvolutionNorms norms, int[] toChannelsFirst) {
    this.layer = layer;
    this.conf = (ConvolutionLayer) layer.conf().getLayer();
    this.chunkElements = chunkElements;
    this.norms = norms;
    this.toChannelsFirst = toChannelsFirst;
  }

  /** Σ over groups of ‖G_i‖² for examples [start, end), as a vector of end − start entries. */
  abstract INDArray weightSquaredNorms(long start, long end);

  /** Elements held per example while {@link #weightSquaredNorms} runs (patches, errors, products). */
  abstract long elementsPerExample();

  /**
   * The mask of the layer's output [n, positions] (channels first), or null: masked outputs are zero and take no part
   * in any gradient. Only the 1-D convolution has one.
   */
  INDArray outputMask() {
    return null;
  }

  @Override
  public INDArray forward(INDArray in) {
    input = channelsFirst(in);
    preActivation = preActivation(layer, in);
    return masked(conf.getActivationFn().getActivation(preActivation.dup(), true));
  }

  /** a ⊙ mask, the mask broadcast over channels (as DL4J's {@code Convolution1DLayer.activate}). */
  private INDArray masked(INDArray a) {
    INDArray mask = outputMask();
    if (mask == null) {
      return a;
    }
    INDArray first = channelsFirst(a).dup('c');
    first.muli(mask.castTo(first.dataType()).reshape(first.size(0), 1, first.size(2)).broadcast(first.shape()));
    return toChannelsFirst == null ? first : first.permute(0, 2, 1).dup('c');
  }

  /**
   * DL4J's own pre-activation of a layer: its forward pass with the activation function set to the identity for the
   * duration of the call (the layers keep the pre-activation private).
   */
  static INDArray preActivation(Layer layer, INDArray in) {
    BaseLayer conf = (BaseLayer) layer.conf().getLayer();
    IActivation activation = conf.getActivationFn();
    conf.setActivationFn(new ActivationIdentity());
    try {
      return layer.activate(in, true, LayerWorkspaceMgr.noWorkspaces()).dup();
    } finally {
      conf.setActivationFn(activation);
    }
  }

  @Override
  public INDArray backward(INDArray outputError, boolean needInputError) {
    // With a mask, a masked step's error is zeroed: the true gradient of act(z) ⊙ mask (DL4J's own backprop skips
    // this, which agrees whenever the layer above passes no error to masked steps, as masked layers do).
    INDArray error = masked(outputError.dup('c'));
    this.outputError = error;
    delta = channelsFirst(conf.getActivationFn().backprop(preActivation, error.dup()).getFirst()).dup('c');
    preActivation = null;
    return needInputError ? layer.backpropGradient(error, LayerWorkspaceMgr.noWorkspaces()).getSecond() : null;
  }

  private INDArray channelsFirst(INDArray a) {
    return toChannelsFirst == null ? a : a.permute(toChannelsFirst);
  }

  @Override
  public boolean hasParams() {
    return true;
  }

  @Override
  public INDArray squaredNorms() {
    long n = delta.size(0);
    INDArray result = ExampleChunks.squaredNorms(delta.dataType(), n, elementsPerExample(), chunkElements,
        CHUNK_WORKSPACE_ID, this::weightSquaredNorms);
    return conf.hasBias() ? ExampleChunks.addRowSquaredNorms(result, delta.reshape('c', n, delta.size(1), -1).sum(2))
        : result;
  }

  /** Examples [start, end) of a channels-first array. */
  static INDArray rows(INDArray a, long start, long end) {
    return a.get(NDArrayIndex.interval(start, end)).dup('c');
  }

  /**
   * Σ_g ‖δ_gᵀX_g‖_F² for each example: patches [m, G, P, K] and errors [m, G, P, out] of G channel groups → [m].
   */
  INDArray groupedSquaredNorms(INDArray patches, INDArray errors) {
    long m = patches.size(0);
    long groups = patches.size(1);
    long positions = patches.size(2);
    INDArray x = patches.dup('c').reshape('c', m * groups, positions, patches.size(3));
    INDArray d = errors.dup('c').reshape('c', m * groups, positions, errors.size(3));
    INDArray sq;
    if (norms.useGram(positions, x.size(2), d.size(2))) {
      INDArray xx = Nd4j.matmul(x, x, false, true, false);
      sq = xx.muli(Nd4j.matmul(d, d, false, true, false)).sum(1, 2);
    } else {
      INDArray g = Nd4j.matmul(d, x, true, false, false);
      sq = g.muli(g).sum(1, 2);
    }
    return sq.reshape(m, groups).sum(1);
  }

  /** [m, C, spatial…] → [m, 1, P, C] (the positions of one group, channels last). */
  static INDArray positionsByChannel(INDArray a) {
    long m = a.size(0);
    long channels = a.size(1);
    return a.reshape('c', m, channels, -1).permute(0, 2, 1).dup('c').reshape('c', m, 1, -1, channels);
  }

  /** [m, C, K, P] patches → [m, 1, P, C·K]. */
  static INDArray patchRows(INDArray patches) {
    long m = patches.size(0);
    return patches.reshape('c', m, patches.size(1) * patches.size(2), patches.size(3)).permute(0, 2, 1)
        .dup('c').reshape('c', m, 1, patches.size(3), -1);
  }

  @Override
  public void writeScaledSum(INDArray scale, Map<String, INDArray> gradientViews) {
    long n = outputError.size(0);
    INDArray scaled = outputError.reshape('c', n, -1).mulColumnVector(scale).reshape('c', outputError.shape());
    Gradient sum = layer.backpropGradient(scaled, LayerWorkspaceMgr.noWorkspaces()).getFirst();
    for (Map.Entry<String, INDArray> view : gradientViews.entrySet()) {
      view.getValue().assign(sum.getGradientFor(view.getKey()));
    }
  }
}
