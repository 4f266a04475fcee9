package org.dp4j.training;

import org.dp4j.sampling.SamplingPlan;

/**
 * Data drawn by a sampler the accountant covers: the sampler iterators and the batches they return. A private
 * model trains on nothing else, so the accountant always knows how each step's batch was sampled.
 */
interface DrawnBySampler {
  /** How the batches are drawn: scheme, n, q, expected batch size, steps per epoch. */
  SamplingPlan plan();
}
