package org.dp4j.training;

/**
 * The one contract of dp4j's own training loops: {@link DpSgdTrainer} (DP-SGD), {@code DpMbcdTrainer} (DP-MBCD)
 * and {@code DpNmf} (DP-NMF). A trainer runs whole epochs; before every step it asks its privacy ledger, if it
 * has one, and stops before the step that would exceed the budget. {@link #train()} runs what remains,
 * {@link #trainEpoch()} one epoch at a time (for a caller that evaluates or checkpoints between epochs), and
 * {@link #result()} says what was trained and spent so far. Step and epoch callbacks are set on each trainer's
 * builder. (DL4J's own {@code fit} is the other way to train privately: see {@link PrivateMultiLayerNetwork}.)
 *
 * <pre>{@code
 * // given: PrivateTrainer<TrainingResult> trainer
 * while (!trainer.isFinished()) {
 *   trainer.trainEpoch();
 *   System.out.println(trainer.result().epsilonSpent());
 * }
 * }</pre>
 *
 * @param <R> what a run produces: {@link TrainingResult} for the network trainers
 */
public interface PrivateTrainer<R> {

  /** Runs the remaining epochs, or until the next step would exceed the budget; returns {@link #result()}. */
  default R train() {
    while (!isFinished()) {
      trainEpoch();
    }
    return result();
  }

  /**
   * Runs one epoch. Returns false if the budget stopped it before its end (the model then holds the last in-budget
   * parameters and training cannot continue).
   *
   * @throws IllegalStateException if training is already finished
   */
  boolean trainEpoch();

  /** Whether every planned epoch has run or the budget stopped training. */
  boolean isFinished();

  /** Full epochs run so far (a resumed run counts the epochs of its checkpoint). */
  int epochsCompleted();

  /** What was trained and spent so far. */
  R result();
}
