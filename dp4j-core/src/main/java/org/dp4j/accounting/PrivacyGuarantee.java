package org.dp4j.accounting;

import static com.google.common.base.Preconditions.checkNotNull;

import java.util.List;

/**
 * An (ε, δ) statement together with everything needed to read it honestly: the accountant and
 * theorem it comes from, the neighbouring relation, the threat model and the assumptions it is
 * conditional on.
 *
 * @param accountant short name of the accountant, e.g. "sampled-gaussian-rdp"
 * @param theorem the result the bound rests on, e.g. "Mironov, Talwar &amp; Zhang 2019"
 * @param bound ε, δ and the optimal order
 * @param rdp the Rényi curve the bound was converted from
 * @param relation neighbouring relation
 * @param threatModel what the adversary sees
 * @param assumptions conditions the bound needs (empty if none beyond the mechanism itself)
 */
public record PrivacyGuarantee(String accountant, String theorem, EpsilonDelta bound, RdpCurve rdp,
    NeighbouringRelation relation, ThreatModel threatModel, List<String> assumptions) {
  public PrivacyGuarantee {
    checkNotNull(accountant, "accountant");
    checkNotNull(theorem, "theorem");
    checkNotNull(bound, "bound");
    checkNotNull(rdp, "rdp");
    checkNotNull(relation, "relation");
    checkNotNull(threatModel, "threatModel");
    assumptions = List.copyOf(assumptions);
  }

  public double epsilon() {
    return bound.epsilon();
  }

  public double delta() {
    return bound.delta();
  }

  /** One line a person can read, e.g. "(ε = 2.597, δ = 1e-05) at α = 8.1; add/remove ...". */
  public String summary() {
    String eps = bound.isFinite() ? String.format("%.4f", bound.epsilon()) : "unbounded (+∞)";
    StringBuilder sb = new StringBuilder()
        .append("ε = ").append(eps).append(" at δ = ").append(bound.delta())
        .append(" (optimal order α = ").append(bound.order()).append(")")
        .append("; neighbours: ").append(relation.description())
        .append("; threat model: ").append(threatModel.description())
        .append("; accountant: ").append(accountant).append(" [").append(theorem).append("]");
    if (!assumptions.isEmpty()) {
      sb.append("; conditional on: ").append(String.join("; ", assumptions));
    }
    return sb.toString();
  }
}
