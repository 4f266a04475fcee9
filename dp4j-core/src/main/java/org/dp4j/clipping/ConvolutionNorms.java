package org.dp4j.clipping;

/**
 * How {@link ConvolutionGradients} computes per-example weight-gradient norms of a convolution with P output
 * positions, K = inChannels·kH·kW and {@code out} channels. MATERIALISED forms G_i = δ_iᵀX_i (P·K·out
 * multiply-adds per example); GRAM uses ‖δ_iᵀX_i‖_F² = ⟨X_iX_iᵀ, δ_iδ_iᵀ⟩ without forming G_i (P²·(K + out);
 * Rochette et al. 2019 "Efficient per-example gradient computations in convolutional neural networks", the
 * unfold/Gram trick); BY_COST picks the cheaper of the two for each layer.
 */
enum ConvolutionNorms {
  BY_COST, MATERIALISED, GRAM;

  /** Whether a layer of these dimensions uses the Gram form. */
  boolean useGram(long positions, long patchSize, long outChannels) {
    return switch (this) {
      case MATERIALISED -> false;
      case GRAM -> true;
      case BY_COST -> positions * (patchSize + outChannels) < patchSize * outChannels;
    };
  }
}
