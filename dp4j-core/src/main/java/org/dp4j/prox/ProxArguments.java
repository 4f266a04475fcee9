package org.dp4j.prox;

import static org.dp4j.InvalidSettingException.checkArgument;

/** Boundary checks shared by the proximal operators. */
final class ProxArguments {
  private ProxArguments() {}

  static void checkStep(double eta) {
    checkArgument(eta > 0 && Double.isFinite(eta), "step eta must be finite and > 0, was %s", eta);
  }

  static void checkStrength(double lambda) {
    checkArgument(lambda >= 0 && Double.isFinite(lambda),
        "regularisation strength lambda must be finite and >= 0, was %s", lambda);
  }

  static double norm2(double[] v) {
    double s = 0;
    for (double x : v) {
      s += x * x;
    }
    return Math.sqrt(s);
  }
}
