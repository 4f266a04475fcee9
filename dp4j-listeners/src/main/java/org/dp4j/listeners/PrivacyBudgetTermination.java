package org.dp4j.listeners;

import static com.google.common.base.Preconditions.checkNotNull;
import static org.dp4j.InvalidSettingException.checkArgument;

import org.deeplearning4j.earlystopping.termination.EpochTerminationCondition;
import org.dp4j.accounting.ledger.PrivacyLedger;

/**
 * An {@code EarlyStoppingTrainer} epoch condition: stops when the next full epoch would exceed the
 * ledger's budget. Use it together with a {@link PrivacyLedgerListener} on the same ledger (which
 * accounts the steps and still stops mid-epoch if an epoch runs longer than declared).
 *
 * <p>DL4J's {@code EarlyStoppingTrainer} trains a {@code PrivateMultiLayerNetwork} privately (each
 * {@code net.fit(batch)} is a DP-SGD step) when its training iterator is a {@code SampledDataSetIterator}; the
 * score calculator should use held-out (public or separately accounted) data.
 *
 * <pre>{@code
 * // given: PrivacyLedger ledger; int stepsPerEpoch; DataSetIterator publicValidation
 * EarlyStoppingConfiguration<MultiLayerNetwork> es = new EarlyStoppingConfiguration.Builder<MultiLayerNetwork>()
 *     .epochTerminationConditions(new PrivacyBudgetTermination(ledger, stepsPerEpoch))
 *     .scoreCalculator(new DataSetLossCalculator(publicValidation, true)).build();
 * }</pre>
 */
public final class PrivacyBudgetTermination implements EpochTerminationCondition {
  private static final long serialVersionUID = 1L;

  private final transient PrivacyLedger ledger;
  private final long stepsPerEpoch;

  public PrivacyBudgetTermination(PrivacyLedger ledger, long stepsPerEpoch) {
    this.ledger = checkNotNull(ledger, "ledger");
    checkArgument(ledger.budget().isPresent(), "the ledger has no budget to enforce");
    checkArgument(stepsPerEpoch > 0, "steps per epoch must be > 0, was %s", stepsPerEpoch);
    this.stepsPerEpoch = stepsPerEpoch;
  }

  @Override
  public void initialize() {}

  @Override
  public boolean terminate(int epochNum, double score, boolean minimize) {
    return ledger.wouldExceedBudget(stepsPerEpoch);
  }

  @Override
  public String toString() {
    return "PrivacyBudgetTermination(" + ledger.budget().orElseThrow() + ", " + stepsPerEpoch + " steps/epoch)";
  }
}
