package org.dp4j.mbcd;

import static com.google.common.base.Preconditions.checkArgument;

/** Boundary checks shared by the noise schedules. */
final class NoiseArguments {
  private NoiseArguments() {}

  static double checkTemperature(String name, double o) {
    checkArgument(o > 0 && Double.isFinite(o), "%s must be finite and > 0, was %s", name, o);
    return o;
  }

  static void checkStep(int epoch, int batch) {
    checkArgument(epoch >= 0, "epoch must be >= 0, was %s", epoch);
    checkArgument(batch >= 0, "batch must be >= 0, was %s", batch);
  }
}
