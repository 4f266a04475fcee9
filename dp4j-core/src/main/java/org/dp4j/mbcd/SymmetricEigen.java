package org.dp4j.mbcd;

import static com.google.common.base.Preconditions.checkState;

import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/** Eigendecomposition M = Q·diag(λ)·Qᵀ of a symmetric matrix by LAPACK syev (ascending λ). */
final class SymmetricEigen {
  private final INDArray vectors;
  private final INDArray values;

  private SymmetricEigen(INDArray vectors, INDArray values) {
    this.vectors = vectors;
    this.values = values;
  }

  /** Decomposes a copy of the symmetric matrix m. */
  static SymmetricEigen of(INDArray m) {
    INDArray q = m.dup('f');
    INDArray lambda = Nd4j.create(m.dataType(), m.rows());
    int info = Nd4j.getBlasWrapper().lapack().syev('V', 'U', q, lambda);
    checkState(info == 0, "LAPACK syev failed with info=%s", info);
    return new SymmetricEigen(q, lambda);
  }

  /** Q, the eigenvectors as columns. */
  INDArray vectors() {
    return vectors;
  }

  /** λ as a row vector [1, n], ascending. */
  INDArray values() {
    return values.reshape(1, values.length());
  }

  /** The largest eigenvalue, i.e. the spectral norm of a positive semi-definite matrix. */
  double largest() {
    return values.getDouble(values.length() - 1);
  }
}
