package org.dp4j.samples.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.dp4j.accounting.PrivacyGuarantee;
import org.dp4j.accounting.RdpConversion;
import org.dp4j.accounting.RdpCurve;

/**
 * Renders a {@link PrivacyGuarantee} as a short human report or as one JSON object. Infinite values
 * are written as JSON {@code null} (JSON has no ∞) and flagged, never as NaN.
 */
final class GuaranteeReport {
  private static final ObjectMapper JSON = new ObjectMapper().disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);

  private final PrivacyGuarantee guarantee;
  private final RdpConversion conversion;
  private final Map<String, Object> mechanism = new LinkedHashMap<>();
  private final Map<String, Object> extra = new LinkedHashMap<>();
  private final Map<String, Object> details = new LinkedHashMap<>();
  private final List<String> detailLines = new ArrayList<>();
  private final List<String> warnings = new ArrayList<>();

  GuaranteeReport(PrivacyGuarantee guarantee, RdpConversion conversion) {
    this.guarantee = guarantee;
    this.conversion = conversion;
    if (guarantee.bound().orderOnGridEdge()) {
      warnings.add("the optimal order " + guarantee.bound().order()
          + " is on the edge of the order grid; a wider --orders grid may give a smaller epsilon");
    }
    if (!guarantee.bound().isFinite()) {
      warnings.add("no order gives a finite epsilon: the bound is infinite");
    }
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

  void print(boolean json, String title, PrintWriter out, PrintWriter err) {
    for (String w : warnings) {
      err.println("dp4j: warning: " + w);
    }
    out.println(json ? toJson() : toText(title));
    out.flush();
  }

  String toJson() {
    Map<String, Object> m = new LinkedHashMap<>(extra);
    m.put("epsilon", finiteOrNull(guarantee.epsilon()));
    m.put("epsilonFinite", guarantee.bound().isFinite());
    m.put("delta", guarantee.delta());
    m.put("order", guarantee.bound().order());
    m.put("orderOnGridEdge", guarantee.bound().orderOnGridEdge());
    m.put("conversion", conversion.name().toLowerCase(java.util.Locale.ROOT));
    m.put("neighbouringRelation", guarantee.relation().name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'));
    m.put("threatModel", guarantee.threatModel().description());
    m.put("accountant", guarantee.accountant());
    m.put("theorem", guarantee.theorem());
    m.put("assumptions", guarantee.assumptions());
    m.put("mechanism", mechanism);
    RdpCurve rdp = guarantee.rdp();
    List<Object> orders = new ArrayList<>();
    List<Object> values = new ArrayList<>();
    for (int i = 0; i < rdp.size(); i++) {
      orders.add(finiteOrNull(rdp.order(i)));
      values.add(finiteOrNull(rdp.value(i)));
    }
    m.put("orders", orders);
    m.put("rdp", values);
    m.putAll(details);
    m.put("warnings", warnings);
    try {
      return JSON.writeValueAsString(m);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write JSON report", e);
    }
  }

  String toText(String title) {
    StringBuilder sb = new StringBuilder(title).append('\n');
    mechanism.forEach((k, v) -> sb.append("  ").append(k).append(" = ").append(v).append('\n'));
    extra.forEach((k, v) -> sb.append("  ").append(k).append(" = ").append(v).append('\n'));
    detailLines.forEach(line -> sb.append("  ").append(line).append('\n'));
    String eps = guarantee.bound().isFinite() ? String.format("%.6g", guarantee.epsilon()) : "infinite (no bound)";
    sb.append("  epsilon = ").append(eps).append(" at delta = ").append(guarantee.delta())
        .append(" (optimal order ").append(guarantee.bound().order()).append(", ")
        .append(conversion.name().toLowerCase(java.util.Locale.ROOT)).append(" conversion)\n");
    sb.append("  neighbouring relation: ").append(guarantee.relation().description()).append('\n');
    sb.append("  threat model: ").append(guarantee.threatModel().description()).append('\n');
    sb.append("  accountant: ").append(guarantee.accountant()).append(" — ").append(guarantee.theorem()).append('\n');
    for (String a : guarantee.assumptions()) {
      sb.append("  conditional on: ").append(a).append('\n');
    }
    return sb.toString().stripTrailing();
  }

  /** JSON has no ∞: infinite values become null. */
  static Object finiteOrNull(double v) {
    return Double.isFinite(v) ? v : null;
  }
}
