package org.dp4j.audit.whitebox;

import static org.assertj.core.api.Assertions.assertThat;

import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.dp4j.audit.AuditBound;
import org.dp4j.noise.AesCtrRandom;
import org.dp4j.noise.GaussianNoise;
import org.dp4j.noise.NoiseSource;
import org.dp4j.training.DpSgdSetup;
import org.dp4j.training.IndexedData;
import org.dp4j.training.PrivateMultiLayerNetwork;
import org.dp4j.training.SampledDataSetIterator;
import org.dp4j.training.TrainingResult;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.indexing.NDArrayIndex;

/**
 * The white-box auditor against the production DP-SGD (it must stay below the certified ε) and against deliberately
 * broken noise (it must prove the claimed ε false). Every random choice has a fixed seed, so each test is one
 * deterministic run; the margins are wide (see the numbers in each test).
 */
class WhiteBoxAuditTest {
  private static final double CLAIMED = 2.0;
  private static final int CANARIES = 1000;

  /**
   * The production path (DpSgdTrainer, clipped sum, noise, division by the expected batch size) at a certified
   * ε = 2: the audit's bound stays below it (measured 0.22: 305 of 500 guesses correct); the canaries took part about
   * qT = 5 times each.
   */
  @Test
  void correctDpSgdStaysBelowItsCertifiedEpsilon() {
    Run run = train(CLAIMED, GaussianNoise.insecureFixedSeed(21));
    assertThat(run.claimed).isCloseTo(CLAIMED, org.assertj.core.api.Assertions.within(0.01));
    assertThat(run.audit.canaries().canarySteps()).isBetween(2000L, 3000L);   // ≈ 500 included × 5
    assertThat(run.bound.epsilonLowerBound()).as(run.bound.summary()).isLessThan(run.claimed);
  }

  /** The private fit path (PrivateMultiLayerNetwork.fit over a SampledDataSetIterator) audited the same way. */
  @Test
  void privateFitIsAuditedThroughItsNoiseSourceAndListeners() {
    DpSgdSetup setup = AuditFixture.setup(CLAIMED);
    PrivateMultiLayerNetwork net = setup.privateNetwork(AuditFixture.mlp());
    IndexedData data = IndexedData.of(AuditFixture.blobs());
    WhiteBoxAudit audit = WhiteBoxAudit.builder(net, data).canaries(CANARIES)
        .random(AesCtrRandom.insecureFixedSeed(31)).build();
    net.insecureNoise(audit.noise(GaussianNoise.insecureFixedSeed(32)));
    net.addListeners(audit.listener());
    net.fit(SampledDataSetIterator.poisson(data, AuditFixture.BATCH, AesCtrRandom.insecureFixedSeed(33)),
        AuditFixture.EPOCHS);
    assertThat(audit.scores().updates()).isEqualTo(AuditFixture.EPOCHS * 100);
    assertThat(audit.bound(AuditFixture.DELTA, 0.95).epsilonLowerBound()).isLessThan(CLAIMED);
  }

  /**
   * No noise at all: included canaries move their coordinates, excluded ones never do; the bound is far above ε
   * (measured 4.16, 994 of 1000 guesses correct: the wrong ones are mostly included canaries never sampled in 500 steps;
   * 4.53 is the most 1000 canaries can show after a sweep of 7).
   */
  @Test
  void noiseOffIsCaught() {
    Run run = train(CLAIMED, new ZeroNoise());
    assertThat(run.bound.guesses().correct()).isGreaterThanOrEqualTo(run.bound.guesses().guesses() * 99 / 100);
    assertThat(run.bound.epsilonLowerBound()).as(run.bound.summary()).isGreaterThan(2 * run.claimed);
  }

  /**
   * Noise on the output layer only (a forgotten parameter block): the canaries in the first layer are exposed
   * (measured 4.16, 994 of 1000 guesses correct).
   */
  @Test
  void noiseOnOnlySomeLayersIsCaught() {
    NoiseSource outputLayerOnly = new NoiseOnRange(GaussianNoise.insecureFixedSeed(22), AuditFixture.OUTPUT_LAYER_START);
    Run run = train(CLAIMED, outputLayerOnly);
    assertThat(run.bound.epsilonLowerBound()).as(run.bound.summary()).isGreaterThan(2 * run.claimed);
  }

  private static Run train(double target, NoiseSource noise) {
    DpSgdSetup setup = AuditFixture.setup(target);
    MultiLayerNetwork net = setup.privateNetwork(AuditFixture.mlp());
    IndexedData data = IndexedData.of(AuditFixture.blobs());
    WhiteBoxAudit audit = WhiteBoxAudit.builder(net, data).canaries(CANARIES)
        .random(AesCtrRandom.insecureFixedSeed(11)).build();
    net.addListeners(audit.listener());
    TrainingResult result = setup.trainer(net, data).insecureNoise(audit.noise(noise))
        .sampler(org.dp4j.sampling.PoissonSampler.withExpectedBatchSize(AuditFixture.N, AuditFixture.BATCH,
            AesCtrRandom.insecureFixedSeed(12)))
        .build().train();
    double claimed = result.ledger().rows().get(result.ledger().rows().size() - 1).composition().orElseThrow()
        .epsilon();
    AuditBound bound = audit.bound(AuditFixture.DELTA, 0.95);
    return new Run(audit, bound, claimed);
  }

  private record Run(WhiteBoxAudit audit, AuditBound bound, double claimed) {}

  /** Test double: noise only on the flat parameters from {@code from} on (a DP-SGD that forgot some layers). */
  static final class NoiseOnRange implements NoiseSource {
    private final NoiseSource delegate;
    private final int from;

    NoiseOnRange(NoiseSource delegate, int from) {
      this.delegate = delegate;
      this.from = from;
    }

    @Override
    public void addGaussian(INDArray target, double std) {
      // the fixture has no frozen layers: the target is the whole flattened gradient
      delegate.addGaussian(target.get(NDArrayIndex.all(), NDArrayIndex.interval(from, target.length())), std);
    }
  }
}
