package org.dp4j.mbcd;

import org.dp4j.noise.NoiseSource;
import org.dp4j.prox.ProximalOperator;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * One released block W_d of a lifted network, acting on rows (one example per row, feature maps flattened
 * NCHW): u = W_d x + c_d with a linear part and a bias (Chen &amp; Liu Eq. 4; docs/errata.md#dp-mbcd-lifted-updates; docs/threat-models.md#dp-mbcd-auxiliaries). The
 * trainer needs three things from it, the same for dense and convolutional blocks:
 * <ul>
 *   <li>the x-update of its input, argmin_x ‖x − σ(u_{d−1})‖² + ‖u_d − W_d x − c_d‖² (Eq. 11);</li>
 *   <li>the batch mean of per-example gradients of (w/2)‖t − W_d x − c_d‖², each clipped to C (docs/errata.md#dp-mbcd-sensitivity),
 *       in the block's step coordinates;</li>
 *   <li>its parameters in step coordinates (where the noisy prox step of Eq. 14 and the accountant live) and
 *       in DL4J's layout (for export).</li>
 * </ul>
 */
interface LiftedBlock {
  /** Width of the input rows x_d. */
  int nIn();

  /** Width of the output rows u_d. */
  int nOut();

  /** Number of parameters (weights and biases). */
  long parameterCount();

  /** The linear part x ↦ W_d x (no bias). */
  LinearMap linearPart();

  /** c_d as a row [1, nOut] added to every output row. */
  INDArray biasRow();

  /** W_d x + c_d for a batch of rows x [b, nIn]: the pre-activations. */
  default INDArray apply(INDArray x) {
    return linearPart().apply(x).addiRowVector(biasRow());
  }

  /**
   * Eq. 11 for a hidden input: x = (W_dᵀW_d + I)⁻¹(W_dᵀ(u − c_d) + σ(u_{d−1})) per row (γ cancels), by
   * conjugate gradient with W_d and W_dᵀ as mat-vecs (docs/errata.md#dp-mbcd-convolution).
   */
  default INDArray solveInput(INDArray u, INDArray activatedPrev) {
    LinearMap a = linearPart();
    INDArray rhs = a.adjoint(u.subRowVector(biasRow())).addi(activatedPrev);
    return ConjugateGradient.solveShiftedNormal(a, rhs, ConjugateGradient.TOLERANCE,
        ConjugateGradient.MAX_ITERATIONS);
  }

  /**
   * Batch mean of the per-example gradients of (w/2)‖t_i − W_d x_i − c_d‖², each clipped to ℓ2 norm C in step
   * coordinates, as a flat row [1, parameterCount()] in the order of {@link #stepCoordinates()}.
   */
  INDArray clippedGradient(INDArray inputs, INDArray targets, double weight, double clipNorm);

  /**
   * The proximal-point block step of {@link BlockStepRule#PROXIMAL_POINT} in step coordinates (the paper's variant,
   * Eq. 17 as corrected in docs/errata.md#dp-mbcd-lifted-updates): θ' = Prox(argmin_z (1/2η)‖z − θ̂‖² + (μ/2)‖z‖² + (w/2b)Σ_i‖t_i − W x_i
   * − c‖²) at the noisy point θ̂ = θ + N(0, 2η·o·I). Data-dependent and unclipped: PAPER accounting only.
   */
  void proximalPointStep(INDArray inputs, INDArray targets, double weight, double eta, double mu,
      double temperature, ProximalOperator prox, NoiseSource noise);

  /** θ in the coordinates of the noisy proximal step (a copy). */
  INDArray stepCoordinates();

  /** Overwrites the block from θ in step coordinates. */
  void setStepCoordinates(INDArray theta);

  /** The block in the flat parameter order of its DL4J layer (a copy). */
  INDArray layerParameters();
}
