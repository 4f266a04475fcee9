package org.dp4j.accounting.pld;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.dp4j.accounting.GaussianDp;
import org.dp4j.accounting.NeighbouringRelation;
import org.dp4j.accounting.Orders;
import org.dp4j.accounting.RdpConversion;
import org.dp4j.accounting.event.ComposedEvent;
import org.dp4j.accounting.event.DpEvent;
import org.dp4j.accounting.event.GaussianEvent;
import org.dp4j.accounting.event.PoissonSampledEvent;
import org.dp4j.accounting.event.PrivacyUnit;
import org.dp4j.accounting.event.RdpEventAccountant;
import org.dp4j.accounting.event.UnsupportedEventException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Reference brackets [lower, upper] marked "python" come from
 * {@code src/test/python/pld_reference.py} (numpy/scipy): plain round-down / round-up discretisation
 * of the privacy loss on a 5e-7 or 1e-6 grid, one real FFT, max over add and remove. It shares no code
 * or discretisation scheme with the Java accountant.
 */
class PldAccountantTest {
  private static final PldAccountant PLD = PldAccountant.withDefaults();
  private static final double MNIST_Q = 256.0 / 60000;

  @Test
  void mnistIsTighterThanRdpAndBracketsTheIndependentValue() {
    DpEvent run = DpEvent.sampledGaussian(MNIST_Q, 1.1).times(14063);
    PldGuarantee g = PLD.compose(run).epsilon(1e-5);
    // python, grid 5e-7: 2.3781739785557914 ≤ ε ≤ 2.3852054861562486
    assertThat(g.epsilon()).isGreaterThanOrEqualTo(2.3781739785557914).isCloseTo(2.38, within(0.01));
    assertThat(g.epsilonLower()).isLessThanOrEqualTo(2.3852054861562486).isGreaterThan(2.36);
    assertThat(g.errorBound()).isLessThan(0.015);
    // docs/accountants.md#sampled-gaussian-rdp: RDP (improved conversion) gives 2.5967 for the same run
    double rdp = RdpConversion.IMPROVED.epsilon(RdpEventAccountant.curve(run, Orders.DEFAULT), 1e-5).epsilon();
    assertThat(rdp).isCloseTo(2.5967, within(1e-4));
    assertThat(g.epsilon()).isLessThan(rdp - 0.2);
    assertThat(g.summary()).contains("add/remove one record", "all iterates released", "Poisson sampling");
  }

  @ParameterizedTest(name = "q={0} z={1} T={2} delta={3}")
  @CsvSource({
      // python, grid 1e-6
      "0.01, 1.0, 1000, 1e-5, 1.8277366671059325, 1.8287366680647632",
      "0.02, 0.8, 300, 1e-6, 4.488892439672918, 4.489192440311939",
  })
  void bracketsIndependentSampledGaussianValues(double q, double z, long steps, double delta, double refLower,
      double refUpper) {
    PldGuarantee g = PLD.compose(DpEvent.sampledGaussian(q, z).times(steps)).epsilon(delta);
    assertThat(g.epsilon()).isGreaterThanOrEqualTo(refLower).isLessThanOrEqualTo(refUpper + 0.01);
    assertThat(g.epsilonLower()).isLessThanOrEqualTo(refUpper).isGreaterThanOrEqualTo(refLower - 0.01);
  }

  @Test
  void eachDirectionMatchesItsIndependentValue() {
    // python, grid 1e-6, q = 0.02, z = 0.8, T = 300, δ = 1e-6: remove ε ∈ [4.488892, 4.489192],
    // add ε ∈ [2.1089608062789287, 2.1092611652487476]; the computed PLD of each direction must agree to
    // within its own Hoeffding deviation (η = 1e-9) plus the reference width
    PrivacyLoss loss = PLD.compose(DpEvent.sampledGaussian(0.02, 0.8).times(300));
    ComposedPld add = loss.direction(LossDirection.ADD);
    ComposedPld remove = loss.direction(LossDirection.REMOVE);
    assertThat(add.computedEpsilon(1e-6)).isCloseTo(2.10911, within(add.couplingDeviation(1e-9) + 2e-4));
    assertThat(remove.computedEpsilon(1e-6)).isCloseTo(4.48904, within(remove.couplingDeviation(1e-9) + 2e-4));
  }

