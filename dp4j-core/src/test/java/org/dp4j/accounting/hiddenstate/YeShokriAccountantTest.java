package org.dp4j.accounting.hiddenstate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.stream.DoubleStream;
import java.util.stream.IntStream;
import org.dp4j.accounting.NeighbouringRelation;
import org.dp4j.accounting.Orders;
import org.dp4j.accounting.PrivacyGuarantee;
import org.dp4j.accounting.RdpConversion;
import org.dp4j.accounting.ThreatModel;
import org.junit.jupiter.api.Test;

/** Reference values: docs/accountants.md#ye-shokri (float64 values computed separately from the paper's formulas). */
class YeShokriAccountantTest {
  /** Figure-1 setting (docs/accountants.md#ye-shokri): λ = 1, β = 4, S_g = 4, n = 50, η = 0.02, σ² = 4, b = 2; G(α) = 0.005α. */
  private static YeShokriConfig.Builder figure1() {
    return YeShokriConfig.builder().datasetSize(50).batchSize(2).stepSize(0.02).strongConvexity(1).smoothness(4)
        .gradientSensitivity(4).sigma(2);
  }

  /** Figure-2 setting (Ye &amp; Shokri 2022; docs/accountants.md#ye-shokri): the same with b = 4, so m = 12, h = 6. */
  private static YeShokriConfig figure2(int epochs) {
    return figure1().batchSize(4).epochs(epochs).build();
  }

  /** The authors' code's orders: 1.1..10.9 and 12..63 (docs/errata.md#ye-shokri-conversion). */
  private static final Orders PAPER_ORDERS = Orders.of(DoubleStream.concat(
      IntStream.rangeClosed(1, 99).mapToDouble(x -> 1 + x / 10.0),
      IntStream.rangeClosed(12, 63).asDoubleStream()).toArray());

  @Test
  void fixedBatchesMatchDigest51Table() {
    int[] alphas = {10, 10, 10, 10, 10, 10, 20, 20, 30, 30};
    int[] epochs = {1, 2, 5, 10, 20, 100, 1, 10, 1, 10};
    double[] first = {0.00118080, 0.00448494, 0.00827805, 0.00919566, 0.00926684, 0.00926721, 0.00236160,
        0.01839131, 0.00354239, 0.02758697};
    double[] last = {0.05000000, 0.05330415, 0.05709725, 0.05801486, 0.05808604, 0.05808642, 0.10000000,
        0.11602972, 0.15000000, 0.17404457};
    double[] naive = {0.09950166, 0.19801327, 0.48770575, 0.95162582, 1.81269247, 6.32120559, 0.19900333,
        1.90325164, 0.29850499, 2.85487746};
    for (int i = 0; i < alphas.length; i++) {
      YeShokriConfig c = figure1().epochs(epochs[i]).build();
      YeShokriFixedBatchAccountant fixed = new YeShokriFixedBatchAccountant(c);
      assertThat(fixed.rdpForBatch(0, alphas[i])).isCloseTo(first[i], within(1e-8));
      assertThat(fixed.rdpForBatch(24, alphas[i])).isCloseTo(last[i], within(1e-8));
      assertThat(fixed.rdp(alphas[i])).isEqualTo(fixed.rdpForBatch(24, alphas[i]));
      assertThat(new YeShokriNaiveBaselineAccountant(c).rdp(alphas[i])).isCloseTo(naive[i], within(1e-8));
    }
    // K → ∞ rows: Thm 4.4 limits and the naive limit α·S_g²/(λσ²b²).
    YeShokriConfig far = figure1().epochs(100_000).build();
    assertThat(new YeShokriFixedBatchAccountant(far).rdpForBatch(0, 20)).isCloseTo(0.01853443, within(1e-8));
    assertThat(new YeShokriFixedBatchAccountant(far).rdpForBatch(24, 30)).isCloseTo(0.17425925, within(1e-8));
    assertThat(new YeShokriNaiveBaselineAccountant(far).rdp(10)).isCloseTo(10.0, within(1e-8));
  }

