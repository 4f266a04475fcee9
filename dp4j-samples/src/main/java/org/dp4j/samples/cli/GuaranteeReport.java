package org.dp4j.samples.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.dp4j.accounting.NeighbouringRelation;
import org.dp4j.accounting.PrivacyGuarantee;
import org.dp4j.accounting.RdpConversion;
import org.dp4j.accounting.RdpCurve;
import org.dp4j.accounting.ThreatModel;
import org.dp4j.accounting.pld.PldAccountant;
import org.dp4j.accounting.pld.PldGuarantee;
import org.dp4j.listeners.RunReport;

/**
 * Renders a guarantee (RDP {@link PrivacyGuarantee} or PLD {@link PldGuarantee}) as a short human
 * report or as one JSON object. Infinite values are written as JSON {@code null} (JSON has no ∞) and
 * flagged, never as NaN. Both accountants share the fields epsilon, epsilonFinite, delta,
 * neighbouringRelation, threatModel, accountant, theorem, assumptions, mechanism, warnings; RDP adds
 * order, orderOnGridEdge, conversion, orders, rdp; PLD adds epsilonLower, epsilonErrorBound,
 * pldInterval.
 */
final class GuaranteeReport {
  private final double epsilon;
  private final double delta;
  private final String epsilonDetail;
  private final Map<String, Object> accountantFields = new LinkedHashMap<>();
  private final Map<String, Object> trailingFields = new LinkedHashMap<>();
  private final NeighbouringRelation relation;
  private final ThreatModel threatModel;
  private final String accountant;
  private final String theorem;
  private final List<String> assumptions;
  private final Map<String, Object> mechanism = new LinkedHashMap<>();
  private final Map<String, Object> extra = new LinkedHashMap<>();
  private final List<String> warnings = new ArrayList<>();
  private final Map<String, Object> details = new LinkedHashMap<>();
  private final List<String> detailLines = new ArrayList<>();
  private String notCertifiedBecause;

  private GuaranteeReport(double epsilon, double delta, String epsilonDetail, NeighbouringRelation relation,
      ThreatModel threatModel, String accountant, String theorem, List<String> assumptions) {
    this.epsilon = epsilon;
    this.delta = delta;
    this.epsilonDetail = epsilonDetail;
    this.relation = relation;
    this.threatModel = threatModel;
    this.accountant = accountant;
    this.theorem = theorem;
    this.assumptions = assumptions;
  }

  GuaranteeReport(PrivacyGuarantee guarantee, RdpConversion conversion) {
    this(guarantee.epsilon(), guarantee.delta(), "optimal order " + guarantee.bound().order() + ", "
        + conversion.name().toLowerCase(Locale.ROOT) + " conversion", guarantee.relation(), guarantee.threatModel(),
        guarantee.accountant(), guarantee.theorem(), guarantee.assumptions());
    if (guarantee.bound().orderOnGridEdge()) {
      warnings.add("the optimal order " + guarantee.bound().order()
          + " is on the edge of the order grid; a wider --orders grid may give a smaller epsilon");
    }
    if (!guarantee.bound().isFinite()) {
      warnings.add("no order gives a finite epsilon: the bound is infinite");
    }
    accountantFields.put("order", guarantee.bound().order());
    accountantFields.put("orderOnGridEdge", guarantee.bound().orderOnGridEdge());
    accountantFields.put("conversion", conversion.name().toLowerCase(Locale.ROOT));
    RdpCurve rdp = guarantee.rdp();
    List<Object> orders = new ArrayList<>();
    List<Object> values = new ArrayList<>();
    for (int i = 0; i < rdp.size(); i++) {
      orders.add(finiteOrNull(rdp.order(i)));
      values.add(finiteOrNull(rdp.value(i)));
    }
    trailingFields.put("orders", orders);
    trailingFields.put("rdp", values);
  }

  GuaranteeReport(PldGuarantee guarantee) {
    this(guarantee.epsilon(), guarantee.delta(), String.format(Locale.ROOT,
        "certified upper bound; optimal epsilon >= %.6g, error bound %.3g", guarantee.epsilonLower(),
        guarantee.errorBound()), guarantee.unit().relation(), guarantee.threatModel(), PldAccountant.NAME,
        PldAccountant.THEOREM, guarantee.assumptions());
    if (!guarantee.isFinite()) {
      warnings.add("delta " + guarantee.delta() + " is below what the PLD accountant can certify (its tail and "
          + "round-off allowances): the bound is infinite; use a larger delta or --accountant rdp");
    }
    accountantFields.put("epsilonLower", guarantee.epsilonLower());
    accountantFields.put("epsilonErrorBound", finiteOrNull(guarantee.errorBound()));
    accountantFields.put("pldInterval", guarantee.interval());
  }

