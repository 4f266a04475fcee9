package org.dp4j.accounting.hiddenstate;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

import java.util.ArrayList;
import java.util.List;

/**
 * Ye &amp; Shokri 2022, Thm 4.3 (Eq. 9 = 93; docs/accountants.md#ye-shokri): fixed batches, convex β-smooth loss, η &lt; 2/β.
 * For a record in batch j0, ε ≤ G(α)·(K−1)/m + G(α)/(m − j0), from ε ≤ (K−1)·ε_0^m + ε_0^{m−j0} with
 * ε_0^j = G/j (Eqs. 95–102); the printed b/n is replaced by 1/m = 1/⌊n/b⌋, equal when b divides n and
 * never smaller. Grows linearly in K (no convergence). The guarantee for every record is the worst
 * position j0 = m − 1.
 *
 * <pre>{@code
 * YeShokriConvexFixedBatchAccountant acc = new YeShokriConvexFixedBatchAccountant(config);
 * double firstBatch = acc.rdpForBatch(0, 10.0);
 * }</pre>
 */
public final class YeShokriConvexFixedBatchAccountant implements YeShokriAccountant {
  public static final String NAME = "ye-shokri-convex-fixed-batches";
  public static final String THEOREM = "Ye & Shokri 2022, Thm 4.3, Eq. (9) (docs/accountants.md#ye-shokri)";

  private final YeShokriConfig config;

  public YeShokriConvexFixedBatchAccountant(YeShokriConfig config) {
    this.config = checkNotNull(config, "config");
    YeShokriDynamics.requireStepBelow(config.stepSize(), 2 / config.smoothness(), "2/β", "Ye & Shokri Thm 4.3");
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String theorem() {
    return THEOREM;
  }

  @Override
  public YeShokriConfig config() {
    return config;
  }

  /** RDP at order α for records in batch j0 ∈ [0, m). */
  public double rdpForBatch(int j0, double alpha) {
    int m = config.stepsPerEpoch();
    checkArgument(j0 >= 0 && j0 < m, "batch position j0 must be in [0, m = %s), was %s", m, j0);
    checkArgument(alpha > 1, "Rényi order must be > 1, was %s", alpha);
    if (alpha == Double.POSITIVE_INFINITY) {
      return Double.POSITIVE_INFINITY;
    }
    double g = config.stepRdp(alpha);
    return g * (config.epochs() - 1) / m + g / (m - j0) + config.normalisationRdp(alpha);
  }

  @Override
  public double rdp(double alpha) {
    return rdpForBatch(config.stepsPerEpoch() - 1, alpha);
  }

  @Override
  public List<String> assumptions() {
    List<String> list = new ArrayList<>(config.commonAssumptions());
    list.add(String.format("loss convex and β-smooth with β = %s (user-asserted); η < 2/β", config.smoothness()));
    list.add(YeShokriDynamics.FIXED_BATCHES);
    return list;
  }
}
