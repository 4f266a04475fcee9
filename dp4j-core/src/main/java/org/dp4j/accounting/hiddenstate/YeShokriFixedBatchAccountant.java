package org.dp4j.accounting.hiddenstate;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

import java.util.ArrayList;
import java.util.List;

/**
 * Ye &amp; Shokri 2022, Thm 4.4 (Eqs. 11–12 = 103–104; docs/accountants.md#ye-shokri): fixed batches, λ-strongly convex and
 * β-smooth loss, η &lt; 2/(λ+β), m ≥ 2, K ≥ 1. For a record in batch j0,
 * ε_{j0}(α, K) = T1(K) + ε_0^{m−j0}(α) with ε_0^j = G(α)·r^{j−1}/S(j), r = (1 − ηλ)². The guarantee for every
 * record is the worst position j0 = m − 1 (ε_0^1 = G(α)): with a public batch order nothing is averaged.
 *
 * <pre>{@code
 * YeShokriFixedBatchAccountant acc = new YeShokriFixedBatchAccountant(config);
 * double firstBatch = acc.rdpForBatch(0, 10.0);    // records in B^0
 * double everyRecord = acc.rdp(10.0);              // = acc.rdpForBatch(m − 1, 10.0)
 * }</pre>
 */
public final class YeShokriFixedBatchAccountant implements YeShokriAccountant {
  public static final String NAME = "ye-shokri-fixed-batches";
  public static final String THEOREM = "Ye & Shokri 2022, Thm 4.4, Eqs. (11)-(12) (docs/accountants.md#ye-shokri)";

  private final YeShokriConfig config;
  private final YeShokriDynamics dynamics;

  public YeShokriFixedBatchAccountant(YeShokriConfig config) {
    this.config = checkNotNull(config, "config");
    this.dynamics = new YeShokriDynamics(config, "Ye & Shokri Thm 4.4");
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
    int m = dynamics.stepsPerEpoch();
    checkArgument(j0 >= 0 && j0 < m, "batch position j0 must be in [0, m = %s), was %s", m, j0);
    checkArgument(alpha > 1, "Rényi order must be > 1, was %s", alpha);
    if (alpha == Double.POSITIVE_INFINITY) {
      return Double.POSITIVE_INFINITY;
    }
    return dynamics.firstTerm(alpha) + dynamics.firstEpochRdp(m - j0, alpha) + config.normalisationRdp(alpha);
  }

  @Override
  public double rdp(double alpha) {
    return rdpForBatch(dynamics.stepsPerEpoch() - 1, alpha);
  }

  @Override
  public List<String> assumptions() {
    List<String> list = new ArrayList<>(config.commonAssumptions());
    list.addAll(dynamics.assumptions());
    list.add(YeShokriDynamics.FIXED_BATCHES);
    return list;
  }
}
