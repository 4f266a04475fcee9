package org.dp4j.training;

import java.util.Optional;
import org.dp4j.sampling.SamplingPlan;
import org.dp4j.updater.DpSgd;

/**
 * A DL4J model whose {@code fit} takes DP-SGD steps ({@link PrivateMultiLayerNetwork},
 * {@link PrivateComputationGraph}), as a privacy listener sees it: the mechanism comes from the model, not from the
 * user's say-so. The listener reads the {@link DpSgd} (z, C, expected batch), the {@link SamplingPlan} of the batches
 * the model trains on (q, n, scheme), whether the noise is secure and how many steps the model has already taken,
 * and claims the model's accounting so that no second ledger can count the same steps.
 */
public interface PrivateTraining {
  /** The DP-SGD mechanism every trainable parameter uses. */
  DpSgd dpSgd();

  /** How the batches being trained on are drawn; empty before the first {@code fit}. */
  Optional<SamplingPlan> samplingPlan();

  /** Whether the noise is drawn from a cryptographically secure generator. */
  boolean secureNoise();

  /** Steps already taken (DL4J's iteration count). */
  int iterationCount();

  /**
   * Registers {@code accountant} as the one that counts this model's steps.
   *
   * @throws IllegalStateException if another accountant (a second ledger or trainer) already counts them
   */
  void claimAccounting(Object accountant);
}
