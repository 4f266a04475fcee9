package org.dp4j.accounting.ledger;

import org.dp4j.sampling.SamplingPlan;
import org.dp4j.sampling.SamplingCompatibility;
import static com.google.common.base.Preconditions.checkArgument;

import java.util.List;
import org.dp4j.accounting.NeighbouringRelation;
import org.dp4j.accounting.Orders;
import org.dp4j.accounting.RdpCurve;
import org.dp4j.accounting.SampledGaussianAccountant;
import org.dp4j.accounting.SampledGaussianMechanism;
import org.dp4j.accounting.ThreatModel;

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
public final class CompositionStepAccountant implements RdpStepAccountant {
  private final SampledGaussianMechanism mechanism;
  private final RdpCurve perStep;
  private long steps;

  public CompositionStepAccountant(SampledGaussianMechanism mechanism, Orders orders) {
    this.mechanism = mechanism;
    this.perStep = mechanism.rdpPerStep(orders);
  }

  public SampledGaussianMechanism mechanism() {
    return mechanism;
  }

  @Override
  public String mechanismDescription() {
    return "sampled-gaussian(q=" + mechanism.samplingRate() + ", z=" + mechanism.noiseMultiplier() + ")";
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
  public ThreatModel threatModel() {
    return ThreatModel.ALL_ITERATES_RELEASED;
  }

  @Override
  public NeighbouringRelation relation() {
    return NeighbouringRelation.ADD_REMOVE;
  }

  @Override
  public List<String> assumptions() {
    return SampledGaussianAccountant.ASSUMPTIONS;
  }

  @Override
  public Orders orders() {
    return perStep.orders();
  }

  @Override
  public long steps() {
    return steps;
  }

  @Override
  public RdpCurve curve() {
    return perStep.times(steps);
  }

  @Override
  public RdpCurve curveAfter(long more) {
    checkArgument(more >= 0, "steps must be >= 0, was %s", more);
    return perStep.times(steps + more);
  }

  @Override
  public void advance(long count) {
    checkArgument(count >= 0, "steps must be >= 0, was %s", count);
    steps += count;
  }

  /** Poisson sampling at exactly this mechanism's q, and noise multiplier z. */
  @Override
  public void requireCovers(SamplingPlan plan, double noiseMultiplier) {
    SamplingCompatibility.requireMatches(mechanism, plan, noiseMultiplier);
  }
}
