package org.dp4j.mbcd;

import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.ops.transforms.Transforms;

/**
 * The batch mean of per-example gradients, each clipped to ℓ2 norm C, of the least-squares block
 * objective f_i(A, c) = (w/2)‖x_i·A + c − t_i‖² (Chen &amp; Liu Lemma B.1 with the sign corrected:
 * ∇f = −w(t − Wx)xᵀ; docs/errata.md#dp-mbcd-sensitivity, #dp-mbcd-batch-mean). Per-example clipping makes the replace-one sensitivity of
 * the mean 2C/b, i.e. S_g = 2C.
 *
 * <p>For a hidden block d &lt; D: x = x_d, t = u_d, w = γ. For the output block: x = x_D, t = y, w = 1
 * (MSE). The per-example gradient is the outer product x_iᵀ r_i (and r_i for the bias) with
 * r_i = w(x_i A + c − t_i), so ‖g_i‖² = (‖x_i‖² + 1)‖r_i‖² and the clipped mean is one matrix product.
 */
final class ClippedBlockGradient {
  private final INDArray weightGradient;
  private final INDArray biasGradient;
  private final INDArray unclippedNorms;

  private ClippedBlockGradient(INDArray weightGradient, INDArray biasGradient,
      INDArray unclippedNorms) {
    this.weightGradient = weightGradient;
    this.biasGradient = biasGradient;
    this.unclippedNorms = unclippedNorms;
  }

  static ClippedBlockGradient compute(LinearBlock block, INDArray inputs, INDArray targets,
      double weight, double clipNorm) {
    INDArray residual = block.apply(inputs).subi(targets).muli(weight);
    return fromResiduals(inputs, residual, true, clipNorm);
  }

  /**
   * The softmax cross-entropy output block (x̃_i·Θ → p_i = softmax, labels y_i): per-example gradients
   * s_i·x̃_iᵀ(p_i − y_i) with the fixed weights s_i = min(1, C/(√2·‖x̃_i‖)), since ‖p − y‖₂ ≤ √2. Each s_i·CE_i is
   * convex and ½s_i(‖x̃_i‖²)-smooth, so the step keeps SAFE mode's L_F for β = ½(ρ² + 1), and ‖g_i‖ ≤ C (S_g = 2C).
   * Clipping g_i at its actual norm instead would make θ ↦ θ − η·ḡ(θ) expansive (the residual p − y is not the
   * gradient of a function whose clip is monotone).
   */
  static ClippedBlockGradient crossEntropy(LinearBlock block, INDArray inputs, INDArray labels, double clipNorm) {
    long b = inputs.rows();
    INDArray inputNorms = Transforms.sqrt(inputs.mul(inputs).sum(1).addi(1.0), false).reshape(b, 1);
    INDArray weights = Transforms.min(inputNorms.muli(Math.sqrt(2.0)).rdiv(clipNorm), 1.0, false);
    INDArray residual = Transforms.softmax(block.apply(inputs), false).subi(labels).muliColumnVector(weights);
    // the clip in fromResiduals is now inactive (‖g_i‖ ≤ C by construction) up to rounding
    return fromResiduals(inputs, residual, true, clipNorm);
  }

  /**
   * The clipped mean from the per-example residuals r_i (consumed): g_i = x_iᵀ r_i, plus r_i for a
   * bias if {@code withBias}, so ‖g_i‖² = (‖x_i‖² [+ 1])·‖r_i‖².
   */
  static ClippedBlockGradient fromResiduals(INDArray inputs, INDArray residual, boolean withBias,
      double clipNorm) {
    long b = inputs.rows();
    INDArray inputNormsSq = inputs.mul(inputs).sum(1).addi(withBias ? 1.0 : 0.0);
    INDArray residualNormsSq = residual.mul(residual).sum(1);
    INDArray norms = Transforms.sqrt(inputNormsSq.muli(residualNormsSq), false).reshape(b, 1);
    // min(1, C/‖g_i‖); a zero gradient gives C/0 = +∞ → 1
    INDArray scale = Transforms.min(norms.rdiv(clipNorm), 1.0, false);
    INDArray clipped = residual.muliColumnVector(scale);
    INDArray gw = inputs.transpose().mmul(clipped).divi(b);
    INDArray gb = clipped.sum(0).reshape(1, clipped.columns()).divi(b);
    return new ClippedBlockGradient(gw, gb, norms.reshape(b));
  }

  /** Mean clipped gradient for A [nIn, nOut]. */
  INDArray weightGradient() {
    return weightGradient;
  }

  /** Mean clipped gradient for c [1, nOut]. */
  INDArray biasGradient() {
    return biasGradient;
  }

  /** The mean clipped gradient in DL4J's flat order [1, nIn·nOut + nOut] (A in 'f' order, then c). */
  INDArray flat() {
    return Nd4j.toFlattened('f', weightGradient, biasGradient)
        .reshape(1, weightGradient.length() + biasGradient.length());
  }

  /** ‖g_i‖₂ before clipping, one per example. */
  INDArray unclippedNorms() {
    return unclippedNorms;
  }
}
