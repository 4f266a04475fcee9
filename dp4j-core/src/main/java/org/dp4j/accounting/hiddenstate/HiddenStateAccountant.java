package org.dp4j.accounting.hiddenstate;

import java.util.List;
import org.dp4j.accounting.NeighbouringRelation;
import org.dp4j.accounting.Orders;
import org.dp4j.accounting.PrivacyGuarantee;
import org.dp4j.accounting.RdpConversion;
import org.dp4j.accounting.RdpCurve;
import org.dp4j.accounting.ThreatModel;

/**
 * An accountant that rests on one theorem about a fully configured training run (contract 2, docs/architecture.md#contract-accountant): it names the theorem's neighbouring relation, threat model and assumptions, and gives its bound
 * as a Rényi curve and as an (ε, δ) guarantee.
 *
 * <pre>{@code
 * HiddenStateAccountant acc = PabiAccountant.builder().datasetSize(1000).batchSize(10).epochs(20)
 *     .noiseMultiplier(4).stepSize(0.1).smoothness(1).lipschitzConstant(1).build();
 * PrivacyGuarantee g = acc.guarantee(1e-5, Orders.DEFAULT, RdpConversion.IMPROVED);
 * }</pre>
 */
public interface HiddenStateAccountant {
  /** Short stable name, e.g. "kong-ribero". */
  String name();

  /** What the adversary sees: only the last iterate, for every theorem of this package. */
  default ThreatModel threatModel() {
    return ThreatModel.LAST_ITERATE_ONLY;
  }

  NeighbouringRelation relation();

  /** Conditions the bound needs beyond the configuration itself (user-asserted constants etc.). */
  List<String> assumptions();

  /** The bound as a Rényi curve over the given orders. */
  RdpCurve rdp(Orders orders);

  /** The bound as (ε, δ), converted with the given conversion (or more tightly, if the theorem allows). */
  PrivacyGuarantee guarantee(double delta, Orders orders, RdpConversion conversion);

  /** {@link #rdp(Orders)} converted at δ with the given conversion, labelled with this accountant's scope. */
  default PrivacyGuarantee rdpGuarantee(String theorem, double delta, Orders orders, RdpConversion conversion) {
    RdpCurve curve = rdp(orders);
    return new PrivacyGuarantee(name(), theorem, conversion.epsilon(curve, delta), curve, relation(), threatModel(),
        assumptions());
  }
}
