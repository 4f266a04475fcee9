package org.dp4j.training;

import static com.google.common.base.Preconditions.checkNotNull;

import org.dp4j.sampling.SamplingPlan;
import org.nd4j.linalg.dataset.DataSet;

/**
 * A batch drawn by a sampler the accountant covers ({@link SampledDataSetIterator}), carrying its
 * {@link SamplingPlan}. A {@link PrivateMultiLayerNetwork} trains on these only, so that {@code net.fit(DataSet)}
 * (as DL4J's {@code EarlyStoppingTrainer} calls it) is a private step with known sampling. May have 0 rows (an
 * empty Poisson batch: the step adds noise only). Feature and label masks of the rows are kept.
 */
public final class SampledBatch extends DataSet implements DrawnBySampler {
  private final transient SamplingPlan plan;

  SampledBatch(DataSet rows, SamplingPlan plan) {
    super(rows.getFeatures(), rows.getLabels(), rows.getFeaturesMaskArray(), rows.getLabelsMaskArray());
    this.plan = checkNotNull(plan, "plan");
  }

  /** How this batch was drawn. */
  @Override
  public SamplingPlan plan() {
    return plan;
  }
}
