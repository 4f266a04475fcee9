package org.dp4j.accounting.hiddenstate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.dp4j.accounting.Orders;
import org.dp4j.accounting.RdpConversion;
import org.dp4j.accounting.ThreatModel;
import org.dp4j.accounting.ledger.PrivacyBudget;
import org.dp4j.accounting.ledger.PrivacyLedger;
import org.junit.jupiter.api.Test;

/** Reference values: docs/accountants.md#ye-shokri (Figure-2 setting, m = 12; float64 values computed separately from the paper's formulas). */
class YeShokriShuffleStepAccountantTest {
  private static final Orders ALPHA_10 = Orders.of(10);

  private static YeShokriConfig figure2() {
    return YeShokriConfig.builder().datasetSize(50).batchSize(4).stepSize(0.02).strongConvexity(1).smoothness(4)
        .gradientSensitivity(4).sigma(2).epochs(1).build();
  }

  @Test
  void reportsTheBoundAtTheEndOfTheCurrentEpoch() {
    YeShokriShuffleStepAccountant acc = new YeShokriShuffleStepAccountant(figure2(), ALPHA_10);
    assertThat(acc.curve().value(0)).isZero();
    assertThat(acc.curveAfter(1).value(0)).isCloseTo(0.00309959, within(1e-8)); // K = 1
    assertThat(acc.curveAfter(12).value(0)).isCloseTo(0.00309959, within(1e-8));
    assertThat(acc.curveAfter(13).value(0)).isCloseTo(0.00497828, within(1e-8)); // K = 2
    acc.advance(59);
    assertThat(acc.curve().value(0)).isCloseTo(0.00851719, within(1e-8)); // K = 5 (60 steps)
    acc.advance(1);
    assertThat(acc.curve().value(0)).isCloseTo(0.00851719, within(1e-8));
    assertThat(acc.steps()).isEqualTo(60);
  }

  @Test
  void budgetGuardStopsAtAnEpochEnd() {
    // ε(δ) between K = 1 and K = 2: the guard must refuse step 13, the first step of epoch 2
    YeShokriConfig c = figure2();
    double eps1 = new YeShokriShuffleAccountant(c).guarantee(1e-5, Orders.DEFAULT, RdpConversion.IMPROVED).epsilon();
    double eps2 = new YeShokriShuffleAccountant(c.withEpochs(2)).guarantee(1e-5, Orders.DEFAULT,
        RdpConversion.IMPROVED).epsilon();
    PrivacyLedger ledger = PrivacyLedger.builder()
        .accountant(new YeShokriShuffleStepAccountant(c, Orders.DEFAULT)).delta(1e-5)
        .budget(new PrivacyBudget((eps1 + eps2) / 2, 1e-5, ThreatModel.LAST_ITERATE_ONLY)).build();
    int taken = 0;
    while (taken < 100 && ledger.tryStep()) {
      taken++;
    }
    assertThat(taken).isEqualTo(12);
  }

  @Test
  void refusesConfigurationsOutsideTheTheorem() {
    YeShokriConfig tooFast = YeShokriConfig.builder().datasetSize(50).batchSize(4).stepSize(0.6).strongConvexity(1)
        .smoothness(4).gradientSensitivity(4).sigma(2).epochs(1).build();
    assertThatThrownBy(() -> new YeShokriShuffleStepAccountant(tooFast, ALPHA_10))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("η = 0.6");
  }
}
