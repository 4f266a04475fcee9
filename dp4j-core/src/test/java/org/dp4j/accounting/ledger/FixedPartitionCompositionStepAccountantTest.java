package org.dp4j.accounting.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.dp4j.accounting.GaussianDp;
import org.dp4j.accounting.NeighbouringRelation;
import org.dp4j.accounting.Orders;
import org.dp4j.accounting.RdpConversion;
import org.dp4j.accounting.ThreatModel;
import org.dp4j.accounting.hiddenstate.YeShokriConfig;
import org.dp4j.accounting.hiddenstate.YeShokriShuffleStepAccountant;
import org.junit.jupiter.api.Test;

class FixedPartitionCompositionStepAccountantTest {
  private static final Orders ALPHA_10 = Orders.of(10);

  @Test
  void oneEpochIsOneGaussianOfSensitivityTwoC() {
    // Ye & Shokri 2022; docs/accountants.md#ye-shokri: MNIST (σ_mul = 3.08), α = 10: ε_0^1 = G(10) = 2.10828133, one release touching the record.
    var acc = new FixedPartitionCompositionStepAccountant(59_392, 2048, 3.08, ALPHA_10);
    assertThat(acc.curve().value(0)).isZero();
    assertThat(acc.curveAfter(1).value(0)).isCloseTo(2.10828133, within(1e-8));
    assertThat(acc.curveAfter(29).value(0)).isCloseTo(2.10828133, within(1e-8));
    // Step 30 opens epoch 2: the record may sit in batch 0, already run again.
    assertThat(acc.curveAfter(30).value(0)).isCloseTo(2 * 2.10828133, within(1e-8));
    acc.advance(29 * 40);
    assertThat(acc.curve().value(0)).isCloseTo(40 * 2.10828133, within(1e-6));
    assertThat(acc.relation()).isEqualTo(NeighbouringRelation.REPLACE_ONE);
    assertThat(acc.threatModel()).isEqualTo(ThreatModel.ALL_ITERATES_RELEASED);
  }

  @Test
  void rdpConversionIsNeverBelowTheExactGaussianDpValue() {
    // K epochs = one Gaussian of sensitivity 2√K·C over zC, i.e. μ-GDP with μ = 2√K/z (exact); RDP conversion
    // must give a larger ε, and not by much.
    for (int k : new int[] {1, 10, 100}) {
      var acc = new FixedPartitionCompositionStepAccountant(6000, 100, 20, Orders.DEFAULT);
      acc.advance(60L * k);
      double rdp = RdpConversion.IMPROVED.epsilon(acc.curve(), 1e-5).epsilon();
      double exact = GaussianDp.epsilon(1e-5, 2 * Math.sqrt(k) / 20);
      assertThat(rdp).isGreaterThanOrEqualTo(exact).isLessThan(1.5 * exact);
    }
  }

  @Test
  void hiddenStateBoundIsNeverAboveComposition() {
    // Thm 5.2: T1(K) + T2 ≤ (K−1)·ε_0^h + G ≤ K·G (Ye & Shokri 2022; docs/accountants.md#ye-shokri), for every K.
    YeShokriConfig c = YeShokriConfig.builder().datasetSize(59_392).batchSize(2048).epochs(1).stepSize(0.75)
        .strongConvexity(0.08).smoothness(2.58).clipNorm(3.16).noiseMultiplier(3.08).build();
    var hidden = new YeShokriShuffleStepAccountant(c, Orders.DEFAULT);
    var comp = new FixedPartitionCompositionStepAccountant(59_392, 2048, 3.08, Orders.DEFAULT);
    for (long steps : new long[] {1, 29, 30, 290, 2900}) {
      double[] h = hidden.curveAfter(steps).values();
      double[] g = comp.curveAfter(steps).values();
      for (int i = 0; i < h.length; i++) {
        assertThat(h[i]).isLessThanOrEqualTo(g[i] * (1 + 1e-12));
      }
    }
  }

  @Test
  void refusesAPartitionTheBatchSizeDoesNotDivide() {
    assertThatThrownBy(() -> new FixedPartitionCompositionStepAccountant(1000, 300, 1, ALPHA_10))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("multiple of the batch size b = 300");
    assertThatThrownBy(() -> new FixedPartitionCompositionStepAccountant(1000, 100, 0, ALPHA_10))
        .hasMessageContaining("noise multiplier must be finite and > 0, was 0");
  }
}
