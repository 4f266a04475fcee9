package org.dp4j.accounting.ledger;

import static com.google.common.base.Preconditions.checkNotNull;
import static org.dp4j.InvalidSettingException.checkArgument;

import org.dp4j.accounting.ThreatModel;

/**
 * A privacy budget (ε, δ) and the threat model it is spent under. A budget for "only the last iterate
 * released" may be met by hidden-state or composition bounds (composition covers the weaker threat
 * model too); a budget for "all iterates released" only by composition bounds.
 */
public record PrivacyBudget(double epsilon, double delta, ThreatModel threatModel) {
  public PrivacyBudget {
    checkArgument(epsilon > 0 && Double.isFinite(epsilon), "budget epsilon must be finite and > 0, was %s", epsilon);
    checkArgument(delta > 0 && delta < 1, "budget delta must be in (0, 1), was %s", delta);
    checkNotNull(threatModel, "threatModel");
  }
}
