package org.dp4j.clipping;

import org.nd4j.linalg.api.memory.MemoryWorkspace;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;

/**
 * Squared norms of per-example weight gradients G_i = δ_iᵀX_i of a layer applied to patches (a convolution as
 * im2col + matrix product: X_i [P, K] the patches of example i, δ_i [P, out] its errors), a chunk of examples at a
 * time so that memory stays bounded: either G_i is materialised, or the Gram form ‖δ_iᵀX_i‖_F² = ⟨X_iX_iᵀ, δ_iδ_iᵀ⟩
 * is used (Rochette et al. 2019, the unfold/Gram trick; chosen by {@link ConvolutionNorms}).
 */
final class PatchGradients {
  private static final String CHUNK_WORKSPACE_ID = "DP4J_CONVOLUTION_CHUNK";

  private PatchGradients() {
  }

  /**
   * @param patches [n, P, K]
   * @param deltas [n, P, out]
   * @param gram whether to use the Gram form
   * @param chunkElements upper bound on the elements held per chunk (per-example gradients or Gram matrices)
   * @return ‖G_i‖_F² as a column [n, 1]
   */
  static INDArray squaredNorms(INDArray patches, INDArray deltas, boolean gram, long chunkElements) {
    long n = deltas.size(0);
    long positions = patches.size(1);
    // Elements held per example: the gradient [out, K], or the two Gram matrices [P, P].
    long perExample = gram ? 2 * positions * positions : deltas.size(2) * patches.size(2);
    long chunk = Math.max(1, Math.min(n, chunkElements / perExample));
    INDArray result = Nd4j.create(deltas.dataType(), n, 1);
    for (long start = 0; start < n; start += chunk) {
      // One chunk at a time: a nested workspace reused by every chunk bounds the memory.
      try (MemoryWorkspace ignored = Nd4j.getWorkspaceManager()
          .getAndActivateWorkspace(PerExampleClipper.WORKSPACE, CHUNK_WORKSPACE_ID)) {
        long end = Math.min(n, start + chunk);
        INDArray d = deltas.get(NDArrayIndex.interval(start, end), NDArrayIndex.all(), NDArrayIndex.all());
        INDArray x = patches.get(NDArrayIndex.interval(start, end), NDArrayIndex.all(), NDArrayIndex.all());
        INDArray sq;
        if (gram) {
          INDArray xx = Nd4j.matmul(x, x, false, true, false);    // [m, P, P]
          INDArray dd = Nd4j.matmul(d, d, false, true, false);    // [m, P, P]
          sq = xx.muli(dd).sum(1, 2);
        } else {
          sq = Nd4j.matmul(d, x, true, false, false).norm2(1, 2);    // ‖[m, out, K]‖ per example
          sq.muli(sq);
        }
        result.get(NDArrayIndex.interval(start, end), NDArrayIndex.all()).assign(sq.reshape(end - start, 1));
      }
    }
    return result;
  }

  /** ‖row_i‖² of a matrix [n, m] as a column [n, 1]. */
  static INDArray rowSquaredNorms(INDArray m) {
    INDArray norms = m.norm2(1);
    return norms.muli(norms).reshape(m.size(0), 1);
  }
}
