package org.dp4j.clipping;

import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.deeplearning4j.nn.conf.RNNFormat;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Broadcast;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;
import org.nd4j.linalg.ops.transforms.Transforms;

/**
 * {@code SelfAttentionLayer} with {@code projectInput(true)}: multi-head scaled dot-product self-attention
 * (Vaswani et al. 2017, "Attention Is All You Need", eq. 1 and the multi-head projection of section 3.2.2), as
 * DL4J computes it. For example i, head h: Q = x W_qᵀ, K = x W_kᵀ, V = x W_vᵀ, P = softmax over keys of
 * (Q Kᵀ/√d + (m − 1)·10⁹) with the feature mask m on the keys (masked keys get no attention; masked query rows are
 * computed as DL4J does, their errors come zero from the layers above), heads concatenated into C and y = C W_o.
 * Forward and backward are batched over examples and heads; example i's gradient of W_q, W_k, W_v is
 * Σ_t x_{i,t} ⊗ δ_{i,t} and of W_o is Σ_t c_{i,t} ⊗ δy_{i,t} ({@link TimeSummedGradients}: norms by the Gram
 * identity or materialised, the clipped sum as one product).
 *
 * <p>DL4J 1.0.0-M2.1's backprop of this layer returns twice the derivative, for the weights and for the error it
 * passes down (central differences of the loss show it; the output layer's gradient is not doubled). The rule
 * reproduces DL4J's gradient, which DL4J's own fit applies and the generic path computes, by scaling the incoming
 * error by {@link #DL4J_FACTOR}.
 */
final class SelfAttentionGradients extends MaskedSequenceGradients {
  /** DL4J's (libnd4j's dot_product_attention) additive mask: masked keys get score − 10⁹. */
  private static final double MASK_PENALTY = 1e9;
  // The parameter keys of SelfAttentionLayer.defineParameters (private constants there).
  private static final String QUERY = "Wq";
  private static final String KEY = "Wk";
  private static final String VALUE = "Wv";
  private static final String OUT = "Wo";
  private static final List<String> PROJECTIONS = List.of(QUERY,
      KEY, VALUE);

  /** DL4J's gradient of this layer over the derivative (measured by the rule's test against central differences). */
  static final double DL4J_FACTOR = 2.0;

  private INDArray q;                     // [n*h, T, d] each
  private INDArray k;
  private INDArray v;
  private INDArray attention;             // [n*h, Tq, Tk]
  private INDArray concatenated;          // [n, T, h*d]
  private TimeSummedGradients projections;
  private TimeSummedGradients output;

  /**
   * @param params the layer's parameters by key (Wq, Wk, Wv [h, d, nIn], Wo [h*d, nOut])
   */
  SelfAttentionGradients(Function<String, INDArray> params, String where, long chunkElements) {
    super(params, where, chunkElements);
  }

  @Override
  public INDArray forward(INDArray in) {
    readInput(in, RNNFormat.NCW);
    long n = input.size(0);
    long steps = input.size(1);
    q = project(QUERY);
    k = project(KEY);
    v = project(VALUE);
    long heads = q.size(0) / n;
    INDArray scores = Nd4j.matmul(q, k, false, true, false).divi(Math.sqrt(q.size(2)));   // [n*h, Tq, Tk]
    if (mask != null) {
      INDArray penalty = mask.sub(1.0).muli(MASK_PENALTY);                                  // [n, Tk]
      INDArray grouped = scores.reshape('c', n, heads * steps, steps);
      Broadcast.add(grouped, penalty, grouped, 0, 2);
    }
    INDArray rows = scores.reshape('c', scores.length() / steps, steps);
    rows.subiColumnVector(rows.max(1));
    Transforms.exp(rows, false);
    rows.diviColumnVector(rows.sum(1));
    attention = scores;
    concatenated = joinHeads(Nd4j.matmul(attention, v, false, false, false), n);
    INDArray wo = params.apply(OUT);
    INDArray y = concatenated.reshape('c', n * steps, wo.size(0)).mmul(wo).reshape('c', n, steps, wo.size(1));
    return SequenceArrays.toFormat(y, RNNFormat.NCW);
  }