  @Test
  void tightFirstTermMatchesDigest51AndIsBelowTheStatedOne() {
    int[] epochs = {2, 10, 100};
    double[] tight = {0.00195406, 0.00473995, 0.00478227};
    double[] stated = {0.00330415, 0.00801486, 0.00808642};
    double firstEpoch = new YeShokriFixedBatchAccountant(figure1().epochs(1).build()).rdpForBatch(0, 10);
    for (int i = 0; i < epochs.length; i++) {
      YeShokriConfig.Builder b = figure1().epochs(epochs[i]);
      double s = new YeShokriFixedBatchAccountant(b.build()).rdpForBatch(0, 10) - firstEpoch;
      double t = new YeShokriFixedBatchAccountant(b.firstTerm(YeShokriConfig.FirstTerm.TIGHT).build())
          .rdpForBatch(0, 10) - firstEpoch;
      assertThat(s).isCloseTo(stated[i], within(1e-8));
      assertThat(t).isCloseTo(tight[i], within(1e-8));
    }
  }

  @Test
  void convexFixedBatchesMatchDigest51() {
    YeShokriConvexFixedBatchAccountant convex = new YeShokriConvexFixedBatchAccountant(figure1().epochs(10).build());
    assertThat(convex.rdpForBatch(24, 10)).isCloseTo(0.068, within(1e-12));
    assertThat(convex.rdpForBatch(0, 10)).isCloseTo(0.02, within(1e-12));
    // λ = 0 is fine for the convex theorem.
    YeShokriConfig merelyConvex = figure1().strongConvexity(0).epochs(10).build();
    assertThat(new YeShokriConvexFixedBatchAccountant(merelyConvex).rdp(10)).isCloseTo(0.068, within(1e-12));
  }

  @Test
  void shuffleInFigure1SettingMatchesDigest51() {
    assertThat(new YeShokriShuffleAccountant(figure1().epochs(1).build()).rdp(10)).isCloseTo(0.00737263,
        within(1e-8));
    assertThat(new YeShokriShuffleAccountant(figure1().epochs(10).build()).rdp(10)).isCloseTo(0.01538749,
        within(1e-8));
    assertThat(new YeShokriShuffleAccountant(figure1().epochs(100_000).build()).rdp(10)).isCloseTo(0.01545905,
        within(1e-8));
  }

  @Test
  void randomBatchesMatchDigest52Table() {
    int[] alphas = {10, 10, 10, 10, 10, 10, 15, 15, 20, 20, 30, 30};
    int[] epochs = {1, 2, 5, 10, 20, 50, 1, 10, 1, 10, 1, 10};
    double[] shuffle = {0.00309959, 0.00497828, 0.00851719, 0.01084159, 0.01173902, 0.01182613, 0.00474856,
        0.01636156, 0.00653104, 0.02201505, 0.01079001, 0.03401601};
    double[] withoutReplacement = {0.01041079, 0.01710947, 0.02597944, 0.02884734, 0.02919904, 0.02920338,
        0.01679746, 0.04708333, 0.02488336, 0.07113135, 0.05105859, 0.15930183};
    double[] lastBatch = {0.01250000, 0.01437869, 0.01791760, 0.02024200, 0.02113943, 0.02122655, 0.01875000,
        0.03036300, 0.02500000, 0.04048400, 0.03750000, 0.06072601};
    for (int i = 0; i < alphas.length; i++) {
      YeShokriConfig c = figure2(epochs[i]);
      assertThat(new YeShokriShuffleAccountant(c).rdp(alphas[i])).isCloseTo(shuffle[i], within(1e-8));
      assertThat(new YeShokriWithoutReplacementAccountant(c).rdp(alphas[i]))
          .isCloseTo(withoutReplacement[i], within(1e-8));
      assertThat(new YeShokriFixedBatchAccountant(c).rdp(alphas[i])).isCloseTo(lastBatch[i], within(1e-8));
    }
    // K → ∞ (the w/o-replacement recursion reaches its fixed point and stops early).
    YeShokriConfig far = figure2(1_000_000);
    assertThat(new YeShokriShuffleAccountant(far).rdp(30)).isCloseTo(0.03696982, within(1e-8));
    assertThat(new YeShokriWithoutReplacementAccountant(far).rdp(30)).isCloseTo(0.16333298, within(1e-8));
    assertThat(new YeShokriWithoutReplacementAccountant(far).rdp(15)).isCloseTo(0.04770746, within(1e-8));
  }

