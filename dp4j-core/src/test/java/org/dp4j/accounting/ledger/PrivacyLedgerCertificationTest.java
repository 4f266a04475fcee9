package org.dp4j.accounting.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Optional;
import org.dp4j.accounting.NeighbouringRelation;
import org.dp4j.accounting.Orders;
import org.dp4j.accounting.RdpCurve;
import org.dp4j.accounting.SampledGaussianMechanism;
import org.dp4j.accounting.ThreatModel;
import org.dp4j.sampling.SamplingPlan;
import org.junit.jupiter.api.Test;

/** A ledger never reports or stops on an uncertified bound unless asked to. */
class PrivacyLedgerCertificationTest {
  private static final double DELTA = 1e-5;

  /** A hidden-state "paper's claim": a composition curve at a larger noise, marked as not certified. */
  private static RdpStepAccountant paperClaim(double z) {
    RdpStepAccountant inner = new CompositionStepAccountant(new SampledGaussianMechanism(0.01, z), Orders.DEFAULT);
    return new RdpStepAccountant() {
      @Override public Orders orders() { return inner.orders(); }
      @Override public RdpCurve curve() { return inner.curve(); }
      @Override public RdpCurve curveAfter(long more) { return inner.curveAfter(more); }
      @Override public String name() { return "paper"; }
      @Override public String theorem() { return "a paper"; }
      @Override public ThreatModel threatModel() { return ThreatModel.LAST_ITERATE_ONLY; }
      @Override public NeighbouringRelation relation() { return inner.relation(); }
      @Override public List<String> assumptions() { return List.of(); }
      @Override public long steps() { return inner.steps(); }
      @Override public void advance(long count) { inner.advance(count); }
      @Override public String mechanismDescription() { return "paper"; }
      @Override public void requireCovers(SamplingPlan plan, double noiseMultiplier) {}
      @Override public Optional<String> notCertifiedBecause() { return Optional.of("unproven constants"); }
    };
  }

  private static StepAccountant certified() {
    return new CompositionStepAccountant(new SampledGaussianMechanism(0.01, 1.0), Orders.DEFAULT);
  }

  @Test
  void theUncertifiedBoundIsReportedOnlyAsThePaperClaim() {
    PrivacyLedger ledger = PrivacyLedger.builder().accountant(certified()).accountant(paperClaim(5.0)).delta(DELTA)
        .build();
    for (int i = 0; i < 100; i++) {
      ledger.tryStep();
    }
    LedgerRow row = ledger.closeEpoch(1);
    assertThat(row.hiddenState()).isEmpty();
    assertThat(row.lastIterate().orElseThrow().accountant()).isEqualTo(certified().name());
    assertThat(row.paperClaim().orElseThrow().accountant()).isEqualTo("paper");
    // the paper's claim is much smaller (z = 5 vs 1), and still not the reported bound
    assertThat(row.paperClaim().get().epsilon()).isLessThan(row.lastIterate().get().epsilon() / 5);
    assertThat(ledger.notCertifiedBecause()).containsExactly("paper: unproven constants");
    assertThat(ledger.claimedThreatModel()).isEqualTo(ThreatModel.LAST_ITERATE_ONLY);
  }

  @Test
  void theBudgetStopsOnTheCertifiedBoundUnlessAskedToUseThePaperClaim() {
    PrivacyBudget budget = new PrivacyBudget(1.0, DELTA, ThreatModel.LAST_ITERATE_ONLY);
    PrivacyLedger certifiedStop = PrivacyLedger.builder().accountant(certified()).accountant(paperClaim(5.0))
        .delta(DELTA).budget(budget).build();
    PrivacyLedger paperStop = PrivacyLedger.builder().accountant(certified()).accountant(paperClaim(5.0))
        .delta(DELTA).budget(budget).budgetFromPaperClaim(true).build();
    long certifiedSteps = certifiedStop.stepsWithinBudget(100_000);
    long paperSteps = paperStop.stepsWithinBudget(100_000);
    assertThat(certifiedStop.best(ThreatModel.LAST_ITERATE_ONLY, certifiedSteps).orElseThrow().epsilon())
        .isLessThanOrEqualTo(1.0);
    assertThat(certifiedStop.best(ThreatModel.LAST_ITERATE_ONLY, certifiedSteps + 1).orElseThrow().epsilon())
        .isGreaterThan(1.0);
    assertThat(paperStop.paperClaim(paperSteps).orElseThrow().epsilon()).isLessThanOrEqualTo(1.0);
    assertThat(paperSteps).isGreaterThan(10 * certifiedSteps);
    assertThat(paperStop.fingerprint()).isNotEqualTo(certifiedStop.fingerprint());
  }

  @Test
  void budgetFromPaperClaimNeedsABudgetAndAnUncertifiedAccountant() {
    assertThatThrownBy(() -> PrivacyLedger.builder().accountant(paperClaim(5)).delta(DELTA)
        .budgetFromPaperClaim(true).build()).hasMessageContaining("needs a budget");
    assertThatThrownBy(() -> PrivacyLedger.builder().accountant(certified()).delta(DELTA)
        .budget(new PrivacyBudget(1.0, DELTA, ThreatModel.ALL_ITERATES_RELEASED)).budgetFromPaperClaim(true).build())
        .hasMessageContaining("every accountant here is certified");
  }
}
