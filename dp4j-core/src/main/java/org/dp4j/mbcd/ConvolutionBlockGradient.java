package org.dp4j.mbcd;

import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.ops.transforms.Transforms;

/**
 * The batch mean of per-example gradients of f_i = (w/2)‖W_mat·P(x_i) + b − t_i‖² for a {@link ConvolutionBlock},
 * each clipped to ℓ2 norm C in the block's step coordinates (Chen &amp; Liu Lemma B.1 through im2col, sign
 * corrected; digest 003 §2.5, P6, P7). With R_i [L, c_out] the weighted residuals at the L positions and
 * P_i [L, K] the patches: G_i = R_iᵀP_i, g_i = R_iᵀ1, and in step coordinates (G_i/√m, g_i/√L) with
 * squared norm ‖G_i‖²/m + ‖g_i‖²/L. The G_i are materialised only for their norms (batched products); the
 * clipped sum Σ s_iR_iᵀP_i is one matrix product over the batch. S_g = 2C as for dense blocks.
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
    INDArray weightNorms = Nd4j.matmul(perExample, patches, true, false, false).norm2(1, 2);
    INDArray biasNorms = perExample.sum(1).norm2(1);
    double m = g.coverage();
    INDArray normsSq = weightNorms.muli(weightNorms).divi(m)
        .addi(biasNorms.muli(biasNorms).divi(positions));
    INDArray norms = Transforms.sqrt(normsSq, false).reshape(b, 1);
    // min(1, C/‖g_i‖); a zero gradient gives C/0 = +∞ → 1
    INDArray scale = Transforms.min(norms.rdiv(clipNorm), 1.0, false);
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

  /** ‖(G_i/√m, g_i/√L)‖₂ before clipping, one per example. */
  INDArray unclippedNorms() {
    return unclippedNorms;
  }
}
