package org.dp4j.accounting.hiddenstate;


import java.util.List;

/**
 * Ye &amp; Shokri 2022, Thm 4.3 (Eq. 9 = 93; docs/accountants.md#ye-shokri): fixed batches, convex β-smooth loss, η &lt; 2/β.
 * For a record in batch j0, ε ≤ G(α)·(K−1)/m + G(α)/(m − j0), from ε ≤ (K−1)·ε_0^m + ε_0^{m−j0} with
 * ε_0^j = G/j (Eqs. 95–102); the printed b/n is replaced by 1/m = 1/⌊n/b⌋, equal when b divides n and
 * never smaller. Grows linearly in K (no convergence). The guarantee for every record is the worst
 * position j0 = m − 1.
 *
 * <pre>{@code
 * // given: YeShokriConfig config
 * YeShokriConvexFixedBatchAccountant acc = new YeShokriConvexFixedBatchAccountant(config);
 * double firstBatch = acc.rdpForBatch(0, 10.0);
 * }</pre>
 */
public final class YeShokriConvexFixedBatchAccountant extends YeShokriBound {
  public static final String NAME = "ye-shokri-convex-fixed-batches";
  public static final String THEOREM = "Ye & Shokri 2022, Thm 4.3, Eq. (9) (docs/accountants.md#ye-shokri)";

  public YeShokriConvexFixedBatchAccountant(YeShokriConfig config) {
    super(NAME, THEOREM, config);
    YeShokriDynamics.requireStepBelow(config.stepSize(), 2 / config.smoothness(), "2/β", "Ye & Shokri Thm 4.3");
  }

  /** RDP at order α for records in batch j0 ∈ [0, m). */
  public double rdpForBatch(int j0, double alpha) {
    checkBatchPosition(j0, config().stepsPerEpoch());
    checkOrder(alpha);
    return alpha == Double.POSITIVE_INFINITY ? Double.POSITIVE_INFINITY
        : batchBound(j0, alpha) + config().normalisationRdp(alpha);
  }

  private double batchBound(int j0, double alpha) {
    int m = config().stepsPerEpoch();
    double g = config().stepRdp(alpha);
    return g * (config().epochs() - 1) / m + g / (m - j0);
  }

  /** The worst position j0 = m − 1. */
  @Override
  double boundAt(double alpha) {
    return batchBound(config().stepsPerEpoch() - 1, alpha);
  }

  @Override
  List<String> theoremAssumptions() {
    return List.of(
        String.format("loss convex and β-smooth with β = %s (user-asserted); η < 2/β", config().smoothness()),
        YeShokriDynamics.FIXED_BATCHES);
  }
}
