package org.dp4j.mbcd;

import static org.dp4j.InvalidSettingException.checkArgument;

import org.dp4j.accounting.NeighbouringRelation;
import org.dp4j.accounting.hiddenstate.NoiseTemperatureSchedule;
import org.dp4j.sampling.ShuffleOncePartition;

/**
 * What a DP-NMF run does, as an immutable value for an accountant (Chen &amp; Liu Alg. 3, §2.6 HFL split
 * by rows; docs/errata.md#dp-mbcd-nmf, #dp-mbcd-sensitivity). Rows of M are users. Per batch B of a shuffle-once partition:
 * each user's row X_i (released, updated only when B holds i) takes a noisy projected step on its own
 * gradient clipped to C (one example per step: sensitivity 2C); then the shared Y (released) takes a
 * noisy projected step on the batch mean of per-user gradients clipped to C (S_g = 2C, mean over b).
 * Noise N(0, 2η·o(k,j)·I) on Y and N(0, 2η_X·o(k,j)·I) on the X rows (η_X = η unless set). The paper composes
 * HFL as ε = max_i ε_{X_i} + ε_Y.
 */
public final class DpNmfMechanism {
  private final double learningRate;
  private final double userLearningRate;
  private final int batchSize;
  private final int numBatches;
  private final int examplesDropped;
  private final int epochs;
  private final double clipNorm;
  private final NoiseTemperatureSchedule noiseSchedule;
  private final String scheduleDescription;
  private final NmfStepRule stepRule;
  private final double curvatureCap;
  private final boolean secureNoise;

  DpNmfMechanism(double learningRate, double userLearningRate, ShuffleOncePartition partition, int epochs,
      double clipNorm, NoiseTemperatureSchedule noiseSchedule, NmfStepRule stepRule, double curvatureCap,
      boolean secureNoise) {
    this.learningRate = learningRate;
    this.userLearningRate = userLearningRate;
    this.batchSize = partition.plan().fixedBatchSize();
    this.numBatches = partition.plan().stepsPerEpoch();
    this.examplesDropped = partition.plan().droppedRecords();
    this.scheduleDescription = NoiseTemperatureSchedule.describe(noiseSchedule, epochs, numBatches);
    this.epochs = epochs;
    this.clipNorm = clipNorm;
    this.noiseSchedule = noiseSchedule;
    this.stepRule = stepRule;
    this.curvatureCap = curvatureCap;
    this.secureNoise = secureNoise;
  }

  /** η of the released item factors Y (their step, or step cap if curvature-scaled, and noise N(0, 2η·o·I)). */
  public double learningRate() {
    return learningRate;
  }

  /** η_X of the user rows X_i (noise N(0, 2η_X·o·I)); it enters no accountant, since X_i stays with its user. */
  public double userLearningRate() {
    return userLearningRate;
  }

  public int batchSize() {
    return batchSize;
  }

  public int numBatchesPerEpoch() {
    return numBatches;
  }

  /** Rows (users) never visited; their X rows stay at the data-independent initialisation. */
  public int examplesDropped() {
    return examplesDropped;
  }

  public int epochs() {
    return epochs;
  }

  /** C, the per-user clip norm of both the X-row and the Y gradient contributions. */
  public double clipNorm() {
    return clipNorm;
  }

  /** S_g = 2C (replace-one) for either block. */
  public double gradientSensitivity() {
    return 2 * clipNorm;
  }

  public NeighbouringRelation neighbouringRelation() {
    return NeighbouringRelation.REPLACE_ONE;
  }

  public NoiseTemperatureSchedule noiseSchedule() {
    return noiseSchedule;
  }

  /** What identifies o(k, j) over the planned epochs, e.g. "constant o=0.001". */
  public String scheduleDescription() {
    return scheduleDescription;
  }

  /** o(k, j). */
  public double temperature(int epoch, int batch) {
    checkArgument(epoch >= 0 && epoch < epochs, "epoch must be in [0, %s), was %s", epochs, epoch);
    checkArgument(batch >= 0 && batch < numBatches,
        "batch must be in [0, %s), was %s", numBatches, batch);
    return noiseSchedule.temperature(epoch, batch);
  }

  public NmfStepRule stepRule() {
    return stepRule;
  }

  public boolean secureNoise() {
    return secureNoise;
  }

  @Override
  public String toString() {
    return "DP-NMF: eta=" + learningRate + (userLearningRate == learningRate ? "" : ", eta_X=" + userLearningRate)
        + ", b=" + batchSize + ", N=" + numBatches + " (dropped "
        + examplesDropped + "), K=" + epochs + ", C=" + clipNorm + ", S_g=2C, noise "
        + scheduleDescription + ", step " + stepRule
        + (stepRule == NmfStepRule.CURVATURE_SCALED ? " (kappa=" + curvatureCap + ", PAPER)" : "")
        + (secureNoise ? "" : ", INSECURE SEEDED NOISE");
  }
}
