package org.dp4j.mbcd;

import static com.google.common.base.Preconditions.checkArgument;

/** o(k) = oFinal + decrement·(K − 1 − k), k = 0..K−1 (Chen &amp; Liu App. D.2 "D"; digest 003 P14). */
final class LinearDecayNoiseSchedule implements NoiseSchedule {
  private final double finalTemperature;
  private final double decrement;
  private final int epochs;

  LinearDecayNoiseSchedule(double finalTemperature, double decrement, int epochs) {
    this.finalTemperature = NoiseArguments.checkTemperature("final temperature", finalTemperature);
    checkArgument(decrement >= 0 && Double.isFinite(decrement),
        "decrement per epoch must be finite and >= 0, was %s", decrement);
    checkArgument(epochs >= 1, "epochs must be >= 1, was %s", epochs);
    this.decrement = decrement;
    this.epochs = epochs;
  }

  @Override
  public double temperature(int epoch, int batch) {
    NoiseArguments.checkStep(epoch, batch);
    checkArgument(epoch < epochs, "epoch must be < %s (the schedule's K), was %s", epochs, epoch);
    return finalTemperature + decrement * (epochs - 1 - epoch);
  }

  @Override
  public String description() {
    return "linear decay o(k)=" + finalTemperature + "+" + decrement + "*(" + epochs + "-1-k)";
  }

  @Override
  public String toString() {
    return description();
  }
}
