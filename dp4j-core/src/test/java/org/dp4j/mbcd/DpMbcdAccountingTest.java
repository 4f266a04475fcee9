package org.dp4j.mbcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.dp4j.accounting.NeighbouringRelation;
import org.dp4j.accounting.Orders;
import org.dp4j.accounting.RdpConversion;
import org.dp4j.accounting.ThreatModel;
import org.dp4j.accounting.hiddenstate.DpMbcdAccountant;
import org.dp4j.accounting.hiddenstate.DpMbcdBlock;
import org.dp4j.accounting.hiddenstate.DpMbcdConfig;
import org.dp4j.accounting.hiddenstate.DpMbcdMode;
import org.dp4j.accounting.hiddenstate.DpMbcdStepAccountant;
import org.dp4j.accounting.hiddenstate.NoiseTemperatureSchedule;
import org.dp4j.accounting.ledger.LedgerRow;
import org.dp4j.noise.GaussianNoise;
import org.dp4j.sampling.SamplingPlan;
import org.dp4j.sampling.SamplingScheme;
import org.dp4j.training.StopReason;
import org.dp4j.training.TrainingResult;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * The trainer's ledger against docs/accountants.md#dp-mbcd (n = 4, b = 2, η = 0.1, o = 0.01, L_F = 0.9, L_T = 1,
 * S_g = 1; float64 values computed separately from the paper's formulas): a one-block network (output layer only)
 * whose derived constants are exactly these, in SAFE mode (C = 0.5 → S_g = 2C = 1; μ = 1, ρ_0 = 1 →
 * β = ρ_0² + 1 + μ = 3, L_F = max(|1 − ημ|, |1 − ηβ|) = 0.9) and in PAPER mode (ρ_0 = 1 → L_F =
 * |1 − ηρ²| = 0.9, S_g = ρ² = 1).
 */
class DpMbcdAccountingTest {
  private static final Orders ALPHA_2_10 = Orders.of(2, 10);

  @BeforeAll
  static void doublePrecision() {
    Nd4j.setDefaultDataTypes(DataType.DOUBLE, DataType.DOUBLE);
  }

  private static DpMbcdTrainer.Builder tiny(int epochs, DpMbcdAccounting accounting) {
    MultiLayerNetwork net = LiftedMlpTest.mlp(3, 3, 2);
    INDArray x = Nd4j.createFromArray(new double[][] {{1, 0, 0}, {0, 2, 0}, {0, 0, 0.5}, {1, 1, 1}});
    INDArray y = Nd4j.createFromArray(new double[][] {{1, 0}, {0, 1}, {1, 0}, {0, 1}});
    return DpMbcdTrainer.builder(net, x, y).batchSize(2).epochs(epochs).learningRate(0.1)
        .clipNorm(0.5).strongConvexity(1.0).inputNormBound(1.0)
        .noiseSchedule(NoiseTemperatureSchedule.constant(0.01))
        .noise(GaussianNoise.insecureFixedSeed(3)).partitionSeed(4).accounting(accounting);
  }

  @Test
  void safeModeDerivesTheConstantsFromWhatTheTrainerEnforces() {
    DpMbcdTrainer t = tiny(2, DpMbcdAccounting.builder().orders(ALPHA_2_10).build()).build();
    List<DpMbcdBlock> blocks = DpMbcdAccounting.builder().build().config(t.mechanism()).blocks();
    assertThat(blocks).hasSize(1);
    assertThat(blocks.get(0).lipschitzF()).isCloseTo(0.9, within(1e-15));
    assertThat(blocks.get(0).lipschitzT()).isEqualTo(1.0);
    assertThat(blocks.get(0).gradientSensitivity()).isEqualTo(1.0);
    DpMbcdBlock paper = DpMbcdAccounting.builder().mode(DpMbcdMode.PAPER).build().config(t.mechanism())
        .blocks().get(0);
    assertThat(paper.lipschitzF()).isCloseTo(0.9, within(1e-15));
    assertThat(paper.gradientSensitivity()).isEqualTo(1.0);
  }

