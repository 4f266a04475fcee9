package org.dp4j.training;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.dp4j.accounting.Orders;
import org.dp4j.accounting.RdpConversion;
import org.dp4j.accounting.SgmCalibration;
import org.dp4j.accounting.ThreatModel;
import org.dp4j.accounting.ledger.CompositionAccounting;
import org.dp4j.accounting.ledger.PrivacyLedger;
import org.junit.jupiter.api.Test;

/** The budget belongs to the setup: {@link DpSgdSetup.Builder#budget} replaces the target ε as the ledger's stop. */
class DpSgdSetupBudgetTest {
  private static DpSgdSetup.Builder base() {
    return DpSgdSetup.builder().datasetSize(400).expectedBatchSize(40).epochs(50).clipNorm(1).delta(1e-5)
        .accounting(CompositionAccounting.RDP);
  }

  @Test
  void theLedgerStopsAtTheBudgetWhereTheCalibrationSays() {
    DpSgdSetup setup = base().noiseMultiplier(2.0).budget(1.5).build();
    assertThat(setup.budget()).contains(1.5);
    PrivacyLedger ledger = setup.ledger();
    assertThat(ledger.budget().orElseThrow().epsilon()).isEqualTo(1.5);
    assertThat(ledger.budget().orElseThrow().threatModel()).isEqualTo(ThreatModel.ALL_ITERATES_RELEASED);
    // an independent path: SgmCalibration's search for the largest step count within ε = 1.5 at q = 0.1, z = 2
    long allowed = SgmCalibration.maxSteps(1.5, 1e-5, 0.1, 2.0, Orders.DEFAULT, RdpConversion.IMPROVED).steps();
    assertThat(allowed).isBetween(1L, setup.steps() - 1);
    assertThat(ledger.stepsWithinBudget(setup.steps())).isEqualTo(allowed);
  }

  @Test
  void aBudgetReplacesTheTargetAsTheStopAndTheTargetStillCalibrates() {
    DpSgdSetup target = base().epochs(4).targetEpsilon(2.0).build();
    DpSgdSetup looser = base().epochs(4).targetEpsilon(2.0).budget(3.0).build();
    assertThat(target.budget()).contains(2.0);
    assertThat(looser.budget()).contains(3.0);
    assertThat(looser.noiseMultiplier()).isEqualTo(target.noiseMultiplier());
    assertThat(looser.ledger().budget().orElseThrow().epsilon()).isEqualTo(3.0);
    // the whole planned run fits the looser budget; a budget below the target stops it early
    assertThat(looser.ledger().stepsWithinBudget(looser.steps())).isEqualTo(looser.steps());
    DpSgdSetup tighter = base().epochs(4).targetEpsilon(2.0).budget(1.0).build();
    assertThat(tighter.ledger().stepsWithinBudget(tighter.steps())).isLessThan(tighter.steps());
    assertThat(base().noiseMultiplier(2.0).build().budget()).isEmpty();
    assertThat(base().noiseMultiplier(2.0).build().ledger().budget()).isEmpty();
  }

  @Test
  void refusesABudgetThatIsNotAPositiveFiniteEpsilon() {
    assertThatThrownBy(() -> base().budget(-1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("budget epsilon must be finite and > 0, was -1.0");
    assertThatThrownBy(() -> base().budget(Double.POSITIVE_INFINITY)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("was Infinity");
  }
}
