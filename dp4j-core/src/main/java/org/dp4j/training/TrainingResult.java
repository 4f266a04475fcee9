package org.dp4j.training;

import static com.google.common.base.Preconditions.checkNotNull;

import java.util.Optional;
import java.util.OptionalDouble;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.dp4j.accounting.ThreatModel;
import org.dp4j.accounting.ledger.PrivacyLedger;

/**
 * The outcome of a private training run.
 *
 * <pre>{@code
 * // given: DpSgdTrainer trainer
 * TrainingResult r = trainer.train();
 * System.out.println(r.epsilonSpent());   // "all iterates released: ε = 2.93 at δ = 1e-05 (...); ..."
 * double eps = r.epsilon(ThreatModel.ALL_ITERATES_RELEASED).orElseThrow();
 * }</pre>
 *
 * @param network the trained network (the last in-budget parameters if the budget stopped it)
 * @param ledger the privacy ledger: per-epoch guarantees per threat model
 * @param stopReason why training ended
 * @param epochsCompleted full epochs run
 * @param steps private updates applied
 * @param guaranteesVoidBecause why no guarantee holds for this run (insecure noise), empty if they hold
 */
public record TrainingResult(MultiLayerNetwork network, PrivacyLedger ledger, StopReason stopReason,
    int epochsCompleted, long steps, Optional<String> guaranteesVoidBecause) {
  public TrainingResult {
    checkNotNull(guaranteesVoidBecause, "guaranteesVoidBecause");
  }

  /** A run whose guarantees hold (secure noise). */
  public TrainingResult(MultiLayerNetwork network, PrivacyLedger ledger, StopReason stopReason, int epochsCompleted,
      long steps) {
    this(network, ledger, stopReason, epochsCompleted, steps, Optional.empty());
  }

  /** ε spent so far under the threat model, at the ledger's δ; empty if no bound applies or the run is void. */
  public OptionalDouble epsilon(ThreatModel threatModel) {
    return EpsilonSpent.epsilon(ledger, threatModel, guaranteesVoidBecause);
  }

  /** One line per threat model: ε spent so far, its δ, neighbours and accountant (like Opacus' get_epsilon). */
  public String epsilonSpent() {
    return EpsilonSpent.describe(ledger, guaranteesVoidBecause);
  }
}
