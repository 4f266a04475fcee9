package org.dp4j.accounting.hiddenstate;


import java.util.ArrayList;
import java.util.List;

/**
 * Ye &amp; Shokri 2022, Thm 4.4 (Eqs. 11–12 = 103–104; docs/accountants.md#ye-shokri): fixed batches, λ-strongly convex and
 * β-smooth loss, η &lt; 2/(λ+β), m ≥ 2, K ≥ 1. For a record in batch j0,
 * ε_{j0}(α, K) = T1(K) + ε_0^{m−j0}(α) with ε_0^j = G(α)·r^{j−1}/S(j), r = (1 − ηλ)². The guarantee for every
 * record is the worst position j0 = m − 1 (ε_0^1 = G(α)): with a public batch order nothing is averaged.
 *
 * <pre>{@code
 * // given: YeShokriConfig config
 * YeShokriFixedBatchAccountant acc = new YeShokriFixedBatchAccountant(config);
 * double firstBatch = acc.rdpForBatch(0, 10.0);    // records in B^0
 * double everyRecord = acc.rdp(10.0);              // = acc.rdpForBatch(m − 1, 10.0)
 * }</pre>
 */
public final class YeShokriFixedBatchAccountant extends YeShokriBound {
  public static final String NAME = "ye-shokri-fixed-batches";
  public static final String THEOREM = "Ye & Shokri 2022, Thm 4.4, Eqs. (11)-(12) (docs/accountants.md#ye-shokri)";

  private final YeShokriDynamics dynamics;

  public YeShokriFixedBatchAccountant(YeShokriConfig config) {
    super(NAME, THEOREM, config);
    this.dynamics = new YeShokriDynamics(config, "Ye & Shokri Thm 4.4");
  }

  /** RDP at order α for records in batch j0 ∈ [0, m). */
  public double rdpForBatch(int j0, double alpha) {
    checkBatchPosition(j0, dynamics.stepsPerEpoch());
    checkOrder(alpha);
    return alpha == Double.POSITIVE_INFINITY ? Double.POSITIVE_INFINITY
        : batchBound(j0, alpha) + config().normalisationRdp(alpha);
  }

  private double batchBound(int j0, double alpha) {
    return dynamics.firstTerm(alpha) + dynamics.firstEpochRdp(dynamics.stepsPerEpoch() - j0, alpha);
  }

  /** The worst position j0 = m − 1. */
  @Override
  double boundAt(double alpha) {
    return batchBound(dynamics.stepsPerEpoch() - 1, alpha);
  }

  @Override
  List<String> theoremAssumptions() {
    List<String> list = new ArrayList<>(dynamics.assumptions());
    list.add(YeShokriDynamics.FIXED_BATCHES);
    return list;
  }
}
