package org.dp4j.clipping;

import java.util.function.BiFunction;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.memory.MemoryWorkspace;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;

/**
 * Per-example squared norms computed a chunk of examples at a time, so that the per-example intermediates (patches,
 * Gram matrices, per-example gradients) of only one chunk exist at once: each chunk runs in a nested workspace that
 * every chunk reuses.
 */
final class ExampleChunks {
  private ExampleChunks() {
  }

  /**
   * @param elementsPerExample elements one example's intermediates hold
   * @param chunkElements the bound on the elements held at once (at least one example per chunk)
   * @param perChunk (start, end) → one value per example of [start, end), any shape with end − start elements
   * @return [n, 1]
   */
  static INDArray squaredNorms(DataType type, long n, long elementsPerExample, long chunkElements,
      String workspaceId, BiFunction<Long, Long, INDArray> perChunk) {
    long chunk = Math.max(1, Math.min(n, chunkElements / Math.max(1, elementsPerExample)));
    INDArray result = Nd4j.create(type, n, 1);
    for (long start = 0; start < n; start += chunk) {
      long end = Math.min(n, start + chunk);
      try (MemoryWorkspace ignored = Nd4j.getWorkspaceManager()
          .getAndActivateWorkspace(PerExampleClipper.WORKSPACE, workspaceId)) {
        result.get(NDArrayIndex.interval(start, end), NDArrayIndex.all())
            .assign(perChunk.apply(start, end).reshape(end - start, 1));
      }
    }
    return result;
  }

  /** result += ‖row i of {@code perExample} [n, k]‖², e.g. a bias gradient per example. */
  static INDArray addRowSquaredNorms(INDArray result, INDArray perExample) {
    INDArray sq = perExample.norm2(1);
    return result.addi(sq.muli(sq).reshape(result.shape()));
  }
}
