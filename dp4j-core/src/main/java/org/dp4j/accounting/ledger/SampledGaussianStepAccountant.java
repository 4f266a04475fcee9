package org.dp4j.accounting.ledger;

import static com.google.common.base.Preconditions.checkNotNull;
import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.List;
import org.dp4j.accounting.NeighbouringRelation;
import org.dp4j.accounting.SampledGaussianAccountant;
import org.dp4j.accounting.SampledGaussianMechanism;
import org.dp4j.accounting.ThreatModel;
import org.dp4j.sampling.SamplingCompatibility;
import org.dp4j.sampling.SamplingPlan;

/**
 * What the two composition accountants of DP-SGD share ({@link CompositionStepAccountant} by RDP,
 * {@link PldStepAccountant} by PLD): one fixed Poisson-sampled Gaussian mechanism per step, add/remove neighbours,
 * every iterate may be released, and the sampler check (Poisson at exactly q, noise multiplier z).
 */
public abstract class SampledGaussianStepAccountant implements StepAccountant {
  private final SampledGaussianMechanism mechanism;
  private long steps;

  SampledGaussianStepAccountant(SampledGaussianMechanism mechanism) {
    this.mechanism = checkNotNull(mechanism, "mechanism");
  }

  public final SampledGaussianMechanism mechanism() {
    return mechanism;
  }

  @Override
  public final ThreatModel threatModel() {
    return ThreatModel.ALL_ITERATES_RELEASED;
  }

  @Override
  public final NeighbouringRelation relation() {
    return NeighbouringRelation.ADD_REMOVE;
  }

  @Override
  public final List<String> assumptions() {
    return SampledGaussianAccountant.ASSUMPTIONS;
  }

  @Override
  public final long steps() {
    return steps;
  }

  @Override
  public final void advance(long count) {
    checkArgument(count >= 0, "steps must be >= 0, was %s", count);
    steps += count;
  }

  /** e.g. "sampled-gaussian(q=0.01, z=1.1)", prefixed by the method for PLD. */
  String describe(String prefix) {
    return prefix + "(q=" + mechanism.samplingRate() + ", z=" + mechanism.noiseMultiplier() + ")";
  }

  /** Poisson sampling at exactly this mechanism's q, and noise multiplier z. */
  @Override
  public final void requireCovers(SamplingPlan plan, double noiseMultiplier) {
    SamplingCompatibility.requireMatches(mechanism, plan, noiseMultiplier);
  }
}
