package org.dp4j.mbcd;

/**
 * The noise temperature o(k, j) of DP-MBCD: the released block gets N(0, 2η·o(k,j)·I) added inside
 * the prox at batch j of epoch k (Chen &amp; Liu, Eq. 6; digest 003 §2.1, P8). o is a variance-like
 * temperature, not a DP-SGD noise multiplier. It must be fixed before training and must not depend on
 * the data (digest P14), which is why the implementations here are functions of (k, j) only.
 *
 * <pre>{@code
 * NoiseSchedule c = NoiseSchedule.constant(0.005);                 // Madelon "C"
 * NoiseSchedule d = NoiseSchedule.linearDecay(0.002, 0.00025, 40); // Madelon "D", K = 40
 * }</pre>
 */
public interface NoiseSchedule {

  /** o(k, j) &gt; 0 for epoch k ≥ 0 (0-based) and batch position j ≥ 0 in that epoch. */
  double temperature(int epoch, int batch);

  /** A short description for reports, e.g. "constant o=0.005". */
  String description();

  /** o(k, j) = o for every step. */
  static NoiseSchedule constant(double temperature) {
    return new ConstantNoiseSchedule(temperature);
  }

  /**
   * o(k) = oFinal + decrement·(K − 1 − k) for k = 0..K−1: decreasing linearly to oFinal in the last
   * epoch (the paper's "D" schedule with 0-based epochs; digest P14).
   */
  static NoiseSchedule linearDecay(double finalTemperature, double decrementPerEpoch, int epochs) {
    return new LinearDecayNoiseSchedule(finalTemperature, decrementPerEpoch, epochs);
  }

  /**
   * o(k) = temperatures[i] for firstEpochs[i] ≤ k &lt; firstEpochs[i+1]; firstEpochs must start at 0
   * and increase strictly.
   */
  static NoiseSchedule piecewise(int[] firstEpochs, double[] temperatures) {
    return new PiecewiseNoiseSchedule(firstEpochs, temperatures);
  }
}
