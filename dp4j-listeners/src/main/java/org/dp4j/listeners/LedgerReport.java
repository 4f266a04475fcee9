package org.dp4j.listeners;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.dp4j.Dp4jVersion;
import org.dp4j.accounting.PrivacyGuarantee;
import org.dp4j.accounting.ThreatModel;
import org.dp4j.accounting.ledger.LedgerRow;
import org.dp4j.accounting.ledger.PrivacyLedger;
import org.dp4j.accounting.ledger.StepAccountant;
import org.dp4j.io.AtomicFiles;

/**
 * Writes a {@link PrivacyLedger} as JSON (one object, a {@code ledger} array of per-epoch rows), as CSV
 * (one row per epoch) and as a short human summary. ε values that do not exist (no hidden-state
 * theorem applies) are JSON {@code null} / an empty CSV cell, never NaN.
 *
 * <p>{@code epsilon} is always a guarantee: the best certified bound for the threat model the run claims ({@link
 * PrivacyLedger#claimedThreatModel}), or null with {@code "certified": false} and a one-line reason ({@code
 * notCertifiedBecause}, also the first line of {@link #summary}). A bound that only reproduces a paper's uncertified
 * accounting is reported as {@code epsilonPaperClaim}, never as {@code epsilon}. Files are replaced atomically
 * ({@link AtomicFiles}): a crash while writing leaves the previous file, never a truncated one.
 */
public final class LedgerReport {
  private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private LedgerReport() {}

  /**
   * The ledger as a JSON-ready map. A run's report is a {@link RunReport} ({@link RunReport.Builder#ledger}), which
   * includes these fields under the common ones and adds the run's own (accuracy, hyperparameters).
   */
  public static Map<String, Object> toMap(PrivacyLedger ledger) {
    return toMap(ledger, ledger.claimedThreatModel());
  }

