package org.dp4j.training;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import org.dp4j.accounting.PrivacyGuarantee;
import org.dp4j.accounting.ThreatModel;
import org.dp4j.accounting.ledger.PrivacyLedger;

/**
 * "How much privacy has this run spent so far?" — the one-liner a user expects (Opacus' {@code get_epsilon}), read
 * from a {@link PrivacyLedger}: per threat model, the best valid bound at the ledger's δ with its neighbouring
 * relation and accountant; or, when the noise was not secure, a statement that no guarantee holds.
 *
 * <pre>{@code
 * // given: PrivacyLedger ledger
 * String line = EpsilonSpent.describe(ledger, Optional.empty());
 * // "after 470 steps: all iterates released: ε = 1.2034 at δ = 1.0E-5 (add/remove one record; sampled-gaussian-rdp,
 * //  conditional on ...); only the last iterate released: the same bound (...)"
 * }</pre>
 */
public final class EpsilonSpent {
  private EpsilonSpent() {
  }

  /** ε under the threat model after the steps taken; empty if the run is void or no accountant covers it. */
  public static OptionalDouble epsilon(PrivacyLedger ledger, ThreatModel threatModel, Optional<String> voidBecause) {
    if (voidBecause.isPresent()) {
      return OptionalDouble.empty();
    }
    Optional<PrivacyGuarantee> g = ledger.best(threatModel, 0);
    return g.isPresent() ? OptionalDouble.of(g.get().epsilon()) : OptionalDouble.empty();
  }

  /** The one-line statement for both threat models. */
  public static String describe(PrivacyLedger ledger, Optional<String> voidBecause) {
    if (voidBecause.isPresent()) {
      return "after " + ledger.steps() + " steps: NO privacy guarantee (" + voidBecause.get() + ")";
    }
    List<String> parts = new ArrayList<>();
    Optional<PrivacyGuarantee> all = ledger.best(ThreatModel.ALL_ITERATES_RELEASED, 0);
    parts.add(ThreatModel.ALL_ITERATES_RELEASED.description() + ": "
        + all.map(EpsilonSpent::shortForm).orElse("no bound applies"));
    Optional<PrivacyGuarantee> last = ledger.best(ThreatModel.LAST_ITERATE_ONLY, 0);
    boolean same = last.isPresent() && all.isPresent() && last.get().accountant().equals(all.get().accountant());
    parts.add(ThreatModel.LAST_ITERATE_ONLY.description() + ": " + (same
        ? "the same bound (no hidden-state bound is tighter or valid)"
        : last.map(EpsilonSpent::shortForm).orElse("no bound applies")));
    return "after " + ledger.steps() + " steps: " + String.join("; ", parts);
  }

  private static String shortForm(PrivacyGuarantee g) {
    String eps = Double.isFinite(g.epsilon()) ? String.format("%.4f", g.epsilon()) : "unbounded (+∞)";
    String conditional = g.assumptions().isEmpty() ? "" : ", conditional on " + String.join("; ", g.assumptions());
    return "ε = " + eps + " at δ = " + g.delta() + " (" + g.relation().description() + "; " + g.accountant()
        + conditional + ")";
  }
}
