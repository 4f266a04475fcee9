package org.dp4j.clipping;

import java.util.List;
import org.nd4j.linalg.api.memory.MemoryWorkspace;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;

/**
 * Per-example gradients of weights shared over time: example i's gradient of a weight fed by inputs a_{i,t} with
 * pre-activation errors δ_{i,t} is G_i = Σ_t a_{i,t} δ_{i,t}ᵀ (and Σ_t δ_{i,t} for a bias). Several weights fed by
 * different inputs into the same pre-activations (an RNN's input weights, recurrent weights and bias) form one block
 * [A_1; A_2; …; 1] whose squared norm is, by the Gram identity over time,
 * ‖g_i‖² = Σ_{t,s} (Σ_k a^k_{i,t}·a^k_{i,s} + 1)(δ_{i,t}·δ_{i,s}) — T²·(Σ_k a_k + d) multiply-adds per example —
 * or, materialised, Σ_k ‖A_{k,i}ᵀΔ_i‖² + ‖Σ_t δ_{i,t}‖² (T·Σ_k a_k·d); the cheaper one is used (Rochette et al.
 * 2019, the Gram trick, applied over time steps as Opacus' DPLSTM sums per-step gradients). The clipped sum
 * Σ_i c_i G_i is one matrix product A_kᵀ(c ⊙ Δ) over all (example, time) rows. A padded time step has δ = 0 and so
 * adds nothing. Arrays are batch-major [n, T, k], contiguous.
 */
final class TimeSummedGradients {
  private static final String CHUNK_WORKSPACE_ID = "DP4J_SEQUENCE_CHUNK";

  private final List<INDArray> inputs;   // [n, T, a_k] each
  private final INDArray delta;          // [n, T, d]
  private final boolean bias;
  private final long chunkElements;

  /**
   * @param inputs the inputs a^k of each weight, [n, T, a_k]
   * @param delta the errors with respect to the shared pre-activations, [n, T, d]
   * @param bias whether a bias is added to the pre-activations
   */
  TimeSummedGradients(List<INDArray> inputs, INDArray delta, boolean bias, long chunkElements) {
    this.inputs = inputs;
    this.delta = delta;
    this.bias = bias;
    this.chunkElements = chunkElements;
  }

  /** ‖g_i‖² over every weight (and the bias) of the block, as a column [n, 1]. */
  INDArray squaredNorms() {
    long n = delta.size(0);
    long steps = delta.size(1);
    long d = delta.size(2);
    long widths = inputs.stream().mapToLong(a -> a.size(2)).sum();
    boolean gram = steps * (widths + d) < widths * d;
    long perExample = gram ? 2 * steps * steps : inputs.stream().mapToLong(a -> a.size(2) * d).max().orElse(1);
    long chunk = Math.max(1, Math.min(n, chunkElements / Math.max(1, perExample)));
    INDArray result = Nd4j.create(delta.dataType(), n, 1);
    for (long start = 0; start < n; start += chunk) {
      // A nested workspace reused by every chunk bounds the memory of the [m, T, T] or [m, a, d] arrays.
      try (MemoryWorkspace ignored = Nd4j.getWorkspaceManager()
          .getAndActivateWorkspace(PerExampleClipper.WORKSPACE, CHUNK_WORKSPACE_ID)) {
        long end = Math.min(n, start + chunk);
        INDArray d3 = rows(delta, start, end);
        INDArray sq = gram ? gramSquaredNorms(d3, start, end) : materialisedSquaredNorms(d3, start, end);
        result.get(NDArrayIndex.interval(start, end), NDArrayIndex.all()).assign(sq.reshape(end - start, 1));
      }
    }
    return result;
  }

  private INDArray gramSquaredNorms(INDArray d3, long start, long end) {
    INDArray inputGram = null;
    for (INDArray a : inputs) {
      INDArray a3 = rows(a, start, end);
      INDArray g = Nd4j.matmul(a3, a3, false, true, false);    // [m, T, T]
      inputGram = inputGram == null ? g : inputGram.addi(g);
    }
    if (bias) {
      inputGram = inputGram == null ? Nd4j.ones(d3.dataType(), end - start, d3.size(1), d3.size(1))
          : inputGram.addi(1.0);
    }
    return inputGram.muli(Nd4j.matmul(d3, d3, false, true, false)).sum(1, 2);
  }

  private INDArray materialisedSquaredNorms(INDArray d3, long start, long end) {
    INDArray sq = Nd4j.zeros(d3.dataType(), end - start);
    for (INDArray a : inputs) {
      INDArray g = Nd4j.matmul(rows(a, start, end), d3, true, false, false);    // [m, a, d]
      INDArray norm = g.norm2(1, 2);
      sq.addi(norm.muli(norm));
    }
    if (bias) {
      INDArray norm = d3.sum(1).norm2(1);
      sq.addi(norm.muli(norm));
    }
    return sq;
  }

  private static INDArray rows(INDArray a, long start, long end) {
    return a.get(NDArrayIndex.interval(start, end), NDArrayIndex.all(), NDArrayIndex.all());
  }

  /**
   * Writes Σ_i scale_i·G_i of each weight into its view (views in the order of the inputs, each [a_k, d]) and of
   * the bias into {@code biasView} (any shape of d elements; ignored without a bias).
   */
  void writeScaledSum(INDArray scale, List<INDArray> weightViews, INDArray biasView) {
    long n = delta.size(0);
    long rows = n * delta.size(1);
    INDArray scaled = delta.reshape('c', n, delta.size(1) * delta.size(2)).mulColumnVector(scale)
        .reshape('c', rows, delta.size(2));
    for (int k = 0; k < inputs.size(); k++) {
      INDArray a = inputs.get(k);
      weightViews.get(k).assign(a.reshape('c', rows, a.size(2)).transpose().mmul(scaled));
    }
    if (bias) {
      biasView.assign(scaled.sum(0).reshape(biasView.shape()));
    }
  }
}