  @Test
  void unsampledGaussianMatchesExactGaussianDp() {
    // 100 Gaussian steps with z = 10 are exactly μ-GDP with μ = √100/10 = 1 (Dong, Roth & Su 2019, Cor. 3.3);
    // docs/accountants.md#gaussian-dp: ε(δ = 1e-5; μ = 1) = 4.3771780957, δ(ε = 1; μ = 1) = 0.1269367375
    PrivacyLoss loss = PLD.compose(DpEvent.gaussian(10).times(100));
    PldGuarantee g = loss.epsilon(1e-5);
    assertThat(GaussianDp.epsilon(1e-5, 1)).isCloseTo(4.3771780957, within(1e-9));
    assertThat(g.epsilonLower()).isLessThanOrEqualTo(4.3771780957);
    assertThat(g.epsilon()).isGreaterThanOrEqualTo(4.3771780957).isLessThan(4.3771780957 + 0.01);
    assertThat(loss.deltaUpper(1)).isGreaterThanOrEqualTo(0.1269367375).isLessThan(0.1269367375 * 1.01);
    assertThat(loss.deltaLower(1)).isLessThanOrEqualTo(0.1269367375).isGreaterThan(0.1269367375 * 0.99);
    double exact4 = GaussianDp.delta(4, 1);
    assertThat(loss.deltaUpper(4)).isGreaterThanOrEqualTo(exact4).isLessThan(exact4 * 1.05);
  }

  @Test
  void heterogeneousGaussianPhasesMatchExactGaussianDp() {
    // 50 steps at z = 5 and 200 at z = 10: μ² = 50/25 + 200/100 = 4, μ = 2
    DpEvent run = DpEvent.gaussian(5).times(50).then(DpEvent.gaussian(10).times(200));
    PldGuarantee g = PLD.compose(run).epsilon(1e-5);
    double exact = GaussianDp.epsilon(1e-5, 2);
    assertThat(g.epsilonLower()).isLessThanOrEqualTo(exact);
    assertThat(g.epsilon()).isGreaterThanOrEqualTo(exact).isLessThan(exact + 0.01);
  }

  @Test
  void heterogeneousSampledPhasesComposeAndBeatRdp() {
    DpEvent first = DpEvent.sampledGaussian(0.01, 1.0).times(600);
    DpEvent second = DpEvent.sampledGaussian(0.02, 2.0).times(400);
    PldGuarantee ab = PLD.compose(first.then(second)).epsilon(1e-5);
    PldGuarantee ba = PLD.compose(second.then(first)).epsilon(1e-5);
    assertThat(ab.epsilon()).isEqualTo(ba.epsilon());
    double rdp = RdpConversion.IMPROVED.epsilon(RdpEventAccountant.curve(first.then(second), Orders.DEFAULT), 1e-5)
        .epsilon();
    assertThat(ab.epsilon()).isLessThan(rdp);
    // adding a phase never helps: each phase alone is below the composition
    assertThat(PLD.compose(first).epsilon(1e-5).epsilon()).isLessThan(ab.epsilonLower());
    assertThat(PLD.compose(second).epsilon(1e-5).epsilon()).isLessThan(ab.epsilonLower());
    // splitting a phase in two is the same run
    DpEvent split = DpEvent.sampledGaussian(0.01, 1.0).times(300).then(DpEvent.sampledGaussian(0.01, 1.0).times(300));
    assertThat(PLD.compose(split).epsilon(1e-5).epsilon()).isEqualTo(PLD.compose(first).epsilon(1e-5).epsilon());
  }

  @Test
  void smallDeltasStayTightAndBelowRdp() {
    // the round-off allowance (direct low-frequency DFT, componentwise FFT bound) must stay far below δ
    DpEvent run = DpEvent.sampledGaussian(0.01, 1.0).times(1000);
    PrivacyLoss loss = PLD.compose(run);
    assertThat(loss.direction(LossDirection.REMOVE).roundoff()).isLessThan(1e-11);
    PldGuarantee g = loss.epsilon(1e-10);
    assertThat(g.errorBound()).isLessThan(0.05);
    double rdp = RdpConversion.IMPROVED.epsilon(RdpEventAccountant.curve(run, Orders.DEFAULT), 1e-10).epsilon();
    assertThat(g.epsilon()).isLessThan(rdp);
  }

  @Test
  void monotoneInStepsAndNoise() {
    double previous = 0;
    for (long steps : new long[] {100, 400, 1600}) {
      PldGuarantee g = PLD.compose(DpEvent.sampledGaussian(0.01, 1.0).times(steps)).epsilon(1e-5);
      assertThat(g.epsilonLower()).isGreaterThan(previous);
      previous = g.epsilon();
    }
    double last = Double.POSITIVE_INFINITY;
    for (double z : new double[] {0.8, 1.0, 1.5}) {
      PldGuarantee g = PLD.compose(DpEvent.sampledGaussian(0.01, z).times(500)).epsilon(1e-5);
      assertThat(g.epsilon()).isLessThan(last);
      last = g.epsilonLower();
    }
  }

