package org.dp4j.mbcd;

import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * A data-independent linear map A between row spaces, with its transpose: applied to a batch of rows x [b, n]
 * it gives the rows of A x [b, m]; {@link #adjoint} gives Aᵀ y. The matrix-free form the conjugate-gradient
 * x-update needs (docs/errata.md#dp-mbcd-convolution): convolution, average pooling, a dense layer, and compositions.
 */
interface LinearMap {
  /** A x for every row x. */
  INDArray apply(INDArray rows);

  /** Aᵀ y for every row y. */
  INDArray adjoint(INDArray rows);

  /** The composition x ↦ next(A x), whose transpose is y ↦ Aᵀ(nextᵀ y). */
  default LinearMap then(LinearMap next) {
    LinearMap first = this;
    return new LinearMap() {
      @Override
      public INDArray apply(INDArray rows) {
        return next.apply(first.apply(rows));
      }

      @Override
      public INDArray adjoint(INDArray rows) {
        return first.adjoint(next.adjoint(rows));
      }
    };
  }
}
