package org.dp4j.sampling;

import static com.google.common.base.Preconditions.checkNotNull;
import static com.google.common.base.Preconditions.checkState;
import static org.dp4j.InvalidSettingException.checkArgument;

/**
 * The parameters of a batch schedule that an accountant needs: the scheme, the dataset size n, the
 * per-step sampling rate and the batch size. For Poisson sampling the rate is q and the batch size is
 * the expected qn (divide the clipped sum by this constant, never by the realised size:
 * docs/sampling.md#expected-batch-size); for the fixed-size schemes the rate is b/n.
 *
 * @param scheme how batches are drawn
 * @param datasetSize n, records available
 * @param samplingRate probability that a given record is in a given step's batch
 * @param expectedBatchSize qn for Poisson, b otherwise
 * @param stepsPerEpoch steps the sampler counts as one epoch
 * @param droppedRecords records never used (shuffle-once remainder n − ⌊n/b⌋·b), else 0
 */
public record SamplingPlan(SamplingScheme scheme, int datasetSize, double samplingRate,
    double expectedBatchSize, int stepsPerEpoch, int droppedRecords) {
  public SamplingPlan {
    checkNotNull(scheme, "scheme");
    checkArgument(datasetSize > 0, "dataset size must be > 0, was %s", datasetSize);
    checkArgument(samplingRate > 0 && samplingRate <= 1, "sampling rate must be in (0, 1], was %s", samplingRate);
    checkArgument(expectedBatchSize > 0, "expected batch size must be > 0, was %s", expectedBatchSize);
    checkArgument(stepsPerEpoch > 0, "steps per epoch must be > 0, was %s", stepsPerEpoch);
    checkArgument(droppedRecords >= 0 && droppedRecords < datasetSize,
        "dropped records must be in [0, %s), was %s", datasetSize, droppedRecords);
  }

  /** Records that can appear in a batch: n minus the dropped remainder. */
  public int usableRecords() {
    return datasetSize - droppedRecords;
  }

  /** b for the fixed-size schemes; refuses Poisson, whose batch size is random. */
  public int fixedBatchSize() {
    checkState(scheme != SamplingScheme.POISSON, "Poisson batches have no fixed size (expected %s)",
        expectedBatchSize);
    return (int) expectedBatchSize;
  }

  /** One line, e.g. "Poisson sampling (q = 0.004267, n = 60000, expected batch 256.0, 235 steps/epoch)". */
  public String describe() {
    String size = scheme == SamplingScheme.POISSON
        ? "expected batch " + expectedBatchSize : "batch " + (int) expectedBatchSize;
    String dropped = droppedRecords > 0 ? ", " + droppedRecords + " records dropped" : "";
    return String.format("%s (q = %.6g, n = %d, %s, %d steps/epoch%s)", scheme.label(), samplingRate,
        datasetSize, size, stepsPerEpoch, dropped);
  }
}
