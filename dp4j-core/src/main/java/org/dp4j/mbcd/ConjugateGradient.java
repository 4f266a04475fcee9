package org.dp4j.mbcd;

import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.ops.transforms.Transforms;

/**
 * Matrix-free conjugate gradient for (AᵀA + I)x = r, one independent system per row, all rows advanced
 * together (Hestenes–Stiefel; the x-update of a convolutional lifted layer, docs/errata.md#dp-mbcd-convolution). The matrix has
 * eigenvalues in [1, 1 + ‖A‖²], so CG converges at the rate of √(1 + ‖A‖²). A row stops improving once its
 * residual is below {@code tolerance}·‖r‖; the iteration cap bounds the work. The x-update is a hidden
 * auxiliary, so an inexact solve costs accuracy, never privacy.
 */
final class ConjugateGradient {
  /** Default relative residual at which a row counts as solved. */
  static final double TOLERANCE = 1e-6;
  /** Default cap on iterations. */
  static final int MAX_ITERATIONS = 200;
  /** Guards 0/0 for rows that are already exact (representable in float). */
  private static final double TINY = 1e-30;

  private ConjugateGradient() {}

  /** x with (AᵀA + I)x = rhs for every row of rhs [b, n]; a new array. */
  static INDArray solveShiftedNormal(LinearMap a, INDArray rhs, double tolerance, int maxIterations) {
    long b = rhs.rows();
    INDArray x = rhs.mul(0.0);
    INDArray r = rhs.dup();
    INDArray p = rhs.dup();
    INDArray rs = squaredRowNorms(r);
    INDArray target = rs.mul(tolerance * tolerance);
    for (int it = 0; it < maxIterations; it++) {
      if (rs.sub(target).maxNumber().doubleValue() <= 0) {
        break;
      }
      INDArray ap = a.adjoint(a.apply(p)).addi(p);
      INDArray pap = p.mul(ap).sum(1).reshape(b, 1);
      INDArray alpha = rs.div(Transforms.max(pap, TINY, false));
      x.addi(p.mulColumnVector(alpha));
      r.subi(ap.muliColumnVector(alpha));
      INDArray next = squaredRowNorms(r);
      INDArray beta = next.div(Transforms.max(rs, TINY, false));
      p = p.muliColumnVector(beta).addi(r);
      rs = next;
    }
    return x;
  }

  private static INDArray squaredRowNorms(INDArray rows) {
    return rows.mul(rows).sum(1).reshape(rows.rows(), 1);
  }
}
