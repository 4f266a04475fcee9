package org.dp4j.accounting;

import static com.google.common.base.Preconditions.checkNotNull;
import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.List;
import java.util.Optional;

/**
 * An (ε, δ) statement together with everything needed to read it honestly: the accountant and
 * theorem it comes from, the neighbouring relation, the threat model and the assumptions it is
 * conditional on. The one guarantee type of every accountant: Rényi accountants carry the curve the
 * bound was converted from; the PLD accountant carries no curve but a certified lower ε (no valid ε at
 * this δ is smaller), so its discretisation error is visible.
 *
 * <pre>{@code
 * PrivacyGuarantee g = new SampledGaussianAccountant(Orders.DEFAULT)
 *     .compose(new SampledGaussianMechanism(256.0 / 60000, 1.1), 14063).guarantee(1e-5, RdpConversion.IMPROVED);
 * g.epsilon();          // 2.5967
 * g.optimalOrder();     // Optional[8.1]
 * }</pre>
 *
 * @param accountant short name of the accountant, e.g. "sampled-gaussian-rdp"
 * @param theorem the result the bound rests on, e.g. "Mironov, Talwar &amp; Zhang 2019"
 * @param bound ε, δ and (for Rényi bounds) the optimal order; NaN order for a PLD bound
 * @param curve the Rényi curve the bound was converted from, if it came from one
 * @param relation neighbouring relation
 * @param threatModel what the adversary sees
 * @param assumptions conditions the bound needs (empty if none beyond the mechanism itself)
 * @param epsilonLower a lower bound on the optimal ε of the mechanism at δ (0 when none is known)
 */
public record PrivacyGuarantee(String accountant, String theorem, EpsilonDelta bound, Optional<RdpCurve> curve,
    NeighbouringRelation relation, ThreatModel threatModel, List<String> assumptions, double epsilonLower) {
  public PrivacyGuarantee {
    checkNotNull(accountant, "accountant");
    checkNotNull(theorem, "theorem");
    checkNotNull(bound, "bound");
    checkNotNull(curve, "curve");
    checkNotNull(relation, "relation");
    checkNotNull(threatModel, "threatModel");
    checkArgument(epsilonLower >= 0 && epsilonLower <= bound.epsilon(),
        "epsilonLower must be in [0, epsilon = %s], was %s", bound.epsilon(), epsilonLower);
    assumptions = List.copyOf(assumptions);
  }

  /** A Rényi bound converted from {@code rdp}. */
  public PrivacyGuarantee(String accountant, String theorem, EpsilonDelta bound, RdpCurve rdp,
      NeighbouringRelation relation, ThreatModel threatModel, List<String> assumptions) {
    this(accountant, theorem, bound, Optional.of(checkNotNull(rdp, "rdp")), relation, threatModel, assumptions, 0);
  }

  public double epsilon() {
    return bound.epsilon();
  }

  public double delta() {
    return bound.delta();
  }

  public boolean isFinite() {
    return bound.isFinite();
  }

  /** The Rényi curve of a Rényi bound. @throws IllegalStateException for a bound that has none (PLD) */
  public RdpCurve rdp() {
    return curve.orElseThrow(() -> new IllegalStateException(
        "the " + accountant + " bound is not converted from a Rényi curve"));
  }

  /** The Rényi order that attained ε, for a Rényi bound. */
  public Optional<Double> optimalOrder() {
    return curve.map(c -> bound.order());
  }

  /** One line a person can read, e.g. "ε = 2.5967 at δ = 1e-05 (optimal order α = 8.1); neighbours: ...". */
  public String summary() {
    String eps = bound.isFinite() ? String.format("%.4f", bound.epsilon()) : "unbounded (+∞)";
    StringBuilder sb = new StringBuilder().append("ε = ").append(eps).append(" at δ = ").append(bound.delta());
    optimalOrder().ifPresent(order -> sb.append(" (optimal order α = ").append(order).append(")"));
    if (epsilonLower > 0) {
      sb.append(String.format(" (certified upper bound; optimal ε ≥ %.4f)", epsilonLower));
    }
    sb.append("; neighbours: ").append(relation.description())
        .append("; threat model: ").append(threatModel.description())
        .append("; accountant: ").append(accountant).append(" [").append(theorem).append("]");
    if (!assumptions.isEmpty()) {
      sb.append("; conditional on: ").append(String.join("; ", assumptions));
    }
    return sb.toString();
  }
}
