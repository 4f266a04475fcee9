package org.dp4j.accounting.event;

import static com.google.common.base.Preconditions.checkNotNull;

import java.util.Map;
import org.dp4j.accounting.GaussianRdp;
import org.dp4j.accounting.Orders;
import org.dp4j.accounting.RdpCurve;
import org.dp4j.accounting.SampledGaussianRdp;

/**
 * Evaluates a {@link DpEvent} to its Rényi-DP curve under add/remove neighbours: Gaussian steps by
 * {@link GaussianRdp} (Mironov 2017, Prop. 7), Poisson-sampled Gaussian steps by the exact
 * {@link SampledGaussianRdp} (Mironov, Talwar &amp; Zhang 2019), composition by addition (Mironov 2017,
 * Prop. 1).
 *
 * <pre>{@code
 * RdpCurve c = RdpEventAccountant.curve(DpEvent.sampledGaussian(0.01, 1.0).times(1000), Orders.DEFAULT);
 * }</pre>
 */
public final class RdpEventAccountant {
  public static final String NAME = "sampled-gaussian-rdp";

  private RdpEventAccountant() {}

  /** The RDP curve of the event at every order. */
  public static RdpCurve curve(DpEvent event, Orders orders) {
    checkNotNull(event, "event");
    checkNotNull(orders, "orders");
    RdpCurve total = RdpCurve.zero(orders);
    for (Map.Entry<SampledGaussianSteps.Step, Long> e : SampledGaussianSteps.of(event, NAME).counts().entrySet()) {
      SampledGaussianSteps.Step s = e.getKey();
      RdpCurve step = s.samplingRate() == 1
          ? GaussianRdp.curve(1, s.noiseMultiplier(), orders)
          : SampledGaussianRdp.curve(s.samplingRate(), s.noiseMultiplier(), orders);
      total = total.plus(step.times(e.getValue()));
    }
    return total;
  }
}
