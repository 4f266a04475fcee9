package org.dp4j.accounting;

import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.Arrays;
import java.util.function.DoubleUnaryOperator;

/**
 * A Rényi-DP curve: an upper bound ε(α) on the Rényi divergence of order α between the outputs of a
 * mechanism on neighbouring datasets, at each order of an {@link Orders} set. Values are ≥ 0 and may
 * be +∞ (the bound says nothing at that order); never NaN.
 *
 * <p>Composition adds curves order by order (Mironov 2017, Prop. 1); curves over different order
 * sets are rejected rather than interpolated.
 *
 * <pre>{@code
 * RdpCurve step = SampledGaussianRdp.curve(256.0 / 60000, 1.1, Orders.DEFAULT);
 * RdpCurve run = step.times(14063);                       // 14,063 identical steps
 * EpsilonDelta e = RdpConversion.IMPROVED.epsilon(run, 1e-5);   // ε ≈ 2.5967 at α ≈ 8.1
 * }</pre>
 */
public final class RdpCurve {
  private final Orders orders;
  private final double[] values;

  private RdpCurve(Orders orders, double[] values) {
    this.orders = orders;
    this.values = values;
  }

  /** A curve with the given value at each order; values must be ≥ 0 or +∞. */
  public static RdpCurve of(Orders orders, double... values) {
    checkArgument(values.length == orders.size(),
        "a curve needs one value per order: %s orders, %s values", orders.size(), values.length);
    for (int i = 0; i < values.length; i++) {
      checkArgument(values[i] >= 0, "RDP at order %s must be >= 0 (or +Infinity), was %s",
          orders.get(i), values[i]);
    }
    return new RdpCurve(orders, values.clone());
  }

  /** The curve ε(α) = f(α) evaluated at every order. */
  public static RdpCurve tabulate(Orders orders, DoubleUnaryOperator f) {
    double[] v = new double[orders.size()];
    for (int i = 0; i < v.length; i++) {
      v[i] = f.applyAsDouble(orders.get(i));
    }
    return of(orders, v);
  }

  /** The curve of a mechanism that reveals nothing: 0 at every order. */
  public static RdpCurve zero(Orders orders) {
    return new RdpCurve(orders, new double[orders.size()]);
  }

  public Orders orders() {
    return orders;
  }

  public int size() {
    return values.length;
  }

  public double order(int i) {
    return orders.get(i);
  }

  public double value(int i) {
    return values[i];
  }

  /** A copy of the values, one per order. */
  public double[] values() {
    return values.clone();
  }

  /** Composition of two mechanisms: ε(α) = ε₁(α) + ε₂(α). */
  public RdpCurve plus(RdpCurve other) {
    requireSameOrders(other);
    double[] v = new double[values.length];
    for (int i = 0; i < v.length; i++) {
      v[i] = values[i] + other.values[i];
    }
    return new RdpCurve(orders, v);
  }

  /** Self-composition k times (k ≥ 0 real, so that fractional epochs of a ledger can be scaled). */
  public RdpCurve times(double k) {
    checkArgument(k >= 0 && Double.isFinite(k), "composition count must be finite and >= 0, was %s", k);
    double[] v = new double[values.length];
    for (int i = 0; i < v.length; i++) {
      v[i] = k == 0 ? 0 : values[i] * k;
    }
    return new RdpCurve(orders, v);
  }

  /**
   * Order-wise minimum: valid when both curves bound the same mechanism under the same neighbouring
   * relation and threat model (each is then a valid bound at every order).
   */
  public RdpCurve min(RdpCurve other) {
    requireSameOrders(other);
    double[] v = new double[values.length];
    for (int i = 0; i < v.length; i++) {
      v[i] = Math.min(values[i], other.values[i]);
    }
    return new RdpCurve(orders, v);
  }

  private void requireSameOrders(RdpCurve other) {
    checkArgument(orders.equals(other.orders),
        "cannot combine RDP curves over different orders: %s vs %s", orders, other.orders);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RdpCurve other && orders.equals(other.orders) && Arrays.equals(values, other.values);
  }

  @Override
  public int hashCode() {
    return 31 * orders.hashCode() + Arrays.hashCode(values);
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("RdpCurve{");
    for (int i = 0; i < values.length; i++) {
      sb.append(i == 0 ? "" : ", ").append(orders.get(i)).append(": ").append(values[i]);
    }
    return sb.append('}').toString();
  }
}
