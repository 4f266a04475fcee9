package org.dp4j.accounting.event;

import static com.google.common.base.Preconditions.checkNotNull;

import java.util.ArrayList;
import java.util.List;
import org.dp4j.accounting.Orders;
import org.dp4j.accounting.PrivacyGuarantee;
import org.dp4j.accounting.RdpConversion;
import org.dp4j.accounting.RdpCurve;
import org.dp4j.accounting.SampledGaussianAccountant;
import org.dp4j.accounting.SampledGaussianMechanism;
import org.dp4j.accounting.ThreatModel;

/**
 * Evaluates a {@link DpEvent} to its Rényi-DP curve under add/remove neighbours: Gaussian steps by
 * {@link GaussianRdp} (Mironov 2017, Prop. 7), Poisson-sampled Gaussian steps by the exact
 * {@link SampledGaussianRdp} (Mironov, Talwar &amp; Zhang 2019), composition by addition (Mironov 2017,
 * Prop. 1). Units other than one record under add/remove use the RDP group bound
 * ({@link GroupPrivacy#rdpCurve}).
 *
 * <pre>{@code
 * RdpCurve c = RdpEventAccountant.curve(DpEvent.sampledGaussian(0.01, 1.0).times(1000), Orders.DEFAULT);
 * double eps = RdpEventAccountant.of(Orders.DEFAULT, RdpConversion.IMPROVED)
 *     .epsilon(DpEvent.sampledGaussian(0.01, 1.0).times(1000), 1e-5, PrivacyUnit.RECORD);
 * }</pre>
 */
public final class RdpEventAccountant implements EventAccountant {
  public static final String NAME = SampledGaussianAccountant.NAME;

  private final Orders orders;
  private final RdpConversion conversion;

  private RdpEventAccountant(Orders orders, RdpConversion conversion) {
    this.orders = orders;
    this.conversion = conversion;
  }

  /** An accountant over the given orders and RDP → (ε, δ) conversion. */
  public static RdpEventAccountant of(Orders orders, RdpConversion conversion) {
    return new RdpEventAccountant(checkNotNull(orders, "orders"), checkNotNull(conversion, "conversion"));
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public double epsilon(DpEvent event, double delta, PrivacyUnit unit) {
    checkNotNull(unit, "unit");
    return conversion.epsilon(GroupPrivacy.rdpCurve(event, orders, unit.addRemoveDistance()), delta).epsilon();
  }

  @Override
  public PrivacyGuarantee privacyGuarantee(DpEvent event, double delta, PrivacyUnit unit) {
    checkNotNull(unit, "unit");
    RdpCurve curve = GroupPrivacy.rdpCurve(event, orders, unit.addRemoveDistance());
    List<String> assumptions = new ArrayList<>(SampledGaussianAccountant.ASSUMPTIONS);
    if (!unit.isRecordLevelAddRemove()) {
      assumptions.add("privacy unit: " + unit.description());
    }
    return new PrivacyGuarantee(NAME, SampledGaussianAccountant.THEOREM, conversion.epsilon(curve, delta), curve,
        unit.relation(), ThreatModel.ALL_ITERATES_RELEASED, assumptions);
  }

  @Override
  public double delta(DpEvent event, double epsilon) {
    return conversion.delta(curve(event, orders), epsilon).delta();
  }

  /** The RDP curve of the event at every order. */
  public static RdpCurve curve(DpEvent event, Orders orders) {
    checkNotNull(event, "event");
    checkNotNull(orders, "orders");
    SampledGaussianAccountant accountant = new SampledGaussianAccountant(orders);
    SampledGaussianSteps.of(event, NAME).counts().forEach((s, count) -> accountant.compose(
        new SampledGaussianMechanism(s.samplingRate(), s.noiseMultiplier()), count));
    return accountant.curve();
  }
}
