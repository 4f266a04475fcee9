package org.dp4j.accounting;

import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * An immutable, strictly increasing set of Rényi orders α &gt; 1 (α = +∞ allowed as the last order).
 *
 * <pre>{@code
 * Orders grid = Orders.DEFAULT;                   // 1.1, 1.2, ..., 10.9, 11, 12, ..., 63, 128, ..., 1024
 * Orders mine = Orders.of(2, 4.5, 8, 16, 32);
 * }</pre>
 */
public final class Orders {
  /**
   * dp_accounting's default grid: 1.1..10.9 in steps of 0.1, then 11..63, 128, 256, 512, 1024
   * (docs/accountants.md#rdp-orders).
   */
  public static final Orders DEFAULT = defaultGrid();

  private final double[] values;

  private Orders(double[] values) {
    this.values = values;
  }

  /** Orders from the given values, which must be &gt; 1, free of NaN and strictly increasing. */
  public static Orders of(double... values) {
    checkArgument(values.length > 0, "at least one Rényi order is needed");
    double[] copy = values.clone();
    for (int i = 0; i < copy.length; i++) {
      checkArgument(copy[i] > 1, "Rényi orders must be > 1, was %s", copy[i]);
      checkArgument(i == 0 || copy[i] > copy[i - 1],
          "Rényi orders must be strictly increasing, but %s follows %s", copy[i], i == 0 ? 0 : copy[i - 1]);
    }
    return new Orders(copy);
  }

  /** Like {@link #of} but sorts and removes duplicates first (for user input such as "8,2,4.5"). */
  public static Orders sortedOf(double... values) {
    return of(Arrays.stream(values).sorted().distinct().toArray());
  }

  private static Orders defaultGrid() {
    double[] grid = new double[99 + 53 + 4];
    int k = 0;
    for (int tenths = 11; tenths <= 109; tenths++) {
      grid[k++] = tenths / 10.0;
    }
    for (int a = 11; a <= 63; a++) {
      grid[k++] = a;
    }
    for (double a : new double[] {128, 256, 512, 1024}) {
      grid[k++] = a;
    }
    return new Orders(grid);
  }

  public int size() {
    return values.length;
  }

  public double get(int i) {
    return values[i];
  }

  /** A copy of the orders. */
  public double[] toArray() {
    return values.clone();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Orders other && Arrays.equals(values, other.values);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(values);
  }

  @Override
  public String toString() {
    return Arrays.stream(values).mapToObj(Double::toString).collect(Collectors.joining(", ", "[", "]"));
  }
}
