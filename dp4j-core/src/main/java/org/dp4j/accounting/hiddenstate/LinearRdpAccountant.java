package org.dp4j.accounting.hiddenstate;

import java.util.List;
import org.dp4j.accounting.NeighbouringRelation;
import org.dp4j.accounting.Orders;
import org.dp4j.accounting.PrivacyGuarantee;
import org.dp4j.accounting.RdpConversion;
import org.dp4j.accounting.RdpCurve;
import org.dp4j.accounting.ThreatModel;

/**
 * What the hidden-state accountants whose bound is linear in the order share: ε(α) = ρ·α for the last iterate,
 * under replace-one neighbours, beside a composition baseline ε(α) = ρ_composition·α for the all-iterates threat
 * model (Mironov 2017, Prop. 1 composed over the steps that use the record). Kong–Ribero, PABI and the Langevin LSI
 * bound differ only in ρ, the theorem and the assumptions.
 */
abstract class LinearRdpAccountant implements HiddenStateAccountant {
  private final String name;

  LinearRdpAccountant(String name) {
    this.name = name;
  }

  /** The RDP slope of the last-iterate bound: ε(α) = ρα. */
  public abstract double rho();

  /** The RDP slope of the composition baseline, valid when every iterate is released. */
  public abstract double rhoComposition();

  /** The theorem (paper, equation) that {@link #rho()} rests on. */
  public abstract String theorem();

  /** How the composition baseline is derived: the mechanism and the composition result. */
  abstract String compositionMechanism();

  /** What the composition baseline assumes. */
  abstract List<String> compositionAssumptions();

  @Override
  public final String name() {
    return name;
  }

  @Override
  public final NeighbouringRelation relation() {
    return NeighbouringRelation.REPLACE_ONE;
  }

  @Override
  public final RdpCurve rdp(Orders orders) {
    return LinearRdp.curve(rho(), orders);
  }

  @Override
  public final PrivacyGuarantee guarantee(double delta, Orders orders, RdpConversion conversion) {
    return rdpGuarantee(theorem(), delta, orders, conversion);
  }

  /** The composition baseline as a guarantee for the all-iterates threat model. */
  public final PrivacyGuarantee compositionGuarantee(double delta, Orders orders, RdpConversion conversion) {
    RdpCurve curve = LinearRdp.curve(rhoComposition(), orders);
    return new PrivacyGuarantee(name + "-composition", compositionMechanism(), conversion.epsilon(curve, delta),
        curve, relation(), ThreatModel.ALL_ITERATES_RELEASED, compositionAssumptions());
  }
}
