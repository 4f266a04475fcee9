package org.dp4j.accounting.event;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.dp4j.accounting.Orders;
import org.dp4j.accounting.RdpConversion;
import org.dp4j.accounting.RdpCurve;
import org.junit.jupiter.api.Test;

class RdpEventAccountantTest {
  private static final double MNIST_Q = 256.0 / 60000;

  @Test
  void sampledGaussianStepMatchesThePublishedPerStepRdp() {
    // docs/accountants.md#sampled-gaussian-rdp: q = 256/60000, z = 1.1: α=2 → 2.339577601e-5, α=8 → 9.834106178e-5, α=32 → 7.590188346
    RdpCurve c = RdpEventAccountant.curve(DpEvent.sampledGaussian(MNIST_Q, 1.1), Orders.of(2, 8, 32));
    assertThat(c.value(0)).isCloseTo(2.339577601e-5, within(1e-13));
    assertThat(c.value(1)).isCloseTo(9.834106178e-5, within(1e-13));
    assertThat(c.value(2)).isCloseTo(7.590188346, within(1e-8));
  }

  @Test
  void mnistRunGivesTheAnchorEpsilon() {
    DpEvent run = DpEvent.sampledGaussian(MNIST_Q, 1.1).times(14063);
    // docs/accountants.md#sampled-gaussian-rdp: ε ≈ 2.5967 (improved conversion), 3.008 (classic)
    RdpCurve c = RdpEventAccountant.curve(run, Orders.DEFAULT);
    assertThat(RdpConversion.IMPROVED.epsilon(c, 1e-5).epsilon()).isCloseTo(2.5967, within(1e-4));
    assertThat(RdpConversion.CLASSIC.epsilon(c, 1e-5).epsilon()).isCloseTo(3.008, within(1e-3));
  }

  @Test
  void gaussianEventIsTheGaussianCurveAndSequencesAdd() {
    // Mironov 2017, Prop. 7: α/(2z²); two events in sequence add order by order
    DpEvent run = DpEvent.gaussian(2).then(DpEvent.gaussian(1).times(3));
    RdpCurve c = RdpEventAccountant.curve(run, Orders.of(2, 10));
    assertThat(c.value(0)).isCloseTo(2 / 8.0 + 3 * 2 / 2.0, within(1e-15));
    assertThat(c.value(1)).isCloseTo(10 / 8.0 + 3 * 10 / 2.0, within(1e-15));
  }

  @Test
  void nestedSamplingMultipliesRatesAndFlattensCounts() {
    DpEvent nested = new PoissonSampledEvent(0.5, new PoissonSampledEvent(0.02, new GaussianEvent(1.0)));
    assertThat(RdpEventAccountant.curve(nested.times(7).times(3), Orders.DEFAULT))
        .isEqualTo(RdpEventAccountant.curve(DpEvent.sampledGaussian(0.01, 1.0).times(21), Orders.DEFAULT));
    SampledGaussianSteps steps = SampledGaussianSteps.of(
        new ComposedEvent(List.of(nested.times(2), DpEvent.gaussian(3), nested)), "test");
    assertThat(steps.counts()).containsEntry(new SampledGaussianSteps.Step(0.01, 1.0), 3L)
        .containsEntry(new SampledGaussianSteps.Step(1.0, 3.0), 1L);
    assertThat(steps.totalSteps()).isEqualTo(4);
  }

  @Test
  void rejectsInvalidEventsWithReasons() {
    assertThatThrownBy(() -> DpEvent.gaussian(0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("noise multiplier").hasMessageContaining("0.0");
    assertThatThrownBy(() -> DpEvent.sampledGaussian(1.5, 1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("sampling rate").hasMessageContaining("1.5");
    assertThatThrownBy(() -> DpEvent.gaussian(1).times(-1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("-1");
    assertThatThrownBy(() -> new ComposedEvent(List.of())).isInstanceOf(IllegalArgumentException.class);
    DpEvent sampledSequence = new PoissonSampledEvent(0.1, DpEvent.gaussian(1).times(2));
    assertThatThrownBy(() -> RdpEventAccountant.curve(sampledSequence, Orders.DEFAULT))
        .isInstanceOf(UnsupportedEventException.class).hasMessageContaining(RdpEventAccountant.NAME);
  }
}
