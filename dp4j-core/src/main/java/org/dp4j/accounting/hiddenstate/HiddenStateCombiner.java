package org.dp4j.accounting.hiddenstate;

import static com.google.common.base.Preconditions.checkNotNull;
import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.dp4j.accounting.NeighbouringRelation;
import org.dp4j.accounting.Orders;
import org.dp4j.accounting.PrivacyGuarantee;
import org.dp4j.accounting.RdpConversion;
import org.dp4j.accounting.RdpCurve;
import org.dp4j.accounting.ThreatModel;

/**
 * The best valid bound per threat model and neighbouring relation over several accountants of the
 * same training run (contract 3, docs/architecture.md#contract-report).
 *
 * <p>Rules: bounds under different neighbouring relations are never compared. A bound for
 * {@link ThreatModel#ALL_ITERATES_RELEASED} also holds when only the last iterate is released
 * (post-processing), so it competes in both threat models; a last-iterate bound never enters the
 * all-iterates result. The winner keeps its own threat-model label, so a report never claims more than
 * its theorem. Within one scope the order-wise minimum of the Rényi curves is also valid (each curve
 * bounds the same mechanism at every order), conditional on all the scope's assumptions; it is given for
 * further composition — for (ε, δ) of this run alone it never beats the best single bound.
 *
 * <p>The caller is responsible for configuring every accountant from the same mechanism description;
 * the combiner cannot check that two theorems' parameterisations describe the same run.
 *
 * <pre>{@code
 * // given: KongRiberoAccountant kongRibero; PabiAccountant pabi
 * HiddenStateCombiner combiner = new HiddenStateCombiner(1e-5, Orders.DEFAULT, RdpConversion.IMPROVED);
 * List<HiddenStateCombiner.Best> report = combiner.combine(
 *     List.of(kongRibero, pabi), List.of(kongRibero.compositionGuarantee(1e-5, Orders.DEFAULT, RdpConversion.IMPROVED)));
 * report.forEach(b -> System.out.println(b.summary()));
 * }</pre>
 */
public final class HiddenStateCombiner {
  private final double delta;
  private final Orders orders;
  private final RdpConversion conversion;

  /**
   * The best bound in one scope.
   *
   * @param threatModel the threat model of this result
   * @param relation the neighbouring relation shared by all candidates
   * @param best the candidate with the smallest ε (its own threat model may be the stronger one)
   * @param candidates every guarantee valid in this scope
   * @param orderwiseMin the order-wise minimum of the candidates' curves
   */
  public record Best(ThreatModel threatModel, NeighbouringRelation relation, PrivacyGuarantee best,
      List<PrivacyGuarantee> candidates, RdpCurve orderwiseMin) {
    public Best {
      candidates = List.copyOf(candidates);
    }

    /** One line: scope, then the winning accountant's summary. */
    public String summary() {
      return String.format("[%s, %s] best of %d: %s", threatModel.description(), relation.description(),
          candidates.size(), best.summary());
    }
  }

  public HiddenStateCombiner(double delta, Orders orders, RdpConversion conversion) {
    checkArgument(delta > 0 && delta < 1, "delta must be in (0, 1), was %s", delta);
    this.delta = delta;
    this.orders = checkNotNull(orders, "orders");
    this.conversion = checkNotNull(conversion, "conversion");
  }

  /**
   * Evaluates every accountant at this combiner's δ, orders and conversion, adds the given extra
   * guarantees (e.g. composition baselines, computed at the same δ and orders), and returns the best
   * bound per scope, ordered by relation then threat model.
   */
  public List<Best> combine(List<? extends HiddenStateAccountant> accountants, List<PrivacyGuarantee> extra) {
    List<PrivacyGuarantee> all = new ArrayList<>();
    for (HiddenStateAccountant accountant : accountants) {
      all.add(accountant.guarantee(delta, orders, conversion));
    }
    all.addAll(extra);
    return combine(all);
  }

  /** The best bound per scope among guarantees that must all be stated at this combiner's δ. */
  public List<Best> combine(List<PrivacyGuarantee> guarantees) {
    for (PrivacyGuarantee g : guarantees) {
      checkArgument(g.delta() == delta, "guarantee of %s is at δ = %s, the combiner's δ is %s",
          g.accountant(), g.delta(), delta);
    }
    List<Best> report = new ArrayList<>();
    for (NeighbouringRelation relation : NeighbouringRelation.values()) {
      for (ThreatModel threatModel : ThreatModel.values()) {
        bestIn(guarantees, threatModel, relation).ifPresent(report::add);
      }
    }
    return report;
  }

  private static Optional<Best> bestIn(List<PrivacyGuarantee> guarantees, ThreatModel threatModel,
      NeighbouringRelation relation) {
    List<PrivacyGuarantee> valid = guarantees.stream()
        .filter(g -> g.relation() == relation && holdsUnder(g.threatModel(), threatModel))
        .toList();
    if (valid.isEmpty()) {
      return Optional.empty();
    }
    PrivacyGuarantee best = valid.stream().min(Comparator.comparingDouble(PrivacyGuarantee::epsilon)).orElseThrow();
    RdpCurve min = valid.get(0).rdp();
    for (PrivacyGuarantee g : valid) {
      min = min.min(g.rdp());
    }
    return Optional.of(new Best(threatModel, relation, best, valid, min));
  }

  /** A bound proven for {@code proven} holds under {@code wanted} if the adversary sees no more. */
  private static boolean holdsUnder(ThreatModel proven, ThreatModel wanted) {
    return proven == wanted || proven == ThreatModel.ALL_ITERATES_RELEASED;
  }
}
