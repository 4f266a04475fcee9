package org.dp4j.training;

import static com.google.common.base.Preconditions.checkNotNull;

import org.dp4j.sampling.SamplingPlan;
import org.nd4j.linalg.dataset.api.MultiDataSet;

/**
 * A multi-input / multi-output batch drawn by a sampler the accountant covers ({@link SampledMultiDataSetIterator}),
 * carrying its {@link SamplingPlan}, so that {@code graph.fit(MultiDataSet)} (as DL4J's
 * {@code EarlyStoppingGraphTrainer} calls it) is a private step with known sampling. May have 0 rows (an empty
 * Poisson batch: the step adds noise only).
 */
public final class SampledMultiBatch extends org.nd4j.linalg.dataset.MultiDataSet implements DrawnBySampler {
  private static final long serialVersionUID = 1L;

  private final transient SamplingPlan plan;

  SampledMultiBatch(MultiDataSet rows, SamplingPlan plan) {
    super(rows.getFeatures(), rows.getLabels(), rows.getFeaturesMaskArrays(), rows.getLabelsMaskArrays());
    this.plan = checkNotNull(plan, "plan");
  }

  /** How this batch was drawn. */
  @Override
  public SamplingPlan plan() {
    return plan;
  }
}
