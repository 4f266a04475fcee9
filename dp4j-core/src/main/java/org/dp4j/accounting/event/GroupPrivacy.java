package org.dp4j.accounting.event;

import static com.google.common.base.Preconditions.checkNotNull;
import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.function.DoubleUnaryOperator;
import org.dp4j.accounting.Orders;
import org.dp4j.accounting.RdpCurve;

/**
 * Group privacy: guarantees for datasets k add/remove steps apart, from guarantees for one step.
 *
 * <ul>
 *   <li>(ε, δ): (ε, δ)-DP for neighbours gives (kε, δ·Σ_{i&lt;k} e^{iε})-DP at distance k (Dwork &amp;
 *       Roth 2014, Thm 2.2 for δ = 0; the δ sum by induction on the path, Vadhan 2017, Lemma 2.2);
 *       applied to the whole δ(ε) profile of an accountant, the best split is searched.
 *   <li>RDP: for 2^c-stable transformations, (α, ε(α))-RDP with α ≥ 2^{c+1} gives
 *       (α/2^c, 3^c ε(α))-RDP (Mironov 2017, Prop. 2); with c = ⌈log₂ k⌉ the group curve at order
 *       α′ ≥ 2 is 3^c ε(2^c α′), and +∞ below order 2.
 * </ul>
 *
 * <pre>{@code
 * // given: DpEvent run
 * PldAccountant pld = PldAccountant.withDefaults();
 * double eps = GroupPrivacy.epsilon(e -> pld.delta(run, e), 2, 1e-5);   // replace-one from add/remove
 * }</pre>
 */
public final class GroupPrivacy {
  private static final int SCAN_POINTS = 400;

  private GroupPrivacy() {}

  /** δ·Σ_{i&lt;k} e^{iε}: the δ at distance k of an (ε, δ) neighbour guarantee. */
  public static double groupDelta(double epsilon, double delta, int k) {
    checkArgument(k >= 1, "group size must be >= 1, was %s", k);
    double s = 0;
    for (int i = 0; i < k; i++) {
      s += Math.exp(i * epsilon);
    }
    return Math.min(1, delta * s);
  }

  /**
   * The smallest kε (found on a scan then bisection) such that the neighbour profile δ(ε) gives
   * δ(ε)·Σ_{i&lt;k} e^{iε} ≤ target; +∞ if none up to ε = 64/k. Every ε it returns satisfies the
   * inequality, so the result is valid whenever {@code deltaOfEpsilon} is a valid upper bound.
   */
  public static double epsilon(DoubleUnaryOperator deltaOfEpsilon, int k, double targetDelta) {
    checkNotNull(deltaOfEpsilon, "deltaOfEpsilon");
    checkArgument(k >= 1, "group size must be >= 1, was %s", k);
    checkArgument(targetDelta > 0 && targetDelta < 1, "delta must be in (0, 1), was %s", targetDelta);
    double max = 64.0 / k;
    double previous = 0;
    for (int i = 0; i <= SCAN_POINTS; i++) {
      double eps = max * i / SCAN_POINTS;
      if (fits(deltaOfEpsilon, k, targetDelta, eps)) {
        if (i == 0) {
          return 0;
        }
        double lo = previous;
        double hi = eps;
        for (int j = 0; j < 60 && hi - lo > 1e-12 * Math.max(1, hi); j++) {
          double mid = 0.5 * (lo + hi);
          if (fits(deltaOfEpsilon, k, targetDelta, mid)) {
            hi = mid;
          } else {
            lo = mid;
          }
        }
        return k * hi;
      }
      previous = eps;
    }
    return Double.POSITIVE_INFINITY;
  }

  private static boolean fits(DoubleUnaryOperator deltaOfEpsilon, int k, double target, double eps) {
    return groupDelta(eps, deltaOfEpsilon.applyAsDouble(eps), k) <= target;
  }

  /** c = ⌈log₂ k⌉, the doubling count of Mironov's group bound. */
  public static int doublings(int k) {
    checkArgument(k >= 1, "group size must be >= 1, was %s", k);
    return 32 - Integer.numberOfLeadingZeros(k - 1);
  }

  /** The RDP curve of {@code event} for groups of k records at the given orders (Mironov 2017, Prop. 2). */
  public static RdpCurve rdpCurve(DpEvent event, Orders orders, int k) {
    int c = doublings(k);
    if (c == 0) {
      return RdpEventAccountant.curve(event, orders);
    }
    double scale = Math.pow(2, c);
    double[] scaled = new double[orders.size()];
    for (int i = 0; i < scaled.length; i++) {
      scaled[i] = orders.get(i) * scale;
    }
    RdpCurve atScaled = RdpEventAccountant.curve(event, Orders.of(scaled));
    double factor = Math.pow(3, c);
    double[] values = new double[orders.size()];
    for (int i = 0; i < values.length; i++) {
      values[i] = orders.get(i) >= 2 ? factor * atScaled.value(i) : Double.POSITIVE_INFINITY;
    }
    return RdpCurve.of(orders, values);
  }
}