  @Test
  void corollary63EndToEndMatchesDigest54() {
    YeShokriConfig mnist = YeShokriConfig.builder().datasetSize(60000).batchSize(2048).epochs(1200)
        .stepSize(0.75).strongConvexity(0.08).smoothness(2.58).clipNorm(3.16).noiseMultiplier(3.08)
        .normalisationNoiseMultiplier(8).build();
    YeShokriConfig fmnist = YeShokriConfig.builder().datasetSize(60000).batchSize(2048).epochs(1200)
        .stepSize(1.92).strongConvexity(0.02).smoothness(1.02).clipNorm(2).noiseMultiplier(3.01).build();
    YeShokriConfig cifar = YeShokriConfig.builder().datasetSize(50000).batchSize(2048).epochs(1200)
        .stepSize(0.75).strongConvexity(0.08).smoothness(2.58).clipNorm(1.58).noiseMultiplier(3.23)
        .normalisationNoiseMultiplier(6).build();
    YeShokriConfig transfer = YeShokriConfig.builder().datasetSize(50000).batchSize(1024).epochs(600)
        .stepSize(1.92).strongConvexity(0.02).smoothness(1.02).clipNorm(1.5).noiseMultiplier(4.20).build();
    double[] alphas = {1.5, 2, 5, 7, 10, 20, 32, 63};
    double[][] rdpDyn = {
        {0.042633, 0.059338, 0.369226, 0.966907, 1.804857, 4.180766, 6.864165, 13.673365},
        {0.056784, 0.078427, 0.437968, 1.077780, 1.963879, 4.498811, 7.373038, 14.675207},
        {0.049081, 0.067778, 0.353150, 0.883837, 1.659511, 3.857964, 6.337851, 12.628217},
        {0.014641, 0.019973, 0.079256, 0.238827, 0.724241, 2.103103, 3.566083, 7.204140}};
    double[] norm = {64, Double.POSITIVE_INFINITY, 36, Double.POSITIVE_INFINITY}; // RDP_norm = α/σ_bn²
    double[] classic = {2.9951, 2.9966, 2.9964, 1.9962};
    double[] improved = {2.4989, 2.4993, 2.5087, 1.5984};
    double[] firstEpoch10 = {1.734142, 1.833341, 1.563908, 0.704603};
    YeShokriConfig[] configs = {mnist, fmnist, cifar, transfer};
    for (int c = 0; c < configs.length; c++) {
      YeShokriShuffleAccountant acc = new YeShokriShuffleAccountant(configs[c]);
      for (int i = 0; i < alphas.length; i++) {
        assertThat(acc.rdp(alphas[i])).isCloseTo(rdpDyn[c][i] + alphas[i] / norm[c], within(1e-6));
      }
      assertThat(acc.guarantee(PAPER_ORDERS, 1e-5, RdpConversion.CLASSIC).epsilon())
          .isCloseTo(classic[c], within(1e-4));
      assertThat(acc.guarantee(PAPER_ORDERS, 1e-5, RdpConversion.IMPROVED).epsilon())
          .isCloseTo(improved[c], within(1e-4));
      double k1 = new YeShokriShuffleAccountant(configs[c].withEpochs(1)).rdp(10) - 10 / norm[c];
      assertThat(k1).isCloseTo(firstEpoch10[c], within(1e-6));
    }
    assertThat(new YeShokriShuffleAccountant(mnist).guarantee(PAPER_ORDERS, 1e-5, RdpConversion.CLASSIC)
        .bound().order()).isEqualTo(7.0);
  }

  @Test
  void noiseMultiplierGivesTwoAlphaOverSigmaMulSquared() {
    // Ye & Shokri 2022; docs/accountants.md#ye-shokri: with S_g = 2C, G(α) = 2α/σ_mul² whatever C, b and η; Thm 4.4 at K = 1, last batch, is G.
    YeShokriConfig c = YeShokriConfig.builder().datasetSize(1000).batchSize(50).epochs(1).stepSize(0.1)
        .strongConvexity(0.5).smoothness(2).clipNorm(0.7).noiseMultiplier(2.5).build();
    assertThat(new YeShokriFixedBatchAccountant(c).rdp(10)).isCloseTo(2 * 10 / 6.25, within(1e-12));
    assertThat(c.gradientSensitivity()).isEqualTo(1.4);
  }