  @Test
  void batchSumsAreAccountedWithTheirMeanParametersInSafeModeAndFlaggedInPaperMode() {
    DpMbcdAccounting safe = DpMbcdAccounting.builder().orders(ALPHA_2_10).build();
    // SUM with η = 0.05, o = 0.02 at b = 2 is the MEAN run η = 0.1, o = 0.01 of docs/accountants.md#dp-mbcd
    DpMbcdTrainer sum = tiny(2, safe).learningRate(0.05).noiseSchedule(NoiseTemperatureSchedule.constant(0.02))
        .batchReduction(BatchReduction.SUM).build();
    DpMbcdTrainer mean = tiny(2, safe).build();
    DpMbcdConfig sumConfig = safe.config(sum.mechanism());
    assertThat(sumConfig.stepSize()).isCloseTo(0.1, within(1e-15));
    assertThat(sumConfig.noiseTemperature().temperature(1, 1)).isCloseTo(0.01, within(1e-15));
    assertThat(sumConfig.batchSums()).isFalse();
    assertThat(sumConfig.blocks().get(0).lipschitzF()).isCloseTo(0.9, within(1e-15));
    for (int s = 0; s < 4; s++) {
      sum.ledger().tryStep();
      mean.ledger().tryStep();
    }
    assertThat(sum.ledger().closeEpoch(2).hiddenState().orElseThrow().epsilon()).isCloseTo(
        mean.ledger().closeEpoch(2).hiddenState().orElseThrow().epsilon(), within(1e-12));
    // PAPER keeps the paper's η and o, and says that this understates the RDP
    DpMbcdAccounting paper = DpMbcdAccounting.builder().mode(DpMbcdMode.PAPER).orders(ALPHA_2_10).build();
    DpMbcdConfig paperConfig = paper.config(sum.mechanism());
    assertThat(paperConfig.stepSize()).isEqualTo(0.05);
    assertThat(paperConfig.batchSums()).isTrue();
    assertThat(String.join(" ", new DpMbcdAccountant(paperConfig).assumptions()))
        .contains("SUM over the batch").contains("understates").contains("not a guarantee");
    assertThatThrownBy(() -> DpMbcdConfig.builder().datasetSize(4).batchSize(2).stepSize(0.1)
        .noiseTemperature(NoiseTemperatureSchedule.constant(0.01)).block("W", 0.9, 1, 1).batchSums(true).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("PAPER mode only");
  }

  @Test
  void ledgerRowsMatchDigestVectorInBothModes() {
    for (DpMbcdMode mode : DpMbcdMode.values()) {
      DpMbcdTrainer t = tiny(2, DpMbcdAccounting.builder().mode(mode).orders(ALPHA_2_10).build()).build();
      TrainingResult r = t.train();
      assertThat(r.stopReason()).isEqualTo(StopReason.COMPLETED);
      assertThat(r.epochsCompleted()).isEqualTo(2);
      List<LedgerRow> rows = t.ledger().rows();
      assertThat(rows).extracting(LedgerRow::epoch).containsExactly(1, 2);
      assertThat(rows).extracting(LedgerRow::steps).containsExactly(2L, 4L);
      // PAPER mode is the paper's claim: never a hidden-state guarantee, reported on its own
      boolean paper = mode == DpMbcdMode.PAPER;
      var first = (paper ? rows.get(0).paperClaim() : rows.get(0).hiddenState()).orElseThrow();
      var second = (paper ? rows.get(1).paperClaim() : rows.get(1).hiddenState()).orElseThrow();
      // in PAPER mode the certified hidden-state bound is the SAFE accountant's, held alongside the paper's claim
      assertThat(rows.get(1).hiddenState().orElseThrow().accountant()).isEqualTo(DpMbcdAccountant.NAME);
      assertThat(rows.get(1).paperClaim().isPresent()).isEqualTo(paper);
      // §5.2: ε_1(2) = 0.9631651262; ε_2(2) = 1.6750161037, ε_2(10) = 9.8886176436
      assertThat(first.rdp().value(0)).as(mode.name()).isCloseTo(0.9631651262, within(1e-9));
      assertThat(second.rdp().value(0)).as(mode.name()).isCloseTo(1.6750161037, within(1e-9));
      assertThat(second.rdp().value(1)).as(mode.name()).isCloseTo(9.8886176436, within(1e-9));
      assertThat(second.threatModel()).isEqualTo(ThreatModel.LAST_ITERATE_ONLY);
      assertThat(second.relation()).isEqualTo(NeighbouringRelation.REPLACE_ONE);
      // composition of the clipped block steps, by hand: one step per epoch reads the record, Δ = η·2C/b =
      // 0.1·1/2 = 0.05 under σ² = 2η·o = 0.002: RDP α·Δ²/(2σ²) = 0.625·α per epoch, in both modes
      assertThat(rows.get(0).composition().orElseThrow().rdp().value(0)).isCloseTo(2 * 0.625, within(1e-12));
      assertThat(rows.get(1).composition().orElseThrow().rdp().value(1)).isCloseTo(2 * 10 * 0.625, within(1e-12));
      // §5.1: LSI constant after 2 and 4 steps: 1/c = 0.00362 and 0.005995082
      // (here the SAFE constants equal the paper's, so a PAPER ledger's two accountants agree)
      assertThat(rows.get(0).lsiConstants().values()).hasSize(paper ? 2 : 1)
          .allSatisfy(c -> assertThat(c).isCloseTo(1 / 0.00362, within(1e-6)));
      assertThat(rows.get(1).lsiConstants().values()).hasSize(paper ? 2 : 1)
          .allSatisfy(c -> assertThat(c).isCloseTo(1 / 0.005995082, within(1e-6)));
    }
  }

  @Test
  void ledgerEqualsDirectAccountantCallsOnALargerNetwork() {
    INDArray[] data = DpMbcdTrainerTest.blobs(300, 11);
    DpMbcdAccounting accounting = DpMbcdAccounting.builder().delta(1e-6).build();
    DpMbcdTrainer t = DpMbcdTrainer.builder(LiftedMlpTest.mlp(5, 8, 16, 16, 3), data[0], data[1])
        .batchSize(50).epochs(2).learningRate(0.5).clipNorm(1.0).activationNormBound(1.0)
        .inputNormBound(1.0).noiseSchedule(NoiseTemperatureSchedule.linearInEpoch(0.02, -0.01))
        .noise(GaussianNoise.insecureFixedSeed(1)).partitionSeed(7).accounting(accounting).build();
    t.train();
    // the accountant built by hand from the paper's symbols: three blocks W0..W2, β = γ(ρ² + 1) = 2
    DpMbcdConfig byHand = DpMbcdConfig.builder().datasetSize(300).batchSize(50).stepSize(0.5)
        .noiseTemperature(NoiseTemperatureSchedule.linearInEpoch(0.02, -0.01))
        .liftedBlock("W0", 2, 0, 1.0).liftedBlock("W1", 2, 0, 1.0).liftedBlock("W2", 2, 0, 1.0).build();
    for (int k = 1; k <= 2; k++) {
      double expected = DpMbcdAccountant.afterEpochs(byHand, k)
          .guarantee(1e-6, Orders.DEFAULT, RdpConversion.IMPROVED).epsilon();
      assertThat(t.ledger().rows().get(k - 1).hiddenState().orElseThrow().epsilon())
          .isCloseTo(expected, within(1e-12 * expected));
    }
  }

  @Test
  void budgetStopsBeforeTheStepThatWouldExceedIt() {
    DpMbcdConfig config = DpMbcdConfig.builder().datasetSize(4).batchSize(2).stepSize(0.1)
        .noiseTemperature(NoiseTemperatureSchedule.constant(0.01)).block("W0", 0.9, 1.0, 1.0).build();
    DpMbcdAccountant direct = new DpMbcdAccountant(config);
    double[] eps = new double[5];
    for (int s = 1; s <= 4; s++) {
      eps[s] = direct.step().guarantee(1e-5, Orders.DEFAULT, RdpConversion.IMPROVED).epsilon();
    }
    assertThat(eps[4]).isGreaterThan(eps[3]);
    double budget = (eps[3] + eps[4]) / 2;   // steps 1..3 fit, step 4 does not
    DpMbcdTrainer t = tiny(3, DpMbcdAccounting.builder().budget(budget).build()).build();
    TrainingResult r = t.train();
    assertThat(r.stopReason()).isEqualTo(StopReason.BUDGET);
    assertThat(r.steps()).isEqualTo(3);
    assertThat(r.epochsCompleted()).isEqualTo(1);
    assertThat(t.ledger().rows()).extracting(LedgerRow::epoch).containsExactly(1, 2);
    LedgerRow partial = t.ledger().rows().get(1);
    assertThat(partial.steps()).isEqualTo(3);
    assertThat(partial.hiddenState().orElseThrow().epsilon()).isCloseTo(eps[3], within(1e-12))
        .isLessThanOrEqualTo(budget);
    double[] released = r.network().params().toDoubleVector();
    assertThatThrownBy(t::fitEpoch).isInstanceOf(IllegalStateException.class).hasMessageContaining("BUDGET");
    assertThat(t.releasedNetwork().params().toDoubleVector()).containsExactly(released);
  }

  @Test
  void refusesWhatItCannotCertify() {
    DpMbcdTrainer.Builder unbounded = tiny(1, DpMbcdAccounting.defaults()).inputNormBound(Double.POSITIVE_INFINITY)
        .accounting(DpMbcdAccounting.defaults()).partitionSeed(1).strongConvexity(0);
    assertThatThrownBy(unbounded::build).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("inputNormBound");
    DpMbcdTrainer.Builder variant = tiny(1, DpMbcdAccounting.defaults()).blockStepRule(BlockStepRule.PROXIMAL_POINT);
    assertThatThrownBy(variant::build).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("PAPER mode");
    SamplingPlan poisson = new SamplingPlan(SamplingScheme.POISSON, 100, 0.1, 10, 10, 0);
    assertThatThrownBy(() -> DpMbcdMechanism.builder().batches(poisson).learningRate(0.1).epochs(1)
        .clipNorm(1).noiseSchedule(NoiseTemperatureSchedule.constant(0.1))
        .blocks(new long[] {1}, new double[] {1}).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("shuffle-once");
  }

  @Test
  void theProximalPointStepHasNoCertifiedBoundAndABudgetNeedsAnExplicitRequestToStopOnThePapersClaim() {
    DpMbcdAccounting paper = DpMbcdAccounting.builder().mode(DpMbcdMode.PAPER).orders(ALPHA_2_10).budget(50).build();
    assertThatThrownBy(() -> tiny(2, paper).blockStepRule(BlockStepRule.PROXIMAL_POINT).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("a budget needs a certified bound")
        .hasMessageContaining("proximal-point");
    DpMbcdAccounting fromClaim = DpMbcdAccounting.builder().mode(DpMbcdMode.PAPER).orders(ALPHA_2_10).budget(50)
        .budgetFromPaperClaim(true).build();
    DpMbcdTrainer t = tiny(2, fromClaim).blockStepRule(BlockStepRule.PROXIMAL_POINT).build();
    assertThat(fromClaim.composition(t.mechanism())).isEmpty();
    assertThat(t.ledger().budgetFromPaperClaim()).isTrue();
    t.train();
    LedgerRow last = t.ledger().rows().get(1);
    assertThat(last.lastIterate()).isEmpty();
    assertThat(last.composition()).isEmpty();
    assertThat(last.paperClaim()).isPresent();
    // the gradient step in PAPER mode does have a certified bound (composition), so its budget needs no request
    assertThat(DpMbcdAccounting.builder().mode(DpMbcdMode.PAPER).build().composition(
        tiny(2, paper).build().mechanism())).isPresent();
  }

  @Test
  void aSafeLedgerHoldsThePapersClaimAlongsideNeverAsEpsilon() {
    // μ = 0: SAFE takes L_F = 1, the paper L_F = |1 − ηρ²| = 0.9, S_g = ρ² = 1, so the claim is the
    // docs/accountants.md#dp-mbcd vector again while the certified hidden-state bound is larger
    DpMbcdAccounting alongside = DpMbcdAccounting.builder().orders(ALPHA_2_10).paperClaimAlongside(true).build();
    DpMbcdTrainer t = tiny(2, alongside).strongConvexity(0.0).build();
    assertThat(alongside.noPaperClaimBecause(t.mechanism())).isEmpty();
    t.train();
    List<LedgerRow> rows = t.ledger().rows();
    assertThat(rows.get(0).paperClaim().orElseThrow().rdp().value(0)).isCloseTo(0.9631651262, within(1e-9));
    assertThat(rows.get(1).paperClaim().orElseThrow().rdp().value(0)).isCloseTo(1.6750161037, within(1e-9));
    assertThat(rows.get(1).paperClaim().orElseThrow().rdp().value(1)).isCloseTo(9.8886176436, within(1e-9));
    var certified = rows.get(1).lastIterate().orElseThrow();
    assertThat(certified.accountant()).isNotEqualTo(DpMbcdStepAccountant.PAPER_CLAIM_NAME);
    assertThat(rows.get(1).hiddenState().orElseThrow().rdp().value(0)).isGreaterThan(1.6750161037 + 1e-3);
    assertThat(t.ledger().notCertifiedBecause()).singleElement().asString().contains("PAPER mode");
    // without the option the SAFE ledger holds no claim (and its certified rows are the same)
    DpMbcdTrainer plain = tiny(2, DpMbcdAccounting.builder().orders(ALPHA_2_10).build()).strongConvexity(0.0).build();
    plain.train();
    assertThat(plain.ledger().rows().get(1).paperClaim()).isEmpty();
    assertThat(plain.ledger().rows().get(1).lastIterate().orElseThrow().epsilon()).isEqualTo(certified.epsilon());
  }

  @Test
  void noPapersClaimWhereThePapersConstantsDoNotExistAndNeverAsTheSafeBudget() {
    // η·ρ² = 1: the paper's L_F = |1 − ηρ²| = 0 has no claim; the SAFE ledger then simply holds none
    DpMbcdAccounting alongside = DpMbcdAccounting.builder().orders(ALPHA_2_10).paperClaimAlongside(true).build();
    DpMbcdTrainer t = tiny(1, alongside).learningRate(1.0).build();
    assertThat(alongside.noPaperClaimBecause(t.mechanism())).isPresent();
    t.train();
    assertThat(t.ledger().rows().get(0).paperClaim()).isEmpty();
    assertThat(t.ledger().rows().get(0).lastIterate()).isPresent();
    assertThatThrownBy(() -> DpMbcdAccounting.builder().budget(3).budgetFromPaperClaim(true)
        .paperClaimAlongside(true).build()).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("use mode PAPER");
  }
}
