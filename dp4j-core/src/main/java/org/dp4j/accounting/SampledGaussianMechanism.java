package org.dp4j.accounting;

import static org.dp4j.InvalidSettingException.checkArgument;

/**
 * One step of DP-SGD as the composition accountant sees it: Poisson sampling with rate q, the sum of
 * per-example gradients clipped to norm C, plus N(0, (zC)²) noise on every coordinate. The accountant
 * needs only q and z; C cancels (sensitivity C under add/remove neighbours).
 *
 * @param samplingRate q in (0, 1]
 * @param noiseMultiplier z = noise std / clip norm, &gt; 0
 */
public record SampledGaussianMechanism(double samplingRate, double noiseMultiplier) {
  public SampledGaussianMechanism {
    checkArgument(samplingRate > 0 && samplingRate <= 1, "sampling rate q must be in (0, 1], was %s", samplingRate);
    checkArgument(noiseMultiplier > 0 && Double.isFinite(noiseMultiplier),
        "noise multiplier must be finite and > 0, was %s", noiseMultiplier);
  }

  /** q = batchSize / datasetSize (the TF Privacy convention). */
  public static SampledGaussianMechanism forBatches(long datasetSize, long expectedBatchSize, double noiseMultiplier) {
    checkArgument(datasetSize > 0, "dataset size must be > 0, was %s", datasetSize);
    checkArgument(expectedBatchSize > 0 && expectedBatchSize <= datasetSize,
        "batch size must be in [1, dataset size = %s], was %s", datasetSize, expectedBatchSize);
    return new SampledGaussianMechanism((double) expectedBatchSize / datasetSize, noiseMultiplier);
  }

  /** Steps of {@code epochs} epochs: T = ceil(E·N/B) (the TF Privacy convention). */
  public static long stepsForEpochs(double epochs, long datasetSize, long batchSize) {
    checkArgument(epochs > 0 && Double.isFinite(epochs), "epochs must be finite and > 0, was %s", epochs);
    checkArgument(datasetSize > 0 && batchSize > 0, "dataset and batch size must be > 0, were %s and %s",
        datasetSize, batchSize);
    return (long) Math.ceil(epochs * datasetSize / batchSize);
  }

  /** Exact RDP of one step at every order ({@link SampledGaussianRdp}). */
  public RdpCurve rdpPerStep(Orders orders) {
    return SampledGaussianRdp.curve(samplingRate, noiseMultiplier, orders);
  }
}
