package org.dp4j.accounting.ledger;

import java.util.List;
import java.util.Map;
import org.dp4j.accounting.NeighbouringRelation;
import org.dp4j.accounting.Orders;
import org.dp4j.accounting.RdpCurve;
import org.dp4j.accounting.ThreatModel;

/**
 * An accountant that a training loop advances one private update at a time. It holds the state of
 * one run (steps so far) for one fixed mechanism, and can tell the RDP curve the run would have after
 * more steps without taking them — which is what lets a budget guard stop <em>before</em> the step that
 * would exceed the budget.
 */
public interface StepAccountant {
  /** Short name, e.g. "sampled-gaussian-rdp". */
  String name();

  /** The theorem the bound rests on (paper, equation). */
  String theorem();

  ThreatModel threatModel();

  NeighbouringRelation relation();

  /** Conditions the bound needs; "conditional on asserted ..." where the user supplied constants. */
  List<String> assumptions();

  Orders orders();

  /** Private updates accounted so far. */
  long steps();

  /** RDP of the run so far. */
  RdpCurve curve();

  /** RDP the run would have after {@code more} further steps; does not change the state. */
  RdpCurve curveAfter(long more);

  /** Accounts {@code count} further steps. */
  void advance(long count);

  /**
   * The mechanism parameters this accountant assumes (e.g. "sgm(q=0.01, z=1.1)"), used to refuse
   * resuming a ledger under a different mechanism.
   */
  String mechanismDescription();

  /**
   * Each epoch's share of the current bound (Chen &amp; Liu, Fig. 1b), oldest first, as coefficients of α
   * in the RDP; empty if the accountant does not decompose its bound by epoch.
   */
  default double[] epochContributions() {
    return new double[0];
  }

  /** LSI constants of the released blocks after the steps so far, by block name; empty if none. */
  default Map<String, Double> lsiConstants() {
    return Map.of();
  }
}
