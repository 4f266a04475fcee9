package org.dp4j.clipping;

import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.Map;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.RNNFormat;
import org.deeplearning4j.nn.conf.layers.EmbeddingSequenceLayer;
import org.deeplearning4j.nn.conf.layers.FeedForwardLayer;
import org.deeplearning4j.nn.params.DefaultParamInitializer;
import org.nd4j.linalg.activations.IActivation;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.ops.impl.scatter.ScatterUpdate;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;

/**
 * {@code EmbeddingLayer} (one index per example, T = 1) and {@code EmbeddingSequenceLayer} (T indices per example,
 * NCW or NWC output, optional feature mask [n, T]): output t of example i is row idx_{i,t} of the table plus the bias,
 * so the table's gradient for example i is sparse, Σ_t e_{idx_t} δ_tᵀ. Its norm needs no table-sized array:
 * ‖g_i‖² = Σ_{t,s} [idx_t = idx_s] δ_t·δ_s (an index-equality mask on the Gram matrix of δ_i, batched over a chunk of
 * examples) plus ‖Σ_t δ_t‖² for the bias; the clipped sum is a scatter-add of the rows c_i δ_t, as DL4J's own
 * backprop does for the batch. A masked step contributes nothing (its δ is zeroed, as in DL4J).
 */
final class EmbeddingGradients implements PerExampleLayer {
  private static final String CHUNK_WORKSPACE_ID = "DP4J_EMBEDDING_CHUNK";

  private final Layer layer;
  private final IActivation activation;
  private final long vocabulary;
  private final boolean sequence;
  private final boolean channelsFirst;    // output [n, nOut, T] (NCW) rather than [n, T, nOut]
  private final boolean hasBias;
  private final long chunkElements;
  private INDArray mask;
  private int[] flatIndices;              // row-major [n·T]
  private INDArray preActivation;
  private INDArray delta;                 // [n, T, nOut]

  EmbeddingGradients(Layer layer, long chunkElements) {
    this.layer = layer;
    FeedForwardLayer conf = (FeedForwardLayer) layer.conf().getLayer();
    this.activation = conf.getActivationFn();
    this.vocabulary = conf.getNIn();
    this.sequence = conf instanceof EmbeddingSequenceLayer;
    this.channelsFirst = sequence && ((EmbeddingSequenceLayer) conf).getOutputFormat() == RNNFormat.NCW;
    this.hasBias = layer.paramTable().containsKey(DefaultParamInitializer.BIAS_KEY);
    this.chunkElements = chunkElements;
  }

  @Override
  public void setInputMask(INDArray mask) {
    this.mask = mask;
  }

  @Override
  public INDArray forward(INDArray input) {
    long n = input.size(0);
    long steps = sequence ? input.size(input.rank() - 1) : 1;
    INDArray indices = input.reshape('c', n, steps).dup('c');
    flatIndices = indices.data().asInt();
    double lowest = indices.minNumber().doubleValue();
    double highest = indices.maxNumber().doubleValue();
    checkArgument(lowest >= 0 && highest < vocabulary,
        "embedding indices must be in [0, %s), were in [%s, %s]", vocabulary, lowest, highest);
    INDArray weights = layer.getParam(DefaultParamInitializer.WEIGHT_KEY);
    INDArray rows = Nd4j.pullRows(weights, 1, flatIndices);          // [n·T, nOut]
    if (hasBias) {
      rows.addiRowVector(layer.getParam(DefaultParamInitializer.BIAS_KEY));
    }
    preActivation = toLayout(rows.reshape('c', n, steps, weights.size(1)));
    INDArray out = activation.getActivation(preActivation.dup(), true);
    return masked(out);
  }

  /** [n, T, nOut] → the layer's output layout. */
  private INDArray toLayout(INDArray steps) {
    if (!sequence) {
      return steps.reshape('c', steps.size(0), steps.size(2));
    }
    return channelsFirst ? steps.permute(0, 2, 1).dup('c') : steps;
  }

  /** The layer's layout → [n, T, nOut]. */
  private INDArray fromLayout(INDArray a) {
    if (!sequence) {
      return a.reshape('c', a.size(0), 1, a.size(1));
    }
    return channelsFirst ? a.permute(0, 2, 1).dup('c') : a.dup('c');
  }

  private INDArray masked(INDArray a) {
    if (mask == null) {
      return a;
    }
    INDArray steps = fromLayout(a);
    steps.muli(mask.castTo(steps.dataType()).reshape('c', steps.size(0), steps.size(1), 1)
        .broadcast(steps.shape()));
    return toLayout(steps);
  }

  @Override
  public INDArray backward(INDArray outputError, boolean needInputError) {
    delta = fromLayout(masked(activation.backprop(preActivation, outputError.dup()).getFirst()));
    preActivation = null;
    return null;    // the input is a list of indices: nothing to back-propagate to
  }

  @Override
  public boolean hasParams() {
    return true;
  }

  @Override
  public INDArray squaredNorms() {
    long steps = delta.size(1);
    INDArray result = ExampleChunks.squaredNorms(delta.dataType(), delta.size(0), 2 * steps * steps, chunkElements,
        CHUNK_WORKSPACE_ID, (start, end) -> {
          INDArray d = delta.get(NDArrayIndex.interval(start, end), NDArrayIndex.all(), NDArrayIndex.all());
          // Gram of the errors [m, T, T] masked by [idx_t = idx_s].
          INDArray gram = Nd4j.matmul(d, d, false, true, false);
          return gram.muli(sameIndex(start, end).castTo(gram.dataType())).sum(1, 2);
        });
    return hasBias ? ExampleChunks.addRowSquaredNorms(result, delta.sum(1)) : result;
  }

  /**
   * [idx_t = idx_s] for examples [start, end), [m, T, T], built from the index list (index bookkeeping, no arithmetic
   * on the errors; ND4J's broadcast comparison costs more than the Gram product itself).
   */
  private INDArray sameIndex(long start, long end) {
    int steps = (int) delta.size(1);
    int m = (int) (end - start);
    boolean[] same = new boolean[m * steps * steps];
    for (int e = 0; e < m; e++) {
      int row = (int) (start + e) * steps;
      for (int t = 0; t < steps; t++) {
        for (int u = 0; u < steps; u++) {
          same[(e * steps + t) * steps + u] = flatIndices[row + t] == flatIndices[row + u];
        }
      }
    }
    return Nd4j.createFromArray(same).reshape('c', m, steps, steps);
  }

  @Override
  public void writeScaledSum(INDArray scale, Map<String, INDArray> gradientViews) {
    long n = delta.size(0);
    long width = delta.size(2);
    INDArray scaled = delta.reshape('c', n, -1).mulColumnVector(scale).reshape('c', -1, width);   // [n·T, nOut]
    INDArray weightView = gradientViews.get(DefaultParamInitializer.WEIGHT_KEY);
    weightView.assign(0.0);
    Nd4j.scatterUpdate(ScatterUpdate.UpdateOp.ADD, weightView, Nd4j.createFromArray(flatIndices), scaled,
        new int[] {1});
    if (hasBias) {
      INDArray biasView = gradientViews.get(DefaultParamInitializer.BIAS_KEY);
      biasView.assign(scaled.sum(0).reshape(biasView.shape()));
    }
  }
}