  /**
   * Marks the bound as a paper's uncertified accounting (e.g. DP-MBCD's PAPER mode): it is reported as
   * {@code epsilonPaperClaim}, {@code epsilon} is null and {@code certified} false, and the reason is the first line
   * of the text report.
   */
  GuaranteeReport notCertified(String reason) {
    this.notCertifiedBecause = reason;
    return this;
  }

  /** Why this report has no certified ε, or null: a paper's claim, or an infinite bound. */
  String notCertifiedBecause() {
    if (notCertifiedBecause != null) {
      return "NOT CERTIFIED: this epsilon is a paper's claim, not a guarantee: " + notCertifiedBecause;
    }
    return Double.isFinite(epsilon) ? null : "NOT CERTIFIED: the bound is infinite (no finite epsilon is certified)";
  }

  /** A mechanism parameter shown in both formats (e.g. "noiseMultiplier" → 1.1). */
  GuaranteeReport mechanism(String name, Object value) {
    mechanism.put(name, value);
    return this;
  }

  /** A top-level JSON field (e.g. "noiseMultiplier" for calibrate). */
  GuaranteeReport extra(String name, Object value) {
    extra.put(name, value);
    return this;
  }

  /**
   * A JSON field too long for the text report (e.g. per-epoch curves at every order), and the lines that
   * summarise it in the text report.
   */
  GuaranteeReport detail(String name, Object jsonValue, List<String> textLines) {
    details.put(name, jsonValue);
    detailLines.addAll(textLines);
    return this;
  }

  void print(boolean json, String command, String title, PrintWriter out, PrintWriter err) {
    for (String w : warnings) {
      err.println("dp4j: warning: " + w);
    }
    out.println(json ? toJson(command) : toText(title));
    out.flush();
  }

  /** The report as {@link RunReport} JSON of {@code command} (e.g. "dp4j account sgm"). */
  String toJson(String command) {
    RunReport.Builder r = RunReport.builder(command).relation(relation);
    String reason = notCertifiedBecause();
    if (reason == null) {
      r.certified(epsilon, delta, threatModel, accountant, assumptions);
    } else {
      r.notCertified(reason, delta, threatModel);
    }
    if (notCertifiedBecause != null) {
      r.field("epsilonPaperClaim", finiteOrNull(epsilon));
    }
    r.fields(extra).field("epsilonFinite", Double.isFinite(epsilon)).fields(accountantFields)
        .field("accountant", accountant).field("theorem", theorem).field("mechanism", mechanism)
        .fields(trailingFields);
    details.forEach((name, value) -> {
      if (name.equals("perEpoch")) {
        r.perEpoch(perEpochRows(value));
      } else {
        r.field(name, value);
      }
    });
    return r.field("warnings", warnings).build().toJson();
  }

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> perEpochRows(Object rows) {
    return (List<Map<String, Object>>) rows;
  }

  String toText(String title) {
    StringBuilder sb = new StringBuilder();
    if (notCertifiedBecause() != null) {
      sb.append(notCertifiedBecause()).append('\n');
    }
    sb.append(title).append('\n');
    mechanism.forEach((k, v) -> sb.append("  ").append(k).append(" = ").append(v).append('\n'));
    extra.forEach((k, v) -> sb.append("  ").append(k).append(" = ").append(v).append('\n'));
    detailLines.forEach(line -> sb.append("  ").append(line).append('\n'));
    String eps = Double.isFinite(epsilon) ? String.format("%.6g", epsilon) : "infinite (no bound)";
    sb.append(notCertifiedBecause == null ? "  epsilon = " : "  paper's claim (NOT certified): epsilon = ").append(eps).append(" at delta = ").append(delta)
        .append(" (").append(epsilonDetail).append(")\n");
    sb.append("  neighbouring relation: ").append(relation.description()).append('\n');
    sb.append("  threat model: ").append(threatModel.description()).append('\n');
    sb.append("  accountant: ").append(accountant).append(" — ").append(theorem).append('\n');
    for (String a : assumptions) {
      sb.append("  conditional on: ").append(a).append('\n');
    }
    return sb.toString().stripTrailing();
  }

  static Object finiteOrNull(double v) {
    return Double.isFinite(v) ? v : null;
  }
}
