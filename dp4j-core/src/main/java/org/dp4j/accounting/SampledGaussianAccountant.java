package org.dp4j.accounting;

import static com.google.common.base.Preconditions.checkNotNull;
import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Composition accountant for DP-SGD: sums the exact per-step RDP of the sampled Gaussian mechanism
 * over all steps (phases with different q and z compose too) and converts to (ε, δ).
 *
 * <p>Theorem: Mironov, Talwar &amp; Zhang 2019 (exact SGM RDP) with RDP composition (Mironov 2017).
 * Neighbours: add/remove one record. Threat model: every iterate may be released. Assumptions: Poisson
 * sampling with rate q, per-example clipping to C, noise N(0, (zC)²) on the clipped sum; nothing about
 * the loss. Not valid for shuffled fixed-size batches (docs/sampling.md#poisson).
 *
 * <pre>{@code
 * SampledGaussianAccountant acc = new SampledGaussianAccountant(Orders.DEFAULT);
 * acc.compose(new SampledGaussianMechanism(256.0 / 60000, 1.1), 14063);
 * PrivacyGuarantee g = acc.guarantee(1e-5, RdpConversion.IMPROVED);
 * System.out.println(g.summary());   // ε = 2.5967 at δ = 1e-05 ...
 * }</pre>
 *
 * <p>Not thread-safe: one accountant per training run.
 */
public final class SampledGaussianAccountant {
  public static final String NAME = "sampled-gaussian-rdp";
  public static final String THEOREM =
      "exact sampled-Gaussian RDP (Mironov, Talwar & Zhang 2019) + RDP composition (Mironov 2017)";
  public static final List<String> ASSUMPTIONS = List.of(
      "Poisson sampling of each record with rate q, independently per step",
      "per-example gradients clipped to norm C; noise N(0, (zC)^2) added to the clipped sum");

  private final Orders orders;
  private final Map<SampledGaussianMechanism, RdpCurve> perStepCache = new LinkedHashMap<>();
  private RdpCurve total;
  private long steps;

  public SampledGaussianAccountant(Orders orders) {
    this.orders = checkNotNull(orders, "orders");
    this.total = RdpCurve.zero(orders);
  }

  /** Records {@code count} steps of the mechanism. */
  public SampledGaussianAccountant compose(SampledGaussianMechanism mechanism, long count) {
    checkNotNull(mechanism, "mechanism");
    checkArgument(count >= 0, "step count must be >= 0, was %s", count);
    total = total.plus(perStep(mechanism).times(count));
    steps += count;
    return this;
  }

  /** The RDP curve of {@code count} steps of the mechanism, without recording them. */
  public RdpCurve curveAfter(SampledGaussianMechanism mechanism, long count) {
    return total.plus(perStep(mechanism).times(count));
  }

  private RdpCurve perStep(SampledGaussianMechanism mechanism) {
    return perStepCache.computeIfAbsent(mechanism, m -> m.rdpPerStep(orders));
  }

  public Orders orders() {
    return orders;
  }

  public long steps() {
    return steps;
  }

  /** RDP of everything composed so far. */
  public RdpCurve curve() {
    return total;
  }

  /** The (ε, δ) guarantee of everything composed so far. */
  public PrivacyGuarantee guarantee(double delta, RdpConversion conversion) {
    return guaranteeOf(total, delta, conversion);
  }

  /** The guarantee for a curve produced by this accountant (e.g. {@link #curveAfter}). */
  public static PrivacyGuarantee guaranteeOf(RdpCurve curve, double delta, RdpConversion conversion) {
    return new PrivacyGuarantee(NAME, THEOREM, conversion.epsilon(curve, delta), curve,
        NeighbouringRelation.ADD_REMOVE, ThreatModel.ALL_ITERATES_RELEASED, ASSUMPTIONS);
  }
}
