package org.dp4j.training;

import static com.google.common.base.Preconditions.checkState;

import java.util.List;
import java.util.function.Consumer;
import org.dp4j.accounting.ledger.LedgerRow;
import org.dp4j.accounting.ledger.PrivacyLedger;

/**
 * The epoch loop of dp4j's DP-SGD trainers ({@link DpSgdTrainer} on one machine, {@code SparkDpSgdTrainer} on a
 * cluster), made by their {@link LedgerTrainerBuilder}: an epoch is a number of steps, each taken only if its
 * {@link Step} says the budget allows it; after a full epoch the model's epoch count moves on, then the ledger row
 * is closed and handed to the epoch callbacks; a budget stop closes a partial row (none if the epoch took no step
 * yet), so the ledger always counts exactly the steps applied. The step decides when the ledger counts it: before
 * the batch is drawn on one machine, after the cluster returned the clipped sum on Spark (a failed job is then
 * never counted).
 *
 * <pre>{@code
 * // given: LedgerEpochLoop loop; PrivacyLedger ledger; int stepsPerEpoch
 * while (!loop.isFinished()) {
 *   boolean full = loop.runEpoch(stepsPerEpoch, (epoch, step) -> ledger.tryStep());   // then take the step
 * }
 * StopReason why = loop.stopReason();
 * }</pre>
 *
 * <p>Not thread-safe.
 */
public final class LedgerEpochLoop {
  private final PrivacyLedger ledger;
  private final int epochs;
  private final Runnable endOfEpoch;
  private final List<Consumer<LedgerRow>> onEpoch;
  private final Runnable onStep;
  private int completed;
  private StopReason stopped;
  private long allowed = -1;

  LedgerEpochLoop(PrivacyLedger ledger, int epochs, Runnable endOfEpoch, List<Consumer<LedgerRow>> onEpoch,
      Runnable onStep) {
    this.ledger = ledger;
    this.epochs = epochs;
    this.endOfEpoch = endOfEpoch;
    this.onEpoch = List.copyOf(onEpoch);
    this.onStep = onStep;
    this.completed = ledger.epochsCompleted();
  }

  /** One private step of a trainer. */
  @FunctionalInterface
  public interface Step {
    /**
     * Takes step {@code stepInEpoch} (0-based) of epoch {@code epoch} (1-based) and has the ledger count it; returns
     * false, without taking it, if the budget does not allow it.
     */
    boolean take(int epoch, int stepInEpoch);
  }

  /** The ledger the steps answer to. */
  public PrivacyLedger ledger() {
    return ledger;
  }

  /**
   * Runs the next epoch of {@code stepsPerEpoch} steps; returns false if the budget stopped it before its end (the
   * model then holds the last in-budget parameters and training cannot continue).
   *
   * @throws IllegalStateException if training is already finished
   */
  public boolean runEpoch(int stepsPerEpoch, Step step) {
    checkState(!isFinished(), "training is finished (%s after %s epochs)", stopped, completed);
    if (allowed < 0) {
      allowed = ledger.stepsWithinBudget((long) (epochs - completed) * stepsPerEpoch);   // the plan's check, once
    }
    int epoch = completed + 1;
    for (int s = 0; s < stepsPerEpoch; s++) {
      if (!step.take(epoch, s)) {
        stopped = StopReason.BUDGET;
        closePartialRow(epoch);
        return false;
      }
      onStep.run();
    }
    completed++;
    // Before the callbacks: a model saved there (a checkpoint) carries the epochs it has finished, so a resumed
    // run (and an epoch-based learning-rate schedule) continues from the right epoch.
    endOfEpoch.run();
    if (completed == epochs) {
      stopped = StopReason.COMPLETED;
    }
    closeRow(ledger.closeEpoch(epoch));
    return true;
  }

  /**
   * The exact number of further steps the budget allowed when the first epoch of this loop began, over the epochs
   * still planned ({@link PrivacyLedger#stepsWithinBudget}, with which {@link PrivacyLedger#tryStep} agrees step by
   * step); -1 before the first epoch.
   */
  public long stepsAllowed() {
    return allowed;
  }

  /**
   * Closes the partial row of {@code epoch}, which a budget stop or a failed step ended early, and hands it to the
   * epoch callbacks; nothing if the epoch took no step.
   */
  public void closePartialRow(int epoch) {
    if (ledger.stepsSinceLastRow() > 0) {
      closeRow(ledger.closePartialEpoch(epoch));
    }
  }

  private void closeRow(LedgerRow row) {
    onEpoch.forEach(c -> c.accept(row));
  }

  /** Whether every planned epoch has run or the budget stopped training. */
  public boolean isFinished() {
    return stopped != null || completed >= epochs;
  }

  /** Full epochs run so far (a resumed run counts the epochs of its ledger). */
  public int epochsCompleted() {
    return completed;
  }

  /** Why training ended: {@link StopReason#COMPLETED} while epochs remain and the budget allows them. */
  public StopReason stopReason() {
    return stopped == null ? StopReason.COMPLETED : stopped;
  }
}