  /** The ledger as a JSON-ready map whose {@code epsilon} is for the threat model {@code claimed}. */
  public static Map<String, Object> toMap(PrivacyLedger ledger, ThreatModel claimed) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("dp4jVersion", Dp4jVersion.get());
    m.put("delta", ledger.delta());
    Optional<PrivacyGuarantee> certified = certifiedEpsilon(ledger, claimed);
    Optional<String> notCertified = notCertifiedBecause(ledger, claimed);
    m.put("certified", notCertified.isEmpty());
    m.put("epsilon", notCertified.isEmpty() ? certified.get().epsilon() : null);
    m.put("epsilonThreatModel", claimed.description());
    m.put("epsilonAccountant", notCertified.isEmpty() ? certified.get().accountant() : null);
    m.put("notCertifiedBecause", notCertified.orElse(null));
    ledger.budget().ifPresent(b -> {
      Map<String, Object> budget = new LinkedHashMap<>();
      budget.put("epsilon", b.epsilon());
      budget.put("delta", b.delta());
      budget.put("threatModel", b.threatModel().description());
      budget.put("stopsOn", ledger.budgetFromPaperClaim()
          ? "the paper's claim (epsilonPaperClaim), NOT a certified bound: requested explicitly"
          : "the best certified bound");
      m.put("budget", budget);
    });
    m.put("budgetFromPaperClaim", ledger.budgetFromPaperClaim());
    m.put("steps", ledger.steps());
    m.put("epochsCompleted", ledger.epochsCompleted());
    List<Map<String, Object>> rows = new ArrayList<>();
    for (LedgerRow row : ledger.rows()) {
      rows.add(rowMap(row));
    }
    LedgerRow last = ledger.rows().isEmpty() ? null : ledger.rows().get(ledger.rows().size() - 1);
    m.put("epsilonComposition", last == null ? null : epsilon(last.composition()));
    m.put("epsilonHiddenState", last == null ? null : epsilon(last.hiddenState()));
    m.put("epsilonLastIterate", last == null ? null : epsilon(last.lastIterate()));
    m.put("epsilonPaperClaim", last == null ? null : epsilon(last.paperClaim()));
    m.put("paperClaimNotCertifiedBecause", ledger.notCertifiedBecause().isEmpty() ? null
        : String.join("; ", ledger.notCertifiedBecause()));
    m.put("epsilonByAccountant", epsilonByAccountant(ledger));
    m.put("epsilonExplained", last == null ? "no epoch recorded" : explain(last, ledger));
    m.put("guaranteesVoidedBecause", ledger.guaranteesVoidedBecause().orElse(null));
    m.put("hiddenStateVoidedBecause", ledger.hiddenStateVoidedBecause().orElse(null));
    m.put("warnings", ledger.warnings());
    m.put("ledger", rows);
    return m;
  }

  /**
   * The composition ε of every accountant in the ledger after its last step (e.g. PLD and RDP side by side); the
   * ledger reports the smallest, which is valid because each one is.
   */
  static Map<String, Double> epsilonByAccountant(PrivacyLedger ledger) {
    Map<String, Double> m = new LinkedHashMap<>();
    for (StepAccountant a : ledger.accountants()) {
      PrivacyGuarantee g = a.guaranteeAfter(0, ledger.delta(), ledger.conversion());
      m.put(a.name() + " (" + a.threatModel().description() + ")"
          + (a.notCertifiedBecause().isPresent() ? " [paper's claim, not certified]" : ""),
          g.isFinite() ? g.epsilon() : null);
    }
    return m;
  }

  /**
   * The best certified bound for the run's claimed threat model after its last row (after its steps so far if no
   * row was closed); empty if no certified accountant covers that threat model.
   */
  public static Optional<PrivacyGuarantee> certifiedEpsilon(PrivacyLedger ledger) {
    return certifiedEpsilon(ledger, ledger.claimedThreatModel());
  }

  /** The best certified bound for {@code claimed} (see {@link #certifiedEpsilon(PrivacyLedger)}). */
  public static Optional<PrivacyGuarantee> certifiedEpsilon(PrivacyLedger ledger, ThreatModel claimed) {
    if (ledger.rows().isEmpty()) {
      return ledger.best(claimed, 0);
    }
    LedgerRow last = ledger.rows().get(ledger.rows().size() - 1);
    return claimed == ThreatModel.ALL_ITERATES_RELEASED ? last.composition() : last.lastIterate();
  }

  /**
   * Why the report has no certified ε, in one line; empty if it has one (a finite certified bound for the claimed
   * threat model).
   */
  public static Optional<String> notCertifiedBecause(PrivacyLedger ledger) {
    return notCertifiedBecause(ledger, ledger.claimedThreatModel());
  }

  /** Why the report has no certified ε for {@code claimed}, in one line; empty if it has one. */
  public static Optional<String> notCertifiedBecause(PrivacyLedger ledger, ThreatModel claimed) {
    if (ledger.guaranteesVoidedBecause().isPresent()) {
      return Optional.of("NO privacy guarantee: " + ledger.guaranteesVoidedBecause().get());
    }
    Optional<PrivacyGuarantee> g = certifiedEpsilon(ledger, claimed);
    String tm = claimed.description();
    if (g.isPresent() && g.get().isFinite()) {
      return Optional.empty();
    }
    if (g.isPresent()) {
      return Optional.of("NOT CERTIFIED: the certified bound for '" + tm + "' (" + g.get().accountant()
          + ") is unbounded (+∞)");
    }
    List<String> paper = ledger.notCertifiedBecause();
    return Optional.of("NOT CERTIFIED: no certified accountant covers '" + tm + "' for this run"
        + (paper.isEmpty() ? "" : "; its only bound is a paper's claim (epsilonPaperClaim): " + String.join("; ", paper)));
  }

  /** Why the ε fields have the values they have, in one sentence (they often coincide). */
  static String explain(LedgerRow last, PrivacyLedger ledger) {
    String comp = last.composition().map(PrivacyGuarantee::accountant).orElse("none");
    if (last.hiddenState().isEmpty() && last.composition().isEmpty()) {
      return "no certified bound: epsilonComposition, epsilonHiddenState and epsilonLastIterate are null"
          + (last.paperClaim().isPresent() ? "; epsilonPaperClaim is a paper's claim, not a guarantee" : "");
    }
    if (last.hiddenState().isEmpty()) {
      return "epsilonLastIterate equals epsilonComposition (" + comp + "): "
          + ledger.hiddenStateVoidedBecause().map(r -> "hidden-state bounds were voided (" + r + ")")
              .orElse("no hidden-state theorem applies to this run")
          + ", and a composition bound also holds when only the last iterate is released";
    }
    boolean hiddenWins = last.lastIterate().map(g -> g.threatModel() == ThreatModel.LAST_ITERATE_ONLY).orElse(false);
    return hiddenWins
        ? "epsilonLastIterate is the hidden-state bound (" + last.hiddenState().get().accountant()
            + "), smaller than epsilonComposition (" + comp + "), and valid only if no intermediate model leaves "
            + "training"
        : "epsilonLastIterate equals epsilonComposition (" + comp + "): the hidden-state bound ("
            + last.hiddenState().get().accountant() + ") is larger here";
  }

  static Map<String, Object> rowMap(LedgerRow row) {
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("epoch", row.epoch());
    r.put("partial", row.partial());
    r.put("steps", row.steps());
    r.put("epsilonComposition", epsilon(row.composition()));
    r.put("accountantComposition", row.composition().map(PrivacyGuarantee::accountant).orElse(null));
    r.put("orderComposition", row.composition().flatMap(PrivacyGuarantee::optimalOrder).orElse(null));
    r.put("epsilonHiddenState", epsilon(row.hiddenState()));
    r.put("orderHiddenState", row.hiddenState().flatMap(PrivacyGuarantee::optimalOrder).orElse(null));
    r.put("hiddenStateAccountant", row.hiddenState().map(PrivacyGuarantee::accountant).orElse(null));
    r.put("epsilonLastIterate", epsilon(row.lastIterate()));
    r.put("epsilonPaperClaim", epsilon(row.paperClaim()));
    r.put("lsiConstants", row.lsiConstants());
    r.put("epochContributions", row.epochContributions());
    Set<String> assumptions = new LinkedHashSet<>();
    row.composition().ifPresent(g -> assumptions.addAll(g.assumptions()));
    row.hiddenState().ifPresent(g -> assumptions.addAll(g.assumptions()));
    r.put("assumptions", List.copyOf(assumptions));
    return r;
  }

  private static Double epsilon(Optional<PrivacyGuarantee> g) {
    return g.filter(x -> x.bound().isFinite()).map(PrivacyGuarantee::epsilon).orElse(null);
  }

  public static void writeJson(Path file, Map<String, Object> report) {
    try {
      byte[] bytes = JSON.writeValueAsBytes(report);
      AtomicFiles.write(file, out -> out.write(bytes));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write report " + file + ": " + AtomicFiles.reason(e), e);
    }
  }

  /** CSV: epoch, steps, epsilon per threat model, optimal orders, then one column per LSI constant. */
  public static void writeCsv(Path file, PrivacyLedger ledger) {
    Set<String> blocks = new LinkedHashSet<>();
    ledger.rows().forEach(r -> blocks.addAll(r.lsiConstants().keySet()));
    StringBuilder sb = new StringBuilder(
        "epoch,steps,epsilon_composition,order_composition,epsilon_hidden_state,order_hidden_state,"
            + "epsilon_last_iterate,epsilon_paper_claim");
    blocks.forEach(b -> sb.append(",lsi_").append(b.replaceAll("[^A-Za-z0-9_]+", "_")));
    sb.append('\n');
    for (LedgerRow row : ledger.rows()) {
      sb.append(row.epoch()).append(',').append(row.steps()).append(',')
          .append(cell(epsilon(row.composition()))).append(',')
          .append(cell(row.composition().flatMap(PrivacyGuarantee::optimalOrder).orElse(null))).append(',')
          .append(cell(epsilon(row.hiddenState()))).append(',')
          .append(cell(row.hiddenState().flatMap(PrivacyGuarantee::optimalOrder).orElse(null))).append(',')
          .append(cell(epsilon(row.lastIterate()))).append(',')
          .append(cell(epsilon(row.paperClaim())));
      blocks.forEach(b -> sb.append(',').append(cell(row.lsiConstants().get(b))));
      sb.append('\n');
    }
    try {
      AtomicFiles.writeString(file, sb.toString());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write CSV " + file + ": " + AtomicFiles.reason(e), e);
    }
  }

  private static String cell(Double v) {
    return v == null || !Double.isFinite(v) ? "" : String.format(Locale.ROOT, "%.10g", v);
  }

  /**
   * One line per threat model for the latest row, e.g. for stdout at the end of training. If the run has no
   * certified ε, the first line says so and why; a paper's claim is printed on its own line, marked as such.
   */
  public static String summary(PrivacyLedger ledger) {
    StringBuilder sb = new StringBuilder();
    notCertifiedBecause(ledger).ifPresent(r -> sb.append(r).append('\n'));
    if (ledger.rows().isEmpty()) {
      return sb.append("no epoch completed; ").append(ledger.steps()).append(" private updates accounted").toString();
    }
    LedgerRow last = ledger.rows().get(ledger.rows().size() - 1);
    sb.append(last.partial() ? "during epoch " : "after epoch ").append(last.epoch()).append(" (")
        .append(last.steps()).append(" private updates").append(last.partial() ? ", stopped by the budget" : "")
        .append("):\n");
    // With the guarantees void, the bounds describe the configured mechanism only.
    String bound = ledger.guaranteesVoidedBecause().isPresent() ? "  VOID, not a guarantee of this run: " : "  ";
    last.composition().ifPresent(g -> sb.append(bound).append("all iterates released: ").append(g.summary())
        .append('\n'));
    if (last.hiddenState().isPresent()) {
      sb.append(bound).append("only the last iterate released: ").append(last.hiddenState().get().summary())
          .append('\n');
    } else {
      sb.append("  only the last iterate released: no hidden-state theorem applies")
          .append(ledger.hiddenStateVoidedBecause().map(r -> " (voided: " + r + ")").orElse(""))
          .append(last.composition().isPresent() ? "; the composition bound above holds\n"
              : "; no certified composition bound either\n");
    }
    last.paperClaim().ifPresent(g -> sb.append("  paper's claim, NOT a guarantee (").append(
        String.join("; ", ledger.notCertifiedBecause())).append("): ").append(g.summary()).append('\n'));
    if (ledger.budgetFromPaperClaim()) {
      sb.append("  the budget stopped on the paper's claim, not on a certified bound (requested explicitly)\n");
    }
    ledger.warnings().forEach(w -> sb.append("  warning: ").append(w).append('\n'));
    return sb.toString().stripTrailing();
  }
}
