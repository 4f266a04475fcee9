package org.dp4j.accounting.pld;

import static com.google.common.base.Preconditions.checkNotNull;
import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.List;
import java.util.Optional;
import org.dp4j.accounting.EpsilonDelta;
import org.dp4j.accounting.PrivacyGuarantee;
import org.dp4j.accounting.ThreatModel;
import org.dp4j.accounting.event.PrivacyUnit;

/**
 * An (ε, δ) guarantee from the PLD accountant with its error made explicit: the mechanism is
 * (epsilon, delta)-DP for the stated unit (a proven upper bound, never an estimate), and no ε below
 * {@code epsilonLower} is valid at this δ for record-level add/remove (0 when no lower bound is known,
 * e.g. for groups).
 *
 * <pre>{@code
 * PldGuarantee g = PldAccountant.withDefaults().compose(DpEvent.gaussian(10).times(100)).epsilon(1e-5);
 * g.epsilon();       // 4.3818 ≥ exact 4.3772 (μ = 1 Gaussian DP)
 * g.epsilonLower();  // 4.3725 ≤ exact
 * }</pre>
 *
 * @param epsilon certified upper bound on ε(δ) (+∞ if none)
 * @param epsilonLower lower bound on the optimal ε(δ) of the mechanism, ≤ epsilon
 * @param delta δ in (0, 1)
 * @param unit neighbouring relation and records per user
 * @param interval grid spacing Δ of the discretised loss
 * @param steps number of mechanism steps composed
 * @param assumptions what the bound rests on
 */
public record PldGuarantee(double epsilon, double epsilonLower, double delta, PrivacyUnit unit, double interval,
    long steps, List<String> assumptions) {
  public PldGuarantee {
    checkArgument(epsilon >= 0, "epsilon must be >= 0 (or +Infinity), was %s", epsilon);
    checkArgument(epsilonLower >= 0 && epsilonLower <= epsilon, "epsilonLower must be in [0, epsilon = %s], was %s",
        epsilon, epsilonLower);
    checkArgument(delta > 0 && delta < 1, "delta must be in (0, 1), was %s", delta);
    checkNotNull(unit, "unit");
    assumptions = List.copyOf(assumptions);
  }

  public boolean isFinite() {
    return Double.isFinite(epsilon);
  }

  /** epsilon − epsilonLower: how far the certified ε can be above the optimal one. */
  public double errorBound() {
    return epsilon - epsilonLower;
  }

  public ThreatModel threatModel() {
    return ThreatModel.ALL_ITERATES_RELEASED;
  }

  /** One line a person can read. */
  public String summary() {
    String eps = isFinite() ? String.format("%.4f", epsilon) : "unbounded (+∞)";
    String lower = epsilonLower > 0 ? " (optimal ε ≥ " + String.format("%.4f", epsilonLower) + ")" : "";
    return "ε ≤ " + eps + " at δ = " + delta + lower + "; neighbours: " + unit.description()
        + "; threat model: " + threatModel().description()
        + "; accountant: " + PldAccountant.NAME + " [" + PldAccountant.THEOREM + "]"
        + "; conditional on: " + String.join("; ", assumptions);
  }

  /**
   * The same bound as dp4j's one guarantee type (no Rényi curve, order NaN, the lower ε kept). Its relation is
   * the unit's; a user-level unit is named in the assumptions.
   */
  public PrivacyGuarantee asPrivacyGuarantee() {
    List<String> all = new java.util.ArrayList<>(assumptions);
    if (unit.recordsPerUser() > 1) {
      all.add("privacy unit: " + unit.description());
    }
    return new PrivacyGuarantee(PldAccountant.NAME, PldAccountant.THEOREM,
        new EpsilonDelta(epsilon, delta, Double.NaN, false), Optional.empty(), unit.relation(), threatModel(), all,
        epsilonLower);
  }
}
