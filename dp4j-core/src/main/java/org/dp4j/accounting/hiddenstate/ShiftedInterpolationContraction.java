package org.dp4j.accounting.hiddenstate;

import static org.dp4j.InvalidSettingException.checkArgument;

/**
 * The contraction factor c = max(|1 − ηm|, |1 − ηM|) of a gradient step on m-strongly convex, M-smooth
 * losses (Bok, Su &amp; Altschuler 2024, Lemma 2.8; docs/errata.md#shifted-interpolation-text), kept as 1 − c = min(ηm, 2 − ηM) so
 * that powers of c near 1 stay accurate (docs/errata.md#shifted-interpolation-gdp-conversion).
 */
record ShiftedInterpolationContraction(double oneMinusC) {
  /** Validates η ∈ (0, 2/M] (Lemma 2.8) and m ≤ M, then computes 1 − c. */
  static ShiftedInterpolationContraction of(double eta, double m, double bigM) {
    checkArgument(bigM > 0 && Double.isFinite(bigM), "M (smoothness) must be set, finite and > 0, was %s", bigM);
    checkArgument(m >= 0 && m <= bigM, "m (strong convexity) must be in [0, M = %s], was %s", bigM, m);
    checkArgument(eta > 0 && Double.isFinite(eta), "η (step size) must be finite and > 0, was %s", eta);
    checkArgument(eta <= 2 / bigM, "η = %s violates η ≤ 2/M = %s (Lemma 2.8: the gradient step must be"
        + " contractive; M = %s)", eta, 2 / bigM, bigM);
    // c = max(1 − ηm, ηM − 1) for 0 ≤ ηm ≤ ηM ≤ 2
    return new ShiftedInterpolationContraction(Math.max(0, Math.min(eta * m, 2 - eta * bigM)));
  }

  /** True when c &lt; 1: the strongly convex theorems (4.2, 4.5) apply. */
  boolean isStrict() {
    return oneMinusC > 0;
  }

  double c() {
    return 1 - oneMinusC;
  }

  /** c^k. */
  double power(long k) {
    return k == 0 ? 1 : Math.exp(k * Math.log1p(-oneMinusC));
  }

  /** 1 − c^k without cancellation. */
  double oneMinusPower(long k) {
    return k == 0 ? 0 : -Math.expm1(k * Math.log1p(-oneMinusC));
  }

  /** 1 − c² = (1 − c)(1 + c). */
  double oneMinusSquare() {
    return oneMinusC * (2 - oneMinusC);
  }
}
