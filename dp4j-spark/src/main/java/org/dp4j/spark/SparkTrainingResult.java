package org.dp4j.spark;

import org.deeplearning4j.nn.api.Model;
import org.dp4j.accounting.ledger.PrivacyLedger;
import org.dp4j.training.StopReason;

/**
 * The outcome of {@link SparkDpSgdTrainer#train()}.
 *
 * @param model the trained network (the last in-budget parameters if the budget stopped it)
 * @param ledger the privacy ledger: per-epoch guarantees per threat model
 * @param stopReason why training ended
 * @param epochsCompleted full epochs run
 * @param steps private updates applied (each counted once by the ledger)
 * @param failedAttempts step attempts whose Spark job failed and that were redone (never applied, never counted)
 */
public record SparkTrainingResult(Model model, PrivacyLedger ledger, StopReason stopReason, int epochsCompleted,
    long steps, int failedAttempts) {
}
