package org.dp4j.accounting.hiddenstate;

import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;

/**
 * The noise temperature o(k, j) of DP-MBCD: the released block receives N(0, 2η·o(k, j)·I) at batch j
 * of epoch k (both 0-based). It is a variance-like temperature, not a noise multiplier (Chen &amp; Liu,
 * Eq. 6; docs/errata.md#dp-mbcd-noise-temperature). It must be fixed before training and must not depend on the data
 * (docs/threat-models.md#data-independent-choices): a data-driven choice voids the accounting.
 *
 * <pre>{@code
 * NoiseTemperatureSchedule c = NoiseTemperatureSchedule.constant(0.005);
 * NoiseTemperatureSchedule d = NoiseTemperatureSchedule.linearInEpoch(0.02, -0.005);  // 0.02 - 0.005 k
 * NoiseTemperatureSchedule mine = (k, j) -> k < 13 ? 0.01 : 0.05;
 * }</pre>
 *
 * <p>Values are validated (finite, &gt; 0) by the accountant when it reaches the step.
 */
@FunctionalInterface
public interface NoiseTemperatureSchedule {
  /** o(k, j) for epoch k ≥ 0 and batch position j ≥ 0 within the epoch. */
  double temperature(int epoch, int batch);

  /** o(k, j) = o for every step. */
  static NoiseTemperatureSchedule constant(double temperature) {
    checkArgument(temperature > 0 && Double.isFinite(temperature),
        "noise temperature o must be finite and > 0, was %s", temperature);
    return (k, j) -> temperature;
  }

  /**
   * o(k, j) = initial + changePerEpoch·k; a negative change is a linear decay, which must stay &gt; 0
   * for every epoch actually run (checked when the step is accounted).
   */
  static NoiseTemperatureSchedule linearInEpoch(double initial, double changePerEpoch) {
    checkArgument(initial > 0 && Double.isFinite(initial), "initial noise temperature must be finite and > 0, was %s",
        initial);
    checkArgument(Double.isFinite(changePerEpoch), "change per epoch must be finite, was %s", changePerEpoch);
    return (k, j) -> initial + changePerEpoch * k;
  }

  /**
   * The paper's decreasing "D" schedule o(k) = finalTemperature + decrementPerEpoch·(K − 1 − k) for a run
   * of K epochs, so that the last epoch has the final temperature (Chen &amp; Liu App. D.2; docs/threat-models.md#data-independent-choices).
   */
  static NoiseTemperatureSchedule decreasingTo(double finalTemperature, double decrementPerEpoch, int epochs) {
    checkArgument(finalTemperature > 0 && Double.isFinite(finalTemperature),
        "final noise temperature must be finite and > 0, was %s", finalTemperature);
    checkArgument(decrementPerEpoch >= 0 && Double.isFinite(decrementPerEpoch),
        "decrement per epoch must be finite and >= 0, was %s", decrementPerEpoch);
    checkArgument(epochs >= 1, "epochs K must be >= 1, was %s", epochs);
    return (k, j) -> finalTemperature + decrementPerEpoch * (epochs - 1 - k);
  }

  /**
   * What identifies the schedule on the first {@code epochs} epochs of {@code batchesPerEpoch} steps (a lambda
   * cannot describe itself): "constant o=0.001", the per-epoch values if o does not vary within an epoch, else
   * the number of distinct values and a hash of all K·N of them. Used in reports and ledger fingerprints.
   */
  static String describe(NoiseTemperatureSchedule schedule, int epochs, int batchesPerEpoch) {
    checkArgument(epochs >= 1 && batchesPerEpoch >= 1, "need epochs >= 1 and batches >= 1, were %s and %s",
        (Integer) epochs, (Integer) batchesPerEpoch);
    // Streamed: memory O(K + distinct values), not O(K·N); the hash is Arrays.hashCode of all K·N values in order.
    double[] perEpoch = new double[epochs];
    Set<Long> distinctBits = new HashSet<>();
    boolean constantInEpochs = true;
    int hash = 1;
    for (int k = 0; k < epochs; k++) {
      perEpoch[k] = schedule.temperature(k, 0);
      for (int j = 0; j < batchesPerEpoch; j++) {
        double v = schedule.temperature(k, j);
        constantInEpochs &= v == perEpoch[k];
        distinctBits.add(Double.doubleToLongBits(v));
        hash = 31 * hash + Double.hashCode(v);
      }
    }
    long distinct = distinctBits.size();
    if (distinct == 1) {
      return "constant o=" + perEpoch[0];
    }
    if (constantInEpochs) {
      return "o by epoch " + Arrays.toString(perEpoch);
    }
    return "o(k, j) varying within epochs (" + distinct + " values, hash " + hash + ")";
  }

  /**
   * Piecewise constant in the epoch: temperatures[i] from epoch startEpochs[i] until the next start;
   * startEpochs must begin at 0 and increase strictly.
   */
  static NoiseTemperatureSchedule piecewiseByEpoch(int[] startEpochs, double[] temperatures) {
    checkArgument(startEpochs.length == temperatures.length && startEpochs.length > 0,
        "need one temperature per start epoch (and at least one), got %s starts and %s temperatures",
        startEpochs.length, temperatures.length);
    checkArgument(startEpochs[0] == 0, "the first piece must start at epoch 0, was %s", startEpochs[0]);
    for (int i = 0; i < temperatures.length; i++) {
      checkArgument(temperatures[i] > 0 && Double.isFinite(temperatures[i]),
          "noise temperature of piece %s must be finite and > 0, was %s", (Integer) i, (Double) temperatures[i]);
      checkArgument(i == 0 || startEpochs[i] > startEpochs[i - 1],
          "start epochs must increase strictly, but %s follows %s", (Integer) startEpochs[i],
          (Integer) (i == 0 ? 0 : startEpochs[i - 1]));
    }
    int[] starts = startEpochs.clone();
    double[] values = temperatures.clone();
    return (k, j) -> {
      int piece = Arrays.binarySearch(starts, k);
      return values[piece >= 0 ? piece : -piece - 2];
    };
  }
}
