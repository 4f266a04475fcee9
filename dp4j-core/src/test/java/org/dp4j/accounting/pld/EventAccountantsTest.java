package org.dp4j.accounting.pld;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.dp4j.accounting.NeighbouringRelation;
import org.dp4j.accounting.Orders;
import org.dp4j.accounting.RdpConversion;
import org.dp4j.accounting.PrivacyGuarantee;
import org.dp4j.accounting.ThreatModel;
import org.dp4j.accounting.event.DpEvent;
import org.dp4j.accounting.event.PoissonSampledEvent;
import org.dp4j.accounting.event.EventAccountant;
import org.dp4j.accounting.event.PrivacyUnit;
import org.dp4j.accounting.event.RdpEventAccountant;
import org.junit.jupiter.api.Test;

/** One run described once, reported by every accountant. */
class EventAccountantsTest {
  private static final List<EventAccountant> ACCOUNTANTS =
      List.of(RdpEventAccountant.of(Orders.DEFAULT, RdpConversion.IMPROVED), PldAccountant.withDefaults());

  @Test
  void everyAccountantReportsTheMnistRun() {
    DpEvent run = DpEvent.sampledGaussian(256.0 / 60000, 1.1).times(14063);
    Map<String, Double> eps = new LinkedHashMap<>();
    for (EventAccountant a : ACCOUNTANTS) {
      eps.put(a.name(), a.epsilon(run, 1e-5, PrivacyUnit.RECORD));
    }
    // docs/accountants.md#sampled-gaussian-rdp (RDP 2.5967); python sandwich for the PLD (2.3782 ≤ ε ≤ 2.3852)
    assertThat(eps.get(RdpEventAccountant.NAME)).isCloseTo(2.5967, within(1e-4));
    assertThat(eps.get(PldAccountant.NAME)).isBetween(2.3781739785557914, 2.39);
  }

  @Test
  void userLevelCostsMoreForEveryAccountant() {
    DpEvent run = DpEvent.sampledGaussian(0.01, 1.0).times(1000);
    PrivacyUnit user = PrivacyUnit.user(NeighbouringRelation.ADD_REMOVE, 2);
    PrivacyUnit replace = PrivacyUnit.user(NeighbouringRelation.REPLACE_ONE, 1);
    for (EventAccountant a : ACCOUNTANTS) {
      double record = a.epsilon(run, 1e-5, PrivacyUnit.RECORD);
      double pair = a.epsilon(run, 1e-5, user);
      assertThat(pair).as(a.name()).isGreaterThan(record).isLessThan(Double.POSITIVE_INFINITY);
      // replace-one is two add/remove steps, the same path as a 2-record user
      assertThat(a.epsilon(run, 1e-5, replace)).as(a.name()).isEqualTo(pair);
    }
  }

  @Test
  void oneContractGuaranteeDeltaAndSupport() {
    DpEvent run = DpEvent.sampledGaussian(256.0 / 60000, 1.1).times(14063);
    for (EventAccountant a : ACCOUNTANTS) {
      assertThat(a.supports(run)).as(a.name()).isTrue();
      PrivacyGuarantee g = a.privacyGuarantee(run, 1e-5, PrivacyUnit.RECORD);
      assertThat(g.epsilon()).as(a.name()).isEqualTo(a.epsilon(run, 1e-5, PrivacyUnit.RECORD));
      assertThat(g.accountant()).isEqualTo(a.name());
      assertThat(g.threatModel()).isEqualTo(ThreatModel.ALL_ITERATES_RELEASED);
      assertThat(g.relation()).isEqualTo(NeighbouringRelation.ADD_REMOVE);
      // δ at the reported ε is at most the δ asked for (both are certified from the same bound)
      assertThat(a.delta(run, g.epsilon())).as(a.name()).isLessThanOrEqualTo(1e-5 * (1 + 1e-6));
      assertThat(a.delta(run, g.epsilon() * 0.8)).as(a.name()).isGreaterThan(1e-5);
      // group privacy: a 2-record user at the record ε pays more δ
      assertThat(a.delta(run, g.epsilon(), PrivacyUnit.user(NeighbouringRelation.ADD_REMOVE, 2)))
          .isGreaterThan(a.delta(run, g.epsilon()));
    }
    // only Poisson-sampled Gaussian steps are covered: sampling a composition is refused, and supports() says so
    DpEvent nested = new PoissonSampledEvent(0.5, DpEvent.gaussian(1.0).times(2));
    for (EventAccountant a : ACCOUNTANTS) {
      assertThat(a.supports(nested)).as(a.name()).isFalse();
    }
    PrivacyGuarantee pld = PldAccountant.withDefaults().privacyGuarantee(run, 1e-5, PrivacyUnit.RECORD);
    assertThat(pld.curve()).isEmpty();
    assertThat(pld.epsilonLower()).isGreaterThan(2.36).isLessThanOrEqualTo(2.3852054861562486);
  }
}
