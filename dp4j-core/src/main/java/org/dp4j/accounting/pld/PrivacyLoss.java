package org.dp4j.accounting.pld;

import static com.google.common.base.Preconditions.checkNotNull;
import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.List;
import org.dp4j.accounting.event.GroupPrivacy;
import org.dp4j.accounting.event.PrivacyUnit;

/**
 * The composed privacy-loss distributions of a run in both add/remove directions, ready for any
 * number of ε(δ) / δ(ε) queries. Made by {@link PldAccountant#compose}.
 *
 * <p>Every query bounds each direction with {@link ComposedPld}'s inequalities, choosing the
 * Hoeffding failure probability η from a small set per query, and takes the maximum over
 * directions (an add/remove guarantee must hold for both).
 *
 * <pre>{@code
 * PrivacyLoss loss = PldAccountant.withDefaults().compose(DpEvent.sampledGaussian(0.01, 1.0).times(1000));
 * PldGuarantee g = loss.epsilon(1e-5);            // g.epsilon() certified, g.epsilonLower() ≤ optimal
 * double d = loss.deltaUpper(1.0);                // certified δ at ε = 1
 * }</pre>
 */
public final class PrivacyLoss {
  private static final double[] ETA_FRACTIONS = {0.3, 0.1, 1e-2, 1e-3, 1e-4, 1e-6, 1e-9};

  private final ComposedPld remove;
  private final ComposedPld add;
  private final long steps;
  private final List<String> assumptions;

  PrivacyLoss(ComposedPld remove, ComposedPld add, long steps, List<String> assumptions) {
    this.remove = checkNotNull(remove);
    this.add = checkNotNull(add);
    this.steps = steps;
    this.assumptions = List.copyOf(assumptions);
  }

  public long steps() {
    return steps;
  }

  public double interval() {
    return remove.interval();
  }

  /** The composed PLD of one direction (for inspection and tests). */
  public ComposedPld direction(LossDirection direction) {
    return direction == LossDirection.REMOVE ? remove : add;
  }

  /** Record-level add/remove guarantee at δ. */
  public PldGuarantee epsilon(double delta) {
    return epsilon(delta, PrivacyUnit.RECORD);
  }

  /**
   * Guarantee at δ for the given unit. Record-level add/remove: the PLD bracket. Other units:
   * group privacy ({@link GroupPrivacy#epsilon}) applied to the certified δ(ε) profile; the lower
   * bound is then 0 (none known).
   */
  public PldGuarantee epsilon(double delta, PrivacyUnit unit) {
    checkArgument(delta > 0 && delta < 1, "delta must be in (0, 1), was %s", delta);
    checkNotNull(unit, "unit");
    if (unit.isRecordLevelAddRemove()) {
      double upper = Math.max(epsilonUpper(remove, delta), epsilonUpper(add, delta));
      double lower = Math.max(epsilonLower(remove, delta), epsilonLower(add, delta));
      return new PldGuarantee(upper, Math.min(lower, upper), delta, unit, interval(), steps, assumptions);
    }
    int d = unit.addRemoveDistance();
    double upper = GroupPrivacy.epsilon(this::deltaUpper, d, delta);
    List<String> withGroup = new java.util.ArrayList<>(assumptions);
    withGroup.add("group privacy over " + d + " add/remove steps: (d·ε, δ·Σ_{i<d} e^{iε}) from the record-level "
        + "PLD bound");
    return new PldGuarantee(upper, 0, delta, unit, interval(), steps, withGroup);
  }

  /** A certified δ such that the run is (ε, δ)-DP for record-level add/remove neighbours. */
  public double deltaUpper(double epsilon) {
    checkArgument(epsilon >= 0 && Double.isFinite(epsilon), "epsilon must be finite and >= 0, was %s", epsilon);
    return Math.max(deltaUpper(remove, epsilon), deltaUpper(add, epsilon));
  }

  /** A lower bound on the optimal δ(ε) of the run (record-level add/remove). */
  public double deltaLower(double epsilon) {
    checkArgument(epsilon >= 0 && Double.isFinite(epsilon), "epsilon must be finite and >= 0, was %s", epsilon);
    return Math.max(deltaLower(remove, epsilon), deltaLower(add, epsilon));
  }

  private static double slackUp(ComposedPld c) {
    return c.upperTail() + c.roundoff();
  }

  private static double slackDown(ComposedPld c) {
    return c.upperTail() + c.lowerTail() + c.roundoff() + c.movedMass();
  }

  private static double epsilonUpper(ComposedPld c, double delta) {
    double best = Double.POSITIVE_INFINITY;
    for (double f : ETA_FRACTIONS) {
      double eta = f * delta;
      double rest = delta - eta - slackUp(c);
      if (rest > 0) {
        best = Math.min(best, c.couplingDeviation(eta) + c.computedEpsilon(rest));
      }
    }
    return best;
  }

  private static double epsilonLower(ComposedPld c, double delta) {
    double best = 0;
    for (double f : ETA_FRACTIONS) {
      double eta = f * delta;
      double target = delta + eta + slackDown(c);
      if (target < 1) {
        best = Math.max(best, c.computedEpsilon(target) - c.couplingDeviation(eta));
      }
    }
    return best;
  }

  private static double deltaUpper(ComposedPld c, double epsilon) {
    double best = 1;
    for (double eta : new double[] {1e-6, 1e-8, 1e-10, 1e-12, 1e-14}) {
      double shifted = Math.max(0, epsilon - c.couplingDeviation(eta));
      best = Math.min(best, c.computedDelta(shifted) + eta + slackUp(c));
    }
    return best;
  }

  private static double deltaLower(ComposedPld c, double epsilon) {
    double best = 0;
    for (double eta : new double[] {1e-6, 1e-8, 1e-10, 1e-12, 1e-14}) {
      double shifted = epsilon + c.couplingDeviation(eta);
      best = Math.max(best, c.computedDelta(shifted) - eta - slackDown(c));
    }
    return best;
  }
}
