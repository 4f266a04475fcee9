package org.dp4j.accounting;

import static org.dp4j.InvalidSettingException.checkArgument;

/**
 * Conversion of a Rényi-DP curve to (ε, δ)-DP, minimised over the curve's orders.
 *
 * <pre>{@code
 * // given: RdpCurve curve
 * EpsilonDelta e = RdpConversion.IMPROVED.epsilon(curve, 1e-5);
 * double delta = RdpConversion.IMPROVED.delta(curve, 3.0).delta();
 * }</pre>
 */
public enum RdpConversion {
  /**
   * ε = r(α) + log1p(−1/α) − (log δ + log α)/(α − 1) (Balle et al. 2020, Thm 21; Canonne, Kamath &amp;
   * Steinke 2020), with dp_accounting's KL shortcut: if δ² + expm1(−r(α)) &gt; 0 then ε = 0 is valid
   * because δ ≥ √(1 − e^{−KL}) and KL ≤ r(α). Orders α ≤ 1.01 use only the shortcut (the formula is
   * numerically unstable there). The default.
   */
  IMPROVED {
    @Override
    double epsilonAt(double alpha, double r, double delta) {
      if (delta * delta + Math.expm1(-r) > 0) {
        return 0;
      }
      if (alpha <= 1.01) {
        return Double.POSITIVE_INFINITY;
      }
      if (alpha == Double.POSITIVE_INFINITY) {
        return r;
      }
      return r + Math.log1p(-1 / alpha) - (Math.log(delta) + Math.log(alpha)) / (alpha - 1);
    }

    @Override
    double logDeltaAt(double alpha, double r, double epsilon) {
      // δ ≤ √(1 − e^{−r}) (KL bound), and the inverse of the formula above.
      double kl = r == 0 ? Double.NEGATIVE_INFINITY : 0.5 * Math.log(-Math.expm1(-r));
      if (alpha <= 1.01) {
        return kl;
      }
      if (alpha == Double.POSITIVE_INFINITY) {
        return r <= epsilon ? Double.NEGATIVE_INFINITY : kl;
      }
      return Math.min(kl, (alpha - 1) * (r - epsilon + Math.log1p(-1 / alpha)) - Math.log(alpha));
    }
  },
  /** ε = r(α) + log(1/δ)/(α − 1) (Mironov 2017, Prop. 3; docs/accountants.md#rdp-conversion; Boninsegna's survey, Prop V.2). */
  CLASSIC {
    @Override
    double epsilonAt(double alpha, double r, double delta) {
      if (alpha == Double.POSITIVE_INFINITY) {
        return r;
      }
      return r - Math.log(delta) / (alpha - 1);
    }

    @Override
    double logDeltaAt(double alpha, double r, double epsilon) {
      if (alpha == Double.POSITIVE_INFINITY) {
        return r <= epsilon ? Double.NEGATIVE_INFINITY : 0;
      }
      return Math.min(0, (alpha - 1) * (r - epsilon));
    }
  };

  abstract double epsilonAt(double alpha, double r, double delta);

  abstract double logDeltaAt(double alpha, double r, double epsilon);

  /** The smallest ε over the curve's orders such that the mechanism is (ε, δ)-DP. */
  public EpsilonDelta epsilon(RdpCurve curve, double delta) {
    checkArgument(delta > 0 && delta < 1, "delta must be in (0, 1), was %s", delta);
    int best = 0;
    double bestEps = Double.POSITIVE_INFINITY;
    for (int i = 0; i < curve.size(); i++) {
      double r = curve.value(i);
      double eps = Double.isFinite(r) ? epsilonAt(curve.order(i), r, delta) : Double.POSITIVE_INFINITY;
      if (eps < bestEps) {
        bestEps = eps;
        best = i;
      }
    }
    return new EpsilonDelta(Math.max(0, bestEps), delta, curve.order(best), onEdge(curve, best, bestEps));
  }

  /** The smallest δ over the curve's orders such that the mechanism is (ε, δ)-DP. */
  public EpsilonDelta delta(RdpCurve curve, double epsilon) {
    checkArgument(epsilon >= 0 && Double.isFinite(epsilon), "epsilon must be finite and >= 0, was %s", epsilon);
    int best = 0;
    double bestLogDelta = 0;
    for (int i = 0; i < curve.size(); i++) {
      double r = curve.value(i);
      double logDelta = Double.isFinite(r) ? logDeltaAt(curve.order(i), r, epsilon) : 0;
      if (logDelta < bestLogDelta) {
        bestLogDelta = logDelta;
        best = i;
      }
    }
    double delta = Math.min(1, Math.exp(bestLogDelta));
    return new EpsilonDelta(epsilon, delta, curve.order(best), onEdge(curve, best, bestLogDelta));
  }

  private static boolean onEdge(RdpCurve curve, int best, double value) {
    return Double.isFinite(value) && curve.size() > 1 && (best == 0 || best == curve.size() - 1);
  }
}
