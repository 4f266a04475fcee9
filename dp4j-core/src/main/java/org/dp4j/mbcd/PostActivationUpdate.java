package org.dp4j.mbcd;

import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * The x-update of the lifted network, for a batch of rows (Chen &amp; Liu Eq. 11;
 * docs/errata.md#dp-mbcd-lifted-updates): one linear solve per layer and batch, with all examples as right-hand sides.
 * <ul>
 *   <li>hidden x_d (1 ≤ d &lt; D): x_d = (W_dᵀW_d + I)⁻¹(W_dᵀ(u_d − c_d) + σ(u_{d−1})), γ cancels;</li>
 *   <li>output x_D, R = ½‖W_D x_D + c_D − y‖²: x_D = (W_DᵀW_D + γI)⁻¹(W_Dᵀ(y − c_D) + γσ(u_{D−1})).</li>
 * </ul>
 */
final class PostActivationUpdate {
  private PostActivationUpdate() {}

  /** x_d from the next block W_d, its stored pre-activations u_d and σ(u_{d−1}); rows are examples. */
  static INDArray hidden(LinearBlock next, INDArray u, INDArray activatedPrev) {
    INDArray rhs = u.subRowVector(next.bias()).mmul(next.weights().transpose()).addi(activatedPrev);
    return solveShifted(next.weights(), rhs, 1.0);
  }

  /** x_D from the output block W_D, the labels y and σ(u_{D−1}), for MSE loss and penalty γ. */
  static INDArray output(LinearBlock out, INDArray labels, INDArray activatedPrev, double gamma) {
    INDArray rhs = labels.subRowVector(out.bias()).mmul(out.weights().transpose())
        .addi(activatedPrev.mul(gamma));
    return solveShifted(out.weights(), rhs, gamma);
  }

  /** rhs·(A·Aᵀ + shift·I)⁻¹ for A [n, m] and rhs [b, n]: one factorisation, b right-hand sides. */
  private static INDArray solveShifted(INDArray a, INDArray rhs, double shift) {
    INDArray m = a.mmul(a.transpose());
    m.addi(Nd4j.eye(m.rows()).castTo(m.dataType()).muli(shift));
    // one LAPACK eigendecomposition M = Q·diag(λ)·Qᵀ (M is SPD with λ ≥ shift), then
    // rhs·M⁻¹ = ((rhs·Q)·diag(1/λ))·Qᵀ by two GEMMs for all rows. ND4J's generic solve/inverse ops
    // were ~100x slower, and its trsm binding rejects its arguments.
    SymmetricEigen eigen = SymmetricEigen.of(m);
    INDArray q = eigen.vectors();
    return rhs.mmul(q).muliRowVector(eigen.values().rdiv(1.0)).mmul(q.transpose());
  }
}
