package org.dp4j.mbcd;

/** o(k, j) = o (Chen &amp; Liu §4.3 "constant noise"; digest 003 §5.2). */
final class ConstantNoiseSchedule implements NoiseSchedule {
  private final double temperature;

  ConstantNoiseSchedule(double temperature) {
    this.temperature = NoiseArguments.checkTemperature("noise temperature o", temperature);
  }

  @Override
  public double temperature(int epoch, int batch) {
    NoiseArguments.checkStep(epoch, batch);
    return temperature;
  }

  @Override
  public String description() {
    return "constant o=" + temperature;
  }

  @Override
  public String toString() {
    return description();
  }
}
