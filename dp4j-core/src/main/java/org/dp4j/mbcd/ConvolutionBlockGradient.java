package org.dp4j.mbcd;

import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.ops.transforms.Transforms;

/**
 * The batch mean of per-example gradients of Huberised block losses for a {@link ConvolutionBlock}, bounded by C
 * in the block's step coordinates (Chen &amp; Liu Lemma B.1 through im2col, sign corrected;
 * docs/errata.md#dp-mbcd-lifted-updates, #dp-mbcd-lipschitz-f, #dp-mbcd-sensitivity, #dp-mbcd-batch-mean). With R_i [L, c_out] the weighted residuals w(W_mat·P_i + b − t_i) at the L positions and P_i [L, K] the
 * patches, the block maps θ̃ = (√L·b, √m·W) to outputs by an operator M_i with ‖M_i‖₂ ≤ a_i = √(1 + ‖P_i‖_F²/m)
 * (Frobenius bound, per output channel), and the least-squares gradient is M_iᵀR_i.
 *
 * <p>The residual, not the gradient, is clipped: R_i ← R_i·min(1, (C/a_i)/‖R_i‖_F). Then g_i = M_iᵀR_i is the
 * gradient of w·H_κ(M_iθ̃ − t_i) (H_κ the Huber function of the vector norm, κ = C/(w·a_i), a constant of the
 * example), which is convex with Hessian ⪯ w·M_iᵀM_i, so the block stays w(ρ² + 1)-smooth and θ̃ − η·ḡ keeps SAFE
 * mode's L_F, and ‖g_i‖ ≤ a_i·C/a_i = C, so S_g = 2C. Clipping g_i itself would give the same norm bound but a map
 * θ̃ ↦ clip(M_iᵀR_i(θ̃)) that is not monotone when M_iᵀM_i has distinct eigenvalues: the step could expand and the
 * certified L_F would be false. (For dense blocks the two coincide, since there g_i = x̃_i⊗r_i.)
 */
final class ConvolutionBlockGradient {
  private final INDArray flat;
  private final INDArray unclippedNorms;

  private ConvolutionBlockGradient(INDArray flat, INDArray unclippedNorms) {
    this.flat = flat;
    this.unclippedNorms = unclippedNorms;
  }

  static ConvolutionBlockGradient compute(ConvolutionBlock block, INDArray inputs, INDArray targets,
      double weight, double clipNorm) {
    long b = inputs.rows();
    ConvolutionGeometry g = block.geometry();
    long positions = g.positions();
    INDArray patches = block.patches(inputs);                                  // [b, L, K]
    INDArray flatPatches = patches.reshape('c', b * positions, g.patchSize());
    INDArray residual = flatPatches.mmul(block.weights().transpose()).addiRowVector(block.bias())
        .subi(block.rowsToPositions(targets)).muli(weight);                     // [b·L, c_out]
    INDArray perExample = residual.reshape('c', b, positions, block.outChannels());
    double m = g.coverage();
    // a_i = √(1 + ‖P_i‖_F²/m) ≥ ‖M_i‖₂, and the exact step-coordinate gradient norms (for diagnostics)
    INDArray patchNormsSq = patches.norm2(1, 2);
    INDArray bound = Transforms.sqrt(patchNormsSq.muli(patchNormsSq).divi(m).addi(1.0), false).reshape(b, 1);
    INDArray weightNorms = Nd4j.matmul(perExample, patches, true, false, false).norm2(1, 2);
    INDArray biasNorms = perExample.sum(1).norm2(1);
    INDArray normsSq = weightNorms.muli(weightNorms).divi(m)
        .addi(biasNorms.muli(biasNorms).divi(positions));
    INDArray norms = Transforms.sqrt(normsSq, false).reshape(b, 1);
    // min(1, (C/a_i)/‖R_i‖); a zero residual gives +∞ → 1
    INDArray residualNorms = perExample.norm2(1, 2).reshape(b, 1);
    INDArray scale = Transforms.min(residualNorms.muli(bound).rdiv(clipNorm), 1.0, false);
    INDArray scaled = perExample.muli(scale.reshape(b, 1, 1)).reshape('c', b * positions,
        block.outChannels());
    INDArray meanWeights = scaled.transpose().mmul(flatPatches).divi(b * Math.sqrt(m));
    INDArray meanBias = scaled.sum(0).reshape(1, block.outChannels()).divi(b * Math.sqrt(positions));
    INDArray flat = Nd4j.hstack(meanBias, meanWeights.reshape(1, meanWeights.length()));
    return new ConvolutionBlockGradient(flat, norms.reshape(b));
  }

  /** The clipped mean in step coordinates, flat [1, P] in {@link ConvolutionBlock#stepCoordinates()} order. */
  INDArray flat() {
    return flat;
  }

  /** ‖(G_i/√m, g_i/√L)‖₂ before the residual clip, one per example. */
  INDArray unclippedNorms() {
    return unclippedNorms;
  }
}
