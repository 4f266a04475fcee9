package org.dp4j.training;

import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.dp4j.accounting.ledger.PrivacyLedger;

/**
 * The outcome of a private training run.
 *
 * @param network the trained network (the last in-budget parameters if the budget stopped it)
 * @param ledger the privacy ledger: per-epoch guarantees per threat model
 * @param stopReason why training ended
 * @param epochsCompleted full epochs run
 * @param steps private updates applied
 */
public record TrainingResult(MultiLayerNetwork network, PrivacyLedger ledger, StopReason stopReason,
    int epochsCompleted, long steps) {}
