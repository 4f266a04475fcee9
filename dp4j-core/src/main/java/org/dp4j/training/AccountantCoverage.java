package org.dp4j.training;

import static com.google.common.base.Preconditions.checkArgument;

import org.dp4j.accounting.SampledGaussianMechanism;
import org.dp4j.accounting.hiddenstate.YeShokriShuffleStepAccountant;
import org.dp4j.accounting.ledger.CompositionStepAccountant;
import org.dp4j.accounting.ledger.FixedPartitionCompositionStepAccountant;
import org.dp4j.accounting.ledger.StepAccountant;
import org.dp4j.sampling.SamplingCompatibility;
import org.dp4j.sampling.SamplingPlan;
import org.dp4j.sampling.SamplingScheme;
import org.dp4j.updater.DpSgd;

/**
 * The check both private training loops ({@link DpSgdTrainer}, DL4J's {@code fit} on a
 * {@link PrivateMultiLayerNetwork} with a privacy listener) run before the first step: the ledger's accountant must
 * account the mechanism the network runs (its {@link DpSgd}: q, z, C, expected batch) with the sampling the batches
 * come from. A mismatch is refused with both sides named.
 *
 * <pre>{@code
 * AccountantCoverage.requireCovers(accountant, DpSgdStep.configOf(net), iterator.plan());
 * }</pre>
 */
public final class AccountantCoverage {
  private AccountantCoverage() {
  }

  /**
   * Refuses an accountant whose mechanism or sampling assumption differs from the run's; returns false (without
   * refusing) for an accountant type this class cannot check, so the caller can check it or refuse it.
   */
  public static boolean checkIfKnown(StepAccountant a, DpSgd dp, SamplingPlan plan) {
    if (a instanceof CompositionStepAccountant c) {
      SampledGaussianMechanism expected = dp.mechanism(plan.datasetSize());
      checkArgument(c.mechanism().equals(expected),
          "the ledger accounts %s but the network's DpSgd runs %s", c.mechanism(), expected);
      SamplingCompatibility.requireMatches(expected, plan);
      return true;
    }
    if (a instanceof FixedPartitionCompositionStepAccountant f) {
      checkArgument(f.noiseMultiplier() == dp.noiseMultiplier(),
          "the ledger accounts noise multiplier %s but the network's DpSgd uses %s", f.noiseMultiplier(),
          dp.noiseMultiplier());
      SamplingCompatibility.requireFixedSize(f.name(), SamplingScheme.SHUFFLE_ONCE_FIXED_PARTITION,
          f.usableRecords(), f.batchSize(), plan);
      checkArgument(dp.expectedBatchSize() == plan.fixedBatchSize(), "the network's DpSgd divides by %s but the "
          + "sampler draws batches of %s: %s", dp.expectedBatchSize(), plan.fixedBatchSize(), plan.describe());
      return true;
    }
    if (a instanceof YeShokriShuffleStepAccountant y) {
      // λ, β and the noise are the user's assertion here; the sampling, at least, is checked.
      SamplingCompatibility.requireScheme(y.name(), SamplingScheme.SHUFFLE_ONCE_FIXED_PARTITION, plan);
      checkArgument(y.config().batchSize() == plan.fixedBatchSize()
          && y.config().stepsPerEpoch() == plan.stepsPerEpoch(),
          "the %s accountant uses b = %s, m = %s but the sampler is %s", y.name(), y.config().batchSize(),
          y.config().stepsPerEpoch(), plan.describe());
      return true;
    }
    return false;
  }

  /** The refusal for an accountant {@link #checkIfKnown} could not check. */
  public static IllegalArgumentException cannotCheck(StepAccountant a, SamplingPlan plan) {
    return new IllegalArgumentException(String.format("cannot check that accountant %s (%s) covers this run's "
        + "mechanism and sampler (%s)", a.name(), a.getClass().getSimpleName(), plan.describe()));
  }
}
