package org.dp4j.accounting.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.dp4j.accounting.NeighbouringRelation;
import org.dp4j.accounting.Orders;
import org.dp4j.accounting.RdpConversion;
import org.dp4j.accounting.ThreatModel;
import org.dp4j.accounting.hiddenstate.NoiseTemperatureSchedule;
import org.dp4j.sampling.SamplingPlan;
import org.dp4j.sampling.SamplingScheme;
import org.junit.jupiter.api.Test;

class BlockGaussianCompositionStepAccountantTest {
  /** o(0, j) = 0.1, 0.2, 0.3; o(1, j) = 0.4, 0.1, 0.4: the worst batch position changes after epoch 1. */
  private static final NoiseTemperatureSchedule TWO_EPOCHS = (k, j) -> k == 0 ? 0.1 * (j + 1) : j == 1 ? 0.1 : 0.4;

  private static BlockGaussianCompositionStepAccountant tiny(Orders orders) {
    // n = 6, b = 2 (N = 3), K = 2, η = 0.5, two blocks with Δ = 0.3 and 0.4
    return BlockGaussianCompositionStepAccountant.builder().partition(6, 2).epochs(2).stepSize(0.5)
        .noiseSchedule(TWO_EPOCHS, "test schedule").block("A", 0.3, "given").block("B", 0.4, "given")
        .orders(orders).build();
  }

  @Test
  void rdpIsTheGaussianClosedFormSummedByHandOverTheWorstBatchPosition() {
    // By hand (python3 + mpmath): per step (k, j) the RDP is α·(0.3² + 0.4²)/(2·2·0.5·o(k, j)) = α·0.125/o(k, j),
    // i.e. 1.25, 0.625, 0.41667 in epoch 0 and 0.3125, 1.25, 0.3125 in epoch 1; the record's batch j0 is the same
    // every epoch, so after s steps the coefficient of α is max_j0 of the sum over the steps taken at j0:
    double[] expected = {0, 1.25, 1.25, 1.25, 1.5625, 1.875, 1.875};
    var acc = tiny(Orders.of(2, 3));
    for (int s = 0; s <= 6; s++) {
      assertThat(acc.curveAfter(s).value(0)).as("s = %s, α = 2", s).isCloseTo(2 * expected[s], within(1e-12));
      assertThat(acc.curveAfter(s).value(1)).as("s = %s, α = 3", s).isCloseTo(3 * expected[s], within(1e-12));
    }
    acc.advance(4);
    assertThat(acc.curve().value(0)).isCloseTo(2 * 1.5625, within(1e-12));
    assertThat(acc.curveAfter(2).value(0)).isCloseTo(2 * 1.875, within(1e-12));
  }

  @Test
  void epsilonMatchesAnIndependentConversionOfTheHandComputedRdp() {
    // python3 + mpmath: min over α ∈ {2, 3, 4, 5, 8, 16, 32} of 1.875α + log(1 − 1/α) − (log δ + log α)/(α − 1),
    // δ = 1e-5 (Balle et al. 2020, Thm 21): 10.42669148004289 at α = 3.
    var acc = tiny(Orders.of(2, 3, 4, 5, 8, 16, 32));
    acc.advance(6);
    var g = acc.guaranteeAfter(0, 1e-5, RdpConversion.IMPROVED);
    assertThat(g.epsilon()).isCloseTo(10.42669148004289, within(1e-9));
    assertThat(g.optimalOrder()).contains(3.0);
    assertThat(g.relation()).isEqualTo(NeighbouringRelation.REPLACE_ONE);
    assertThat(g.threatModel()).isEqualTo(ThreatModel.ALL_ITERATES_RELEASED);
    assertThat(acc.notCertifiedBecause()).isEmpty();
  }

  @Test
  void equalsTheFixedPartitionDpSgdAccountantAtEpochBoundariesForOneBlockAndConstantNoise() {
    // One block with Δ = 2C (C = 1) under N(0, 2η·o) = N(0, z²): the DP-SGD fixed-partition accountant (2α/z² per
    // epoch, an independent implementation) must agree at the end of every epoch and never be below it mid-epoch
    // by more than rounding.
    double z = 1.7;
    double eta = 0.5;
    var mine = BlockGaussianCompositionStepAccountant.builder().partition(600, 100).epochs(5).stepSize(eta)
        .noiseSchedule(NoiseTemperatureSchedule.constant(z * z / (2 * eta)), "constant").block("W", 2.0, "2C")
        .orders(Orders.DEFAULT).build();
    var dpSgd = new FixedPartitionCompositionStepAccountant(600, 100, z, Orders.DEFAULT);
    for (int s = 0; s <= 30; s++) {
      for (int i = 0; i < Orders.DEFAULT.size(); i++) {
        assertThat(mine.curveAfter(s).value(i)).isCloseTo(dpSgd.curveAfter(s).value(i),
            within(1e-9 * (1 + dpSgd.curveAfter(s).value(i))));
      }
    }
  }

  @Test
  void monotoneInStepsAndDecreasingInNoise() {
    double previous = 0;
    var low = BlockGaussianCompositionStepAccountant.builder().partition(60, 10).epochs(4).stepSize(0.1)
        .noiseSchedule(NoiseTemperatureSchedule.linearInEpoch(0.01, 0.005), "linear").block("W", 0.02, "given")
        .build();
    var high = BlockGaussianCompositionStepAccountant.builder().partition(60, 10).epochs(4).stepSize(0.1)
        .noiseSchedule(NoiseTemperatureSchedule.linearInEpoch(0.02, 0.005), "linear").block("W", 0.02, "given")
        .build();
    for (int s = 1; s <= 24; s++) {
      double e = low.guaranteeAfter(s, 1e-5, RdpConversion.IMPROVED).epsilon();
      assertThat(e).isGreaterThanOrEqualTo(previous);
      assertThat(high.guaranteeAfter(s, 1e-5, RdpConversion.IMPROVED).epsilon()).isLessThan(e);
      previous = e;
    }
  }

  @Test
  void stepsBeyondThePlannedEpochsAreNotCovered() {
    var acc = tiny(Orders.DEFAULT);
    assertThat(acc.guaranteeAfter(7, 1e-5, RdpConversion.IMPROVED).isFinite()).isFalse();
    acc.advance(6);
    assertThatThrownBy(() -> acc.advance(1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("covers 2 epochs of 3 steps");
  }

  @Test
  void refusesDpSgdRunsAndBadInput() {
    SamplingPlan plan = new SamplingPlan(SamplingScheme.SHUFFLE_ONCE_FIXED_PARTITION, 6, 1.0 / 3, 2, 3, 0);
    assertThatThrownBy(() -> tiny(Orders.DEFAULT).requireCovers(plan, 1.0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not DP-SGD steps");
    assertThatThrownBy(() -> BlockGaussianCompositionStepAccountant.builder().partition(7, 2))
        .hasMessageContaining("multiple of the batch size b = 2, was 7");
    assertThatThrownBy(() -> BlockGaussianCompositionStepAccountant.builder().block("W", -1, "x"))
        .hasMessageContaining("sensitivity must be finite and >= 0, was -1.0");
  }
}
