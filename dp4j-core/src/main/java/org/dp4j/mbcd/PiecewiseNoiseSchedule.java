package org.dp4j.mbcd;

import static com.google.common.base.Preconditions.checkArgument;

import java.util.Arrays;

/** o(k) constant on epoch ranges (e.g. Chen &amp; Liu Fig. 1's jump at epoch 13; digest 003 §4.4). */
final class PiecewiseNoiseSchedule implements NoiseSchedule {
  private final int[] firstEpochs;
  private final double[] temperatures;

  PiecewiseNoiseSchedule(int[] firstEpochs, double[] temperatures) {
    checkArgument(firstEpochs.length == temperatures.length && firstEpochs.length > 0,
        "need one temperature per piece: %s starts, %s temperatures",
        firstEpochs.length, temperatures.length);
    checkArgument(firstEpochs[0] == 0, "the first piece must start at epoch 0, was %s", firstEpochs[0]);
    for (int i = 0; i < firstEpochs.length; i++) {
      checkArgument(i == 0 || firstEpochs[i] > firstEpochs[i - 1],
          "piece starts must increase strictly, were %s", Arrays.toString(firstEpochs));
      NoiseArguments.checkTemperature("temperature of piece " + i, temperatures[i]);
    }
    this.firstEpochs = firstEpochs.clone();
    this.temperatures = temperatures.clone();
  }

  @Override
  public double temperature(int epoch, int batch) {
    NoiseArguments.checkStep(epoch, batch);
    int i = firstEpochs.length - 1;
    while (firstEpochs[i] > epoch) {
      i--;
    }
    return temperatures[i];
  }

  @Override
  public String description() {
    return "piecewise o: from epochs " + Arrays.toString(firstEpochs) + " values "
        + Arrays.toString(temperatures);
  }

  @Override
  public String toString() {
    return description();
  }
}