  @Test
  void refiningTheGridShrinksTheBracketAroundTheReference() {
    DpEvent run = DpEvent.sampledGaussian(0.01, 1.0).times(1000);
    double previousWidth = Double.POSITIVE_INFINITY;
    for (double interval : new double[] {8e-4, 2e-4, 5e-5}) {
      PldGuarantee g = PldAccountant.withInterval(interval).compose(run).epsilon(1e-5);
      // python, grid 1e-6: 1.8277366671059325 ≤ ε ≤ 1.8287366680647632
      assertThat(g.epsilon()).isGreaterThanOrEqualTo(1.8277366671059325);
      assertThat(g.epsilonLower()).isLessThanOrEqualTo(1.8287366680647632);
      // the Hoeffding term is linear in the interval
      assertThat(g.errorBound()).isLessThan(previousWidth / 3);
      previousWidth = g.errorBound();
    }
    assertThat(previousWidth).isLessThan(0.01);
  }

  @Test
  void deltaIsDecreasingInEpsilonAndConsistentWithEpsilon() {
    PrivacyLoss loss = PLD.compose(DpEvent.sampledGaussian(0.01, 1.0).times(1000));
    double previous = 1;
    for (double eps = 0.5; eps <= 4; eps += 0.5) {
      double d = loss.deltaUpper(eps);
      assertThat(d).isLessThan(previous).isGreaterThanOrEqualTo(loss.deltaLower(eps));
      previous = d;
    }
    PldGuarantee g = loss.epsilon(1e-5);
    assertThat(loss.deltaLower(g.epsilon())).isLessThanOrEqualTo(1e-5);
    assertThat(loss.deltaUpper(g.epsilonLower())).isGreaterThanOrEqualTo(1e-5);
  }

  @Test
  void userLevelGaussianIsNeverBelowTheExactGroupBound() {
    // a user with 3 records shifts the sum by 3: exact μ = 3 for the run that is 1-GDP per record
    PrivacyLoss loss = PLD.compose(DpEvent.gaussian(10).times(100));
    PldGuarantee user = loss.epsilon(1e-5, PrivacyUnit.user(NeighbouringRelation.ADD_REMOVE, 3));
    assertThat(user.epsilon()).isGreaterThanOrEqualTo(GaussianDp.epsilon(1e-5, 3));
    assertThat(user.epsilon()).isGreaterThan(loss.epsilon(1e-5).epsilon());
    assertThat(user.epsilonLower()).isZero();
    // replace-one is a path of two add/remove steps: at least the exact μ = 2 value
    PldGuarantee replace = loss.epsilon(1e-5, PrivacyUnit.user(NeighbouringRelation.REPLACE_ONE, 1));
    assertThat(replace.epsilon()).isGreaterThanOrEqualTo(GaussianDp.epsilon(1e-5, 2)).isLessThan(user.epsilon());
    assertThat(replace.summary()).contains("replace one record");
  }

  @Test
  void userLevelUnsampledGaussianIsExact() {
    // sensitivity k: exactly μ = k·√100/10 = k Gaussian DP (Dong, Roth & Su 2019)
    DpEvent run = DpEvent.gaussian(10).times(100);
    PldGuarantee user = PLD.guarantee(run, 1e-5, PrivacyUnit.user(NeighbouringRelation.ADD_REMOVE, 3));
    double exact3 = GaussianDp.epsilon(1e-5, 3);
    assertThat(user.epsilonLower()).isLessThanOrEqualTo(exact3);
    assertThat(user.epsilon()).isGreaterThanOrEqualTo(exact3).isLessThan(exact3 + 0.01);
    PldGuarantee replace = PLD.guarantee(run, 1e-5, PrivacyUnit.user(NeighbouringRelation.REPLACE_ONE, 1));
    double exact2 = GaussianDp.epsilon(1e-5, 2);
    assertThat(replace.epsilon()).isGreaterThanOrEqualTo(exact2).isLessThan(exact2 + 0.01);
    assertThat(replace.unit().relation()).isEqualTo(NeighbouringRelation.REPLACE_ONE);
    assertThat(replace.summary()).contains("replace one record", "at most 2·C");
    // tighter than the generic group conversion of the same run
    assertThat(replace.epsilon()).isLessThan(PLD.compose(run)
        .epsilon(1e-5, PrivacyUnit.user(NeighbouringRelation.REPLACE_ONE, 1)).epsilon());
  }

  @Test
  void rejectsWhatItCannotAccount() {
    assertThatThrownBy(() -> PLD.compose(DpEvent.gaussian(1).times(10)).epsilon(0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("delta").hasMessageContaining("0");
    DpEvent sampledComposition = new PoissonSampledEvent(0.1,
        new ComposedEvent(List.of(new GaussianEvent(1), new GaussianEvent(2))));
    assertThatThrownBy(() -> PLD.compose(sampledComposition)).isInstanceOf(UnsupportedEventException.class)
        .hasMessageContaining(PldAccountant.NAME).hasMessageContaining("Poisson sampling of a composition");
    assertThatThrownBy(() -> PLD.compose(DpEvent.gaussian(1).times(0)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no steps");
    assertThatThrownBy(() -> PldAccountant.withInterval(0.5)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("interval").hasMessageContaining("0.5");
  }
}
