package org.dp4j.accounting.hiddenstate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import java.util.List;
import org.dp4j.accounting.NeighbouringRelation;
import org.dp4j.accounting.Orders;
import org.dp4j.accounting.PrivacyGuarantee;
import org.dp4j.accounting.RdpConversion;
import org.dp4j.accounting.SampledGaussianAccountant;
import org.dp4j.accounting.SampledGaussianMechanism;
import org.dp4j.accounting.ThreatModel;
import org.dp4j.accounting.hiddenstate.HiddenStateCombiner.Best;
import org.dp4j.accounting.hiddenstate.KongRiberoAccountant.Gradients;
import org.junit.jupiter.api.Test;

class HiddenStateCombinerTest {
  private static final double DELTA = 1e-5;
  private static final HiddenStateCombiner COMBINER =
      new HiddenStateCombiner(DELTA, Orders.DEFAULT, RdpConversion.IMPROVED);

  /** Kong &amp; Ribero 2025; docs/accountants.md#kong-ribero Set B run (k = 10, b = 2, λ = 0.1, C = 1, σ = 0.5) for T steps. */
  private static KongRiberoAccountant.Builder kongRibero(long bigT) {
    return KongRiberoAccountant.builder().datasetSize(10).batchSize(2).iterations(bigT).stepSize(0.1).clipNorm(1)
        .noiseStd(0.5).weakConvexity(1).smoothness(1);
  }

  private static PrivacyGuarantee composition(KongRiberoAccountant acc) {
    return acc.compositionGuarantee(DELTA, Orders.DEFAULT, RdpConversion.IMPROVED);
  }

  private static Best scope(List<Best> report, ThreatModel threatModel, NeighbouringRelation relation) {
    return report.stream().filter(b -> b.threatModel() == threatModel && b.relation() == relation)
        .findFirst().orElseThrow();
  }

  @Test
  void compositionWinsTheLastIterateScopeWhenTheHiddenStateBoundIsWorse() {
    // (17) is never below composition (docs/errata.md#kong-ribero-theorem-2-3): the last-iterate report must not be worse
    KongRiberoAccountant clipped = kongRibero(23).build();
    List<Best> report = COMBINER.combine(List.of(clipped), List.of(composition(clipped)));
    Best last = scope(report, ThreatModel.LAST_ITERATE_ONLY, NeighbouringRelation.REPLACE_ONE);
    Best all = scope(report, ThreatModel.ALL_ITERATES_RELEASED, NeighbouringRelation.REPLACE_ONE);
    assertThat(last.best().accountant()).isEqualTo("kong-ribero-composition");
    assertThat(last.best().threatModel()).isEqualTo(ThreatModel.ALL_ITERATES_RELEASED);
    assertThat(last.candidates()).hasSize(2);
    assertThat(all.candidates()).hasSize(1);
    assertThat(all.best().accountant()).isEqualTo("kong-ribero-composition");
    assertThat(last.summary()).startsWith("[only the last iterate released, replace one record] best of 2");
  }

  @Test
  void hiddenStateBoundWinsOnlyItsOwnScope() {
    // convex, unclipped, E = 500 epochs: (19) far below composition
    KongRiberoAccountant convex = kongRibero(2500).weakConvexity(0).gradients(Gradients.UNCLIPPED_BOUNDED).build();
    List<Best> report = COMBINER.combine(List.of(convex), List.of(composition(convex)));
    Best last = scope(report, ThreatModel.LAST_ITERATE_ONLY, NeighbouringRelation.REPLACE_ONE);
    Best all = scope(report, ThreatModel.ALL_ITERATES_RELEASED, NeighbouringRelation.REPLACE_ONE);
    assertThat(last.best().accountant()).isEqualTo("kong-ribero");
    assertThat(last.best().epsilon()).isLessThan(all.best().epsilon());
    assertThat(all.candidates()).allMatch(g -> g.threatModel() == ThreatModel.ALL_ITERATES_RELEASED);
    for (int i = 0; i < Orders.DEFAULT.size(); i++) {
      for (PrivacyGuarantee g : last.candidates()) {
        assertThat(last.orderwiseMin().value(i)).isLessThanOrEqualTo(g.rdp().value(i));
      }
    }
  }

  @Test
  void neighbouringRelationsAreNeverCompared() {
    PrivacyGuarantee addRemove = new SampledGaussianAccountant(Orders.DEFAULT)
        .compose(new SampledGaussianMechanism(0.2, 5.0), 25).guarantee(DELTA, RdpConversion.IMPROVED);
    KongRiberoAccountant clipped = kongRibero(25).build();
    ShiftedInterpolationCyclicAccountant cyclic = ShiftedInterpolationCyclicAccountant.builder()
        .datasetSize(10).batchSize(2).gradientSensitivity(2).noiseStd(5).stepSize(0.1).strongConvexity(1)
        .smoothness(1).epochs(5).build();
    List<Best> report = COMBINER.combine(List.of(clipped, cyclic), List.of(composition(clipped), addRemove));
    assertThat(report).extracting(Best::relation, Best::threatModel).containsExactly(
        tuple(NeighbouringRelation.ADD_REMOVE, ThreatModel.ALL_ITERATES_RELEASED),
        tuple(NeighbouringRelation.ADD_REMOVE, ThreatModel.LAST_ITERATE_ONLY),
        tuple(NeighbouringRelation.REPLACE_ONE, ThreatModel.ALL_ITERATES_RELEASED),
        tuple(NeighbouringRelation.REPLACE_ONE, ThreatModel.LAST_ITERATE_ONLY));
    Best replaceOneLast = scope(report, ThreatModel.LAST_ITERATE_ONLY, NeighbouringRelation.REPLACE_ONE);
    assertThat(replaceOneLast.candidates()).hasSize(3).noneMatch(g -> g == addRemove);
    double smallest = replaceOneLast.candidates().stream().mapToDouble(PrivacyGuarantee::epsilon).min().orElseThrow();
    assertThat(replaceOneLast.best().epsilon()).isEqualTo(smallest);
  }

  @Test
  void refusesGuaranteesAtAnotherDelta() {
    KongRiberoAccountant acc = kongRibero(5).build();
    PrivacyGuarantee other = acc.compositionGuarantee(1e-6, Orders.DEFAULT, RdpConversion.IMPROVED);
    assertThatThrownBy(() -> COMBINER.combine(List.of(other))).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("δ = 1.0E-6");
  }
}
