package org.dp4j.training;

import static com.google.common.base.Preconditions.checkNotNull;
import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.NoSuchElementException;
import org.dp4j.sampling.BatchSampler;
import org.dp4j.sampling.SamplingPlan;

/**
 * The epoch position of a {@link SamplerIterator} ({@link SampledDataSetIterator},
 * {@link SampledMultiDataSetIterator}): one epoch is {@link SamplingPlan#stepsPerEpoch()} batches of indices drawn
 * from the sampler, one per call, on the calling thread. Not thread-safe.
 */
final class SamplerCursor {
  private final BatchSampler sampler;
  private final SamplingPlan plan;
  private int position;

  SamplerCursor(BatchSampler sampler, int datasetSize) {
    this.sampler = checkNotNull(sampler, "sampler");
    this.plan = sampler.plan();
    checkArgument(plan.datasetSize() == datasetSize, "the sampler covers %s records but the data has %s",
        plan.datasetSize(), datasetSize);
  }

  SamplingPlan plan() {
    return plan;
  }

  int remainingInEpoch() {
    return plan.stepsPerEpoch() - position;
  }

  boolean hasNext() {
    return position < plan.stepsPerEpoch();
  }

  /** The indices of the next batch (possibly none: an empty Poisson batch is a step). */
  int[] next() {
    if (!hasNext()) {
      throw new NoSuchElementException("epoch finished after " + plan.stepsPerEpoch() + " batches; call reset()");
    }
    position++;
    return sampler.nextBatch();
  }

  /**
   * Starts a new epoch. The sampler is not rewound: Poisson batches are fresh draws anyway, and a shuffle-once
   * partition keeps its cyclic order (its accountant assumes that order, not a restart).
   */
  void reset() {
    position = 0;
  }

  /** Refusal of a caller-chosen batch size. */
  UnsupportedOperationException fixedSizeRefused() {
    return new UnsupportedOperationException("batch sizes are drawn by the sampler (" + plan.describe()
        + "); call next()");
  }
}
