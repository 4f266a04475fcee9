package org.dp4j.accounting.ledger;

import static org.dp4j.InvalidSettingException.checkArgument;

import org.dp4j.accounting.Orders;
import org.dp4j.accounting.RdpCurve;
import org.dp4j.accounting.SampledGaussianAccountant;
import org.dp4j.accounting.SampledGaussianMechanism;

/**
 * DP-SGD's composition bound as a {@link StepAccountant}: every step is one sampled-Gaussian step of a
 * fixed mechanism (valid when every iterate may be released). O(orders) per step; the per-step curve
 * is computed once.
 *
 * <pre>{@code
 * StepAccountant acc = new CompositionStepAccountant(new SampledGaussianMechanism(256.0 / 60000, 1.1),
 *     Orders.DEFAULT);
 * acc.advance(14063);
 * }</pre>
 */
public final class CompositionStepAccountant extends SampledGaussianStepAccountant implements RdpStepAccountant {
  private final RdpCurve perStep;

  public CompositionStepAccountant(SampledGaussianMechanism mechanism, Orders orders) {
    super(mechanism);
    this.perStep = mechanism.rdpPerStep(orders);
  }

  @Override
  public String mechanismDescription() {
    return describe("sampled-gaussian");
  }

  @Override
  public String name() {
    return SampledGaussianAccountant.NAME;
  }

  @Override
  public String theorem() {
    return SampledGaussianAccountant.THEOREM;
  }

  @Override
  public Orders orders() {
    return perStep.orders();
  }

  @Override
  public RdpCurve curve() {
    return perStep.times(steps());
  }

  @Override
  public RdpCurve curveAfter(long more) {
    checkArgument(more >= 0, "steps must be >= 0, was %s", more);
    return perStep.times(steps() + more);
  }
}