  /** x W_hᵀ for every head h, as [n*h, T, d]. */
  private INDArray project(String key) {
    INDArray w = params.apply(key);                          // [h, d, nIn]
    long n = input.size(0);
    long steps = input.size(1);
    INDArray flat = input.reshape('c', n * steps, input.size(2))
        .mmul(w.reshape('c', w.size(0) * w.size(1), w.size(2)).transpose());
    return flat.reshape('c', n, steps, w.size(0), w.size(1)).permute(0, 2, 1, 3).dup('c')
        .reshape('c', n * w.size(0), steps, w.size(1));
  }

  /** [n*h, T, d] → [n, T, h*d] (heads concatenated per step, head-major as DL4J's output projection reads them). */
  private static INDArray joinHeads(INDArray perHead, long n) {
    long heads = perHead.size(0) / n;
    return perHead.reshape('c', n, heads, perHead.size(1), perHead.size(2)).permute(0, 2, 1, 3).dup('c')
        .reshape('c', n, perHead.size(1), heads * perHead.size(2));
  }

  @Override
  public INDArray backward(INDArray outputError, boolean needInputError) {
    INDArray dy = SequenceArrays.batchMajor(outputError, RNNFormat.NCW, where).muli(DL4J_FACTOR);   // [n, T, nOut]
    long n = dy.size(0);
    long steps = dy.size(1);
    long heads = q.size(0) / n;
    long d = q.size(2);
    INDArray wo = params.apply(OUT);
    INDArray dc = dy.reshape('c', n * steps, dy.size(2)).mmul(wo.transpose());             // [n*T, h*d]
    INDArray dOut = dc.reshape('c', n, steps, heads, d).permute(0, 2, 1, 3).dup('c').reshape('c', n * heads, steps, d);
    INDArray dAttention = Nd4j.matmul(dOut, v, false, true, false);                         // [n*h, Tq, Tk]
    INDArray dv = Nd4j.matmul(attention, dOut, true, false, false);                         // [n*h, Tk, d]
    // Softmax backward per query row: dS = P ⊙ (dP − Σ_k P dP), then the 1/√d scaling.
    INDArray rowsP = attention.reshape('c', attention.length() / steps, steps);
    INDArray rowsD = dAttention.reshape('c', dAttention.length() / steps, steps);
    INDArray dot = rowsP.mul(rowsD).sum(1);
    INDArray dScores = rowsD.subiColumnVector(dot).muli(rowsP).divi(Math.sqrt(d)).reshape('c', n * heads, steps, steps);
    INDArray dq = Nd4j.matmul(dScores, k, false, false, false);
    INDArray dk = Nd4j.matmul(dScores, q, true, false, false);
    INDArray delta = Nd4j.concat(2, joinHeads(dq, n), joinHeads(dk, n), joinHeads(dv, n));   // [n, T, 3*h*d]
    projections = new TimeSummedGradients(List.of(input), delta, false, chunkElements);
    output = new TimeSummedGradients(List.of(concatenated), dy, false, chunkElements);
    q = null;
    k = null;
    v = null;
    attention = null;
    if (!needInputError) {
      return null;
    }
    INDArray[] weights = PROJECTIONS.stream().map(params)
        .map(w -> w.reshape('c', w.size(0) * w.size(1), w.size(2))).toArray(INDArray[]::new);
    INDArray dx = delta.reshape('c', n * steps, delta.size(2)).mmul(Nd4j.concat(0, weights))
        .reshape('c', n, steps, input.size(2));
    return SequenceArrays.toFormat(dx, RNNFormat.NCW);
  }

  @Override
  public boolean hasParams() {
    return true;
  }

  @Override
  public INDArray squaredNorms() {
    return projections.squaredNorms().addi(output.squaredNorms());
  }

  @Override
  public void writeScaledSum(INDArray scale, Map<String, INDArray> gradientViews) {
    long width = input.size(2);
    INDArray sum = Nd4j.create(input.dataType(), width, 3 * concatenated.size(2));   // [nIn, 3*h*d]
    projections.writeScaledSum(scale, List.of(sum), null);
    long block = concatenated.size(2);
    for (int p = 0; p < PROJECTIONS.size(); p++) {
      INDArray view = gradientViews.get(PROJECTIONS.get(p));                          // [h, d, nIn]
      view.assign(sum.get(NDArrayIndex.all(), NDArrayIndex.interval(p * block, (p + 1) * block)).transpose()
          .dup('c').reshape('c', view.shape()));
    }
    output.writeScaledSum(scale, List.of(gradientViews.get(OUT)), null);
  }
}
