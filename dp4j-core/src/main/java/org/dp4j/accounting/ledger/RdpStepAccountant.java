package org.dp4j.accounting.ledger;

import org.dp4j.accounting.Orders;
import org.dp4j.accounting.PrivacyGuarantee;
import org.dp4j.accounting.RdpConversion;
import org.dp4j.accounting.RdpCurve;

/**
 * A {@link StepAccountant} whose bound is a Rényi curve, converted to (ε, δ) by the ledger's conversion.
 *
 * <pre>{@code
 * RdpStepAccountant acc = new CompositionStepAccountant(new SampledGaussianMechanism(256.0 / 60000, 1.1),
 *     Orders.DEFAULT);
 * acc.advance(14063);
 * acc.guaranteeAfter(0, 1e-5, RdpConversion.IMPROVED).epsilon();   // 2.5967
 * }</pre>
 */
public interface RdpStepAccountant extends StepAccountant {
  Orders orders();

  /** RDP of the run so far. */
  default RdpCurve curve() {
    return curveAfter(0);
  }

  /** RDP the run would have after {@code more} further steps; does not change the state. */
  RdpCurve curveAfter(long more);

  @Override
  default PrivacyGuarantee guaranteeAfter(long more, double delta, RdpConversion conversion) {
    RdpCurve curve = curveAfter(more); // once: for a hidden-state accountant it costs O(N) per order
    return new PrivacyGuarantee(name(), theorem(), conversion.epsilon(curve, delta), curve, relation(),
        threatModel(), assumptions());
  }
}
