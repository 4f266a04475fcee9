package org.dp4j.accounting.pld;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Composition and queries on small hand-made PLDs whose composed law is computed by hand. */
class ComposedPldTest {
  private static final double D = 0.5;

  @Test
  void selfCompositionOfTwoAtomsIsBinomial() {
    // losses {0, 0.5} w.p. ½ each, composed twice: {0, 0.5, 1} w.p. ¼, ½, ¼
    PrivacyLossPmf coin = new PrivacyLossPmf(D, 0, new double[] {0.5, 0.5}, 0, 0);
    ComposedPld c = ComposedPld.compose(List.of(new ComposedPld.Phase(coin, 2)));
    assertThat(c.upperTail()).isZero();
    assertThat(c.lowerTail()).isZero();
    assertThat(c.roundoff()).isLessThan(1e-13);
    // δ(ε = 0.25) = ½(1 − e^{−0.25}) + ¼(1 − e^{−0.75})
    double expected = 0.5 * -Math.expm1(-0.25) + 0.25 * -Math.expm1(-0.75);
    assertThat(c.computedDelta(0.25)).isCloseTo(expected, within(1e-15));
    assertThat(c.computedDelta(1.0)).isZero();
    assertThat(c.computedDelta(0)).isCloseTo(0.5 * -Math.expm1(-0.5) + 0.25 * -Math.expm1(-1), within(1e-15));
    // inverse: ε in (0.5, 1): δ = ¼(1 − e^{ε−1}) → ε = 1 + ln(1 − 4δ)
    double eps = c.computedEpsilon(0.01);
    assertThat(eps).isCloseTo(1 + Math.log(1 - 0.04), within(1e-12));
    assertThat(c.computedDelta(eps)).isLessThanOrEqualTo(0.01);
    assertThat(c.computedDelta(eps - 1e-9)).isGreaterThan(0.01);
  }

  @Test
  void heterogeneousPhasesWithAnInfinityAtom() {
    // A: {−0.5: 0.3, 1.0: 0.7}; B: {0: 0.9} plus 0.1 at +∞. A once, B twice.
    PrivacyLossPmf a = new PrivacyLossPmf(D, -1, new double[] {0.3, 0, 0, 0.7}, 0, 0);
    PrivacyLossPmf b = new PrivacyLossPmf(D, 0, new double[] {0.9}, 0.1, 0);
    ComposedPld c = ComposedPld.compose(List.of(new ComposedPld.Phase(a, 1), new ComposedPld.Phase(b, 2)));
    // finite part: A's law times 0.81; +∞ with 1 − 0.81
    assertThat(c.infinityMass()).isCloseTo(0.19, within(1e-15));
    double expected = 0.19 + 0.81 * 0.7 * -Math.expm1(0.2 - 1.0);
    assertThat(c.computedDelta(0.2)).isCloseTo(expected, within(1e-14));
    assertThat(c.computedEpsilon(0.1)).isEqualTo(Double.POSITIVE_INFINITY);
    assertThat(c.movedMass()).isCloseTo(0.2, within(1e-15));
    // Hoeffding: t(η) = √(3Δ² ln(1/η)/2)
    assertThat(c.couplingDeviation(1e-6)).isCloseTo(Math.sqrt(3 * D * D * Math.log(1e6) / 2), within(1e-15));
  }

  @Test
  void rejectsMixedGrids() {
    PrivacyLossPmf a = new PrivacyLossPmf(0.5, 0, new double[] {1}, 0, 0);
    PrivacyLossPmf b = new PrivacyLossPmf(0.25, 0, new double[] {1}, 0, 0);
    assertThatThrownBy(() -> ComposedPld.compose(List.of(new ComposedPld.Phase(a, 1), new ComposedPld.Phase(b, 1))))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("same grid spacing");
    assertThatThrownBy(() -> new PrivacyLossPmf(0.5, 0, new double[] {-0.1}, 0, 0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-0.1");
  }
}
