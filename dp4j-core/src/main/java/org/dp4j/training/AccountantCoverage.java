package org.dp4j.training;

import static org.dp4j.InvalidSettingException.checkArgument;

import org.dp4j.accounting.ledger.StepAccountant;
import org.dp4j.sampling.SamplingPlan;
import org.dp4j.updater.DpSgd;

/**
 * The check both private training loops ({@link DpSgdTrainer}, DL4J's {@code fit} on a
 * {@link PrivateMultiLayerNetwork} with a privacy listener) run before the first step: each accountant of the ledger
 * must cover the mechanism the network runs (its {@link DpSgd}) with the sampling the batches come from
 * ({@link StepAccountant#requireCovers}), and the DpSgd must divide by the sampler's expected batch size. A mismatch
 * is refused with both sides named.
 *
 * <pre>{@code
 * // given: StepAccountant accountant; MultiLayerNetwork net; SampledDataSetIterator iterator
 * AccountantCoverage.requireCovers(accountant, DpSgdStep.configOf(net), iterator.plan());
 * }</pre>
 */
public final class AccountantCoverage {
  private AccountantCoverage() {
  }

  /** Refuses an accountant whose mechanism or sampling assumption differs from the run's. */
  public static void requireCovers(StepAccountant a, DpSgd dp, SamplingPlan plan) {
    a.requireCovers(plan, dp.noiseMultiplier());
    checkArgument(Math.abs(dp.expectedBatchSize() - plan.expectedBatchSize()) <= 1e-9 * plan.expectedBatchSize(),
        "the network's DpSgd divides by an expected batch of %s but the sampler's is %s: %s",
        dp.expectedBatchSize(), plan.expectedBatchSize(), plan.describe());
  }
}
