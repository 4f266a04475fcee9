package org.dp4j.accounting.event;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.dp4j.accounting.GaussianDp;
import org.dp4j.accounting.NeighbouringRelation;
import org.dp4j.accounting.Orders;
import org.dp4j.accounting.RdpCurve;
import org.junit.jupiter.api.Test;

class GroupPrivacyTest {
  @Test
  void groupDeltaIsTheGeometricSum() {
    // k = 2: (2ε, (1 + e^ε)δ), the replace-one conversion quoted in docs/threat-models.md#neighbouring-relations
    assertThat(GroupPrivacy.groupDelta(1.0, 1e-6, 2)).isCloseTo((1 + Math.E) * 1e-6, within(1e-20));
    assertThat(GroupPrivacy.groupDelta(0.5, 1e-6, 3)).isCloseTo((1 + Math.exp(0.5) + Math.exp(1)) * 1e-6,
        within(1e-20));
    assertThat(GroupPrivacy.groupDelta(3, 0.5, 4)).isEqualTo(1);
  }

  @Test
  void groupEpsilonOfExactGaussianProfileIsValidAndAboveTheExactGroupValue() {
    // neighbours: exact 1-GDP profile; a group of k is exactly k-GDP (Dong, Roth & Su 2019, Thm 2.14),
    // so any valid group bound must be ≥ ε(δ; μ = k), and the returned ε must satisfy the lemma
    for (int k : new int[] {1, 2, 4}) {
      double eps = GroupPrivacy.epsilon(e -> GaussianDp.delta(e, 1), k, 1e-5);
      assertThat(eps).isGreaterThanOrEqualTo(GaussianDp.epsilon(1e-5, k) - 1e-9);
      assertThat(GroupPrivacy.groupDelta(eps / k, GaussianDp.delta(eps / k, 1), k)).isLessThanOrEqualTo(1e-5);
    }
    assertThat(GroupPrivacy.epsilon(e -> GaussianDp.delta(e, 1), 1, 1e-5))
        .isCloseTo(GaussianDp.epsilon(1e-5, 1), within(1e-9));
  }

  @Test
  void rdpGroupCurveFollowsMironovProposition2() {
    // Gaussian z = 1: ε(α) = α/2. k = 2 (c = 1): 3·ε(2α) = 3α; k = 3 → c = 2: 9·ε(4α) = 18α;
    // +∞ below α = 2
    Orders orders = Orders.of(1.5, 2, 8);
    RdpCurve two = GroupPrivacy.rdpCurve(DpEvent.gaussian(1), orders, 2);
    assertThat(two.value(0)).isEqualTo(Double.POSITIVE_INFINITY);
    assertThat(two.value(1)).isCloseTo(6, within(1e-12));
    assertThat(two.value(2)).isCloseTo(24, within(1e-12));
    RdpCurve three = GroupPrivacy.rdpCurve(DpEvent.gaussian(1), orders, 3);
    assertThat(three.value(2)).isCloseTo(144, within(1e-12));
    // never below the exact group RDP of the Gaussian, α k²/(2z²)
    assertThat(three.value(2)).isGreaterThanOrEqualTo(8 * 9 / 2.0);
    assertThat(GroupPrivacy.rdpCurve(DpEvent.gaussian(1), orders, 1).value(0)).isCloseTo(0.75, within(1e-15));
  }

  @Test
  void privacyUnitsCountAddRemoveSteps() {
    assertThat(PrivacyUnit.RECORD.addRemoveDistance()).isEqualTo(1);
    assertThat(PrivacyUnit.user(NeighbouringRelation.REPLACE_ONE, 1).addRemoveDistance()).isEqualTo(2);
    assertThat(PrivacyUnit.user(NeighbouringRelation.ADD_REMOVE, 5).addRemoveDistance()).isEqualTo(5);
    assertThat(PrivacyUnit.user(NeighbouringRelation.REPLACE_ONE, 5).addRemoveDistance()).isEqualTo(10);
    assertThat(GroupPrivacy.doublings(1)).isZero();
    assertThat(GroupPrivacy.doublings(2)).isEqualTo(1);
    assertThat(GroupPrivacy.doublings(5)).isEqualTo(3);
    assertThatThrownBy(() -> PrivacyUnit.user(NeighbouringRelation.ADD_REMOVE, 0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("records per user");
  }
}