  @Test
  void orderingsThePaperProves() {
    for (int k : new int[] {1, 2, 5, 20, 200}) {
      YeShokriConfig c = figure2(k);
      YeShokriConfig tight = figure1().batchSize(4).epochs(k).firstTerm(YeShokriConfig.FirstTerm.TIGHT).build();
      for (double alpha : new double[] {1.5, 2, 10, 30}) {
        double g = c.stepRdp(alpha);
        double shuffle = new YeShokriShuffleAccountant(c).rdp(alpha);
        double last = new YeShokriFixedBatchAccountant(c).rdp(alpha);
        assertThat(shuffle).isLessThanOrEqualTo(last);                          // Thm 5.2 ≤ Thm 4.4 last batch
        assertThat(new YeShokriShuffleAccountant(tight).rdp(alpha)).isLessThanOrEqualTo(shuffle);
        assertThat(last).isLessThanOrEqualTo(k * g * (1 + 1e-12));               // ≤ composing K epochs
        assertThat(new YeShokriShuffleAccountant(c).secondTerm(alpha))
            .isBetween(new YeShokriFixedBatchAccountant(c.withEpochs(1)).rdpForBatch(0, alpha), g);
        if (k > 1) {
          YeShokriConfig before = c.withEpochs(k - 1);
          assertThat(shuffle).isGreaterThanOrEqualTo(new YeShokriShuffleAccountant(before).rdp(alpha));
          assertThat(new YeShokriWithoutReplacementAccountant(c).rdp(alpha))
              .isGreaterThanOrEqualTo(new YeShokriWithoutReplacementAccountant(before).rdp(alpha));
        }
      }
    }
  }

  @Test
  void guaranteeNamesItsTermsAndAddsNormalisation() {
    YeShokriConfig plain = figure2(10);
    YeShokriConfig withBn = figure1().batchSize(4).epochs(10).normalisationNoiseMultiplier(8).build();
    assertThat(new YeShokriShuffleAccountant(withBn).rdp(10))
        .isCloseTo(new YeShokriShuffleAccountant(plain).rdp(10) + 10 / 64.0, within(1e-12));
    PrivacyGuarantee g = new YeShokriShuffleAccountant(withBn).guarantee(Orders.DEFAULT, 1e-5,
        RdpConversion.IMPROVED);
    assertThat(g.relation()).isEqualTo(NeighbouringRelation.REPLACE_ONE);
    assertThat(g.threatModel()).isEqualTo(ThreatModel.LAST_ITERATE_ONLY);
    assertThat(g.summary()).contains("Thm 5.2", "strongly convex", "σ_bn = 8", "no reshuffling");
    assertThat(new YeShokriWithoutReplacementAccountant(plain).guarantee(Orders.DEFAULT, 1e-5,
        RdpConversion.IMPROVED).summary()).contains("without replacement");
    assertThat(new YeShokriShuffleAccountant(plain).rdp(Orders.of(2, Double.POSITIVE_INFINITY)).value(1))
        .isEqualTo(Double.POSITIVE_INFINITY);
  }

  @Test
  void configurationsOutsideTheTheoremsAreRefused() {
    YeShokriConfig tooFast = figure1().stepSize(0.6).epochs(1).build();
    assertThatThrownBy(() -> new YeShokriShuffleAccountant(tooFast)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("η = 0.6 violates η < 2/(λ+β) = 0.4");
    assertThatThrownBy(() -> new YeShokriWithoutReplacementAccountant(tooFast))
        .hasMessageContaining("η = 0.6 violates η < 2/(λ+β) = 0.4");
    assertThatThrownBy(() -> new YeShokriConvexFixedBatchAccountant(tooFast))
        .hasMessageContaining("η = 0.6 violates η < 2/β = 0.5");
    YeShokriConfig convex = figure1().strongConvexity(0).epochs(1).build();
    assertThatThrownBy(() -> new YeShokriFixedBatchAccountant(convex)).hasMessageContaining("λ = 0.0 violates λ > 0");
    YeShokriConfig oneBatch = figure1().batchSize(30).epochs(1).build();
    assertThatThrownBy(() -> new YeShokriShuffleAccountant(oneBatch)).hasMessageContaining("m >= 2");
    assertThatThrownBy(() -> figure1().clipNorm(1).epochs(1).build()).hasMessageContaining("exactly one");
    assertThatThrownBy(() -> figure1().noiseMultiplier(1).epochs(1).build()).hasMessageContaining("exactly one");
  }
}
