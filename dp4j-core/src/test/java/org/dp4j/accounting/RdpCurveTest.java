package org.dp4j.accounting;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RdpCurveTest {
  @Test
  void defaultOrdersAreDpAccountingsGrid() {
    Orders d = Orders.DEFAULT;
    assertThat(d.size()).isEqualTo(99 + 53 + 4);
    assertThat(d.get(0)).isEqualTo(1.1);
    assertThat(d.get(98)).isEqualTo(10.9);
    assertThat(d.get(99)).isEqualTo(11);
    assertThat(d.get(151)).isEqualTo(63);
    assertThat(d.get(d.size() - 1)).isEqualTo(1024);
  }

  @Test
  void compositionAddsOrderByOrder() {
    Orders o = Orders.of(2, 4, Double.POSITIVE_INFINITY);
    RdpCurve a = RdpCurve.of(o, 0.1, 0.2, Double.POSITIVE_INFINITY);
    RdpCurve b = RdpCurve.of(o, 0.3, 0.5, 1);
    assertThat(a.plus(b).values()).containsExactly(0.4, 0.7, Double.POSITIVE_INFINITY);
    assertThat(b.times(3).values()).containsExactly(0.3 * 3, 1.5, 3);
    assertThat(a.times(0).values()).containsExactly(0, 0, 0);
    assertThat(a.min(b).values()).containsExactly(0.1, 0.2, 1);
  }

  @Test
  void rejectsCurvesOverDifferentOrders() {
    RdpCurve a = RdpCurve.zero(Orders.of(2, 4));
    RdpCurve b = RdpCurve.zero(Orders.of(2, 5));
    assertThatThrownBy(() -> a.plus(b)).hasMessageContaining("different orders");
  }

  @Test
  void rejectsInvalidOrdersAndValues() {
    assertThatThrownBy(() -> Orders.of(1.0, 2)).hasMessageContaining("> 1");
    assertThatThrownBy(() -> Orders.of(3, 2)).hasMessageContaining("increasing");
    assertThatThrownBy(() -> RdpCurve.of(Orders.of(2), -0.1)).hasMessageContaining("-0.1");
    assertThatThrownBy(() -> RdpCurve.of(Orders.of(2), Double.NaN)).hasMessageContaining("NaN");
    assertThat(Orders.sortedOf(8, 2, 4.5, 2).toArray()).containsExactly(2, 4.5, 8);
  }
}
