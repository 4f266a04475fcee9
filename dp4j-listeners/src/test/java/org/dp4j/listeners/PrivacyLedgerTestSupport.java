package org.dp4j.listeners;

import java.util.List;
import java.util.Map;
import org.dp4j.accounting.NeighbouringRelation;
import org.dp4j.accounting.Orders;
import org.dp4j.accounting.RdpCurve;
import org.dp4j.accounting.ThreatModel;
import org.dp4j.accounting.ledger.RdpStepAccountant;

/** Test doubles for ledger tests. */
final class PrivacyLedgerTestSupport {
  private PrivacyLedgerTestSupport() {}

  /** A hidden-state accountant whose bound is α/100 whatever the number of steps. */
  static final class ConstantHiddenState implements RdpStepAccountant {
    /** A test double covers no real run: the listener must be told to assume it ({@code assumeCovers}). */
    @Override public void requireCovers(org.dp4j.sampling.SamplingPlan plan, double noiseMultiplier) {
      throw new IllegalArgumentException("cannot check that accountant " + name() + " covers " + plan.describe());
    }
    private long steps;

    @Override public String name() { return "constant-hidden"; }
    @Override public String mechanismDescription() { return "test"; }
    @Override public String theorem() { return "test double"; }
    @Override public ThreatModel threatModel() { return ThreatModel.LAST_ITERATE_ONLY; }
    @Override public NeighbouringRelation relation() { return NeighbouringRelation.REPLACE_ONE; }
    @Override public List<String> assumptions() { return List.of("asserted for the test"); }
    @Override public Orders orders() { return Orders.DEFAULT; }
    @Override public long steps() { return steps; }
    @Override public RdpCurve curve() { return curveAfter(0); }
    @Override public RdpCurve curveAfter(long more) { return RdpCurve.tabulate(Orders.DEFAULT, a -> a / 100); }
    @Override public void advance(long count) { steps += count; }
    @Override public Map<String, Double> lsiConstants() { return Map.of("W1", 0.5); }
  }
}
