package org.dp4j.accounting;

import static org.dp4j.InvalidSettingException.checkArgument;

/**
 * An (ε, δ) pair obtained from an RDP curve, with the order that attained it.
 *
 * @param epsilon ε ≥ 0, or +∞ when no order gives a finite bound
 * @param delta δ in (0, 1)
 * @param order the Rényi order α at which the minimum was attained
 * @param orderOnGridEdge true when α is the smallest or largest order of the grid: a wider grid
 *     might give a smaller ε, so callers should warn
 */
public record EpsilonDelta(double epsilon, double delta, double order, boolean orderOnGridEdge) {
  public EpsilonDelta {
    checkArgument(epsilon >= 0, "epsilon must be >= 0, was %s", epsilon);
    checkArgument(delta >= 0 && delta <= 1, "delta must be in [0, 1], was %s", delta);
  }

  public boolean isFinite() {
    return Double.isFinite(epsilon);
  }
}
