package org.dp4j.listeners;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;
import static com.google.common.base.Preconditions.checkState;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import org.dp4j.Dp4jVersion;
import org.dp4j.accounting.NeighbouringRelation;
import org.dp4j.accounting.PrivacyGuarantee;
import org.dp4j.accounting.ThreatModel;
import org.dp4j.accounting.ledger.LedgerRow;
import org.dp4j.accounting.ledger.PrivacyLedger;
import org.dp4j.io.AtomicFiles;

/**
 * The report of one dp4j run (training, audit, accounting, an experiment table) as one immutable JSON object with
 * the same common fields for every command (docs/reports.md, {@link #SCHEMA_VERSION}): {@link #COMMON_FIELDS}, always
 * present, {@code null} where they do not apply; the neighbouring relation and the threat model are the
 * descriptions of {@link NeighbouringRelation} and {@link ThreatModel}. A ledger-backed report adds {@link
 * LedgerReport}'s fields ({@code epsilonComposition}, {@code ledger}, {@code budget}, …); a command adds its own
 * fields (hyperparameters, measurements), which may not reuse a common or ledger name.
 *
 * <p>{@code epsilon} is a guarantee or null: {@code certified} is true exactly when it is (a table of several runs
 * certifies every row and has no single ε), and otherwise {@code notCertifiedBecause} says why. A malformed report
 * (a missing privacy statement, a NaN, a command field named like a common one) is a bug of the code that builds it,
 * not a user's setting: the builder throws a plain {@link IllegalArgumentException} or {@link IllegalStateException},
 * never {@link org.dp4j.InvalidSettingException}, so the command line reports it as an internal error.
 *
 * <pre>{@code
 * // given: PrivacyLedger ledger; List<Double> accuracies
 * RunReport r = RunReport.builder("dp4j train").algorithm("dp-sgd").dataset("mnist")
 *     .ledger(ledger, ThreatModel.ALL_ITERATES_RELEASED)     // ε, δ, relation, threat model, assumptions
 *     .testAccuracy(0.953).perEpoch(RunReport.perEpochRows(ledger, accuracies))
 *     .field("noiseMultiplier", 1.1)
 *     .build();
 * r.writeJson(Path.of("report.json"));                       // or r.toJson()
 * }</pre>
 */
public final class RunReport {
  /**
   * Version of the common fields: raised when one is renamed, removed or changes meaning (adding a field keeps it).
   * 1: the fields of {@link #COMMON_FIELDS}.
   */
  public static final int SCHEMA_VERSION = 1;

  /** The fields every report carries, in the order they are written. */
  public static final List<String> COMMON_FIELDS = List.of("schemaVersion", "dp4jVersion", "command", "algorithm",
      "dataset", "certified", "epsilon", "epsilonAccountant", "notCertifiedBecause", "delta", "neighbouringRelation",
      "threatModel", "assumptions", "testAccuracy", "perEpoch");

  private static final ObjectMapper JSON = new ObjectMapper();

  private final Map<String, Object> fields;

  private RunReport(Map<String, Object> fields) {
    this.fields = Collections.unmodifiableMap(fields);
  }

  /** A report of the command {@code command}, e.g. "dp4j train". */
  public static Builder builder(String command) {
    return new Builder(command);
  }

  /** The whole report, common fields first, in the order written. */
  public Map<String, Object> toMap() {
    return fields;
  }

  /** The report as one line of JSON. */
  public String toJson() {
    try {
      return JSON.writeValueAsString(fields);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a report field is not serialisable: " + e.getMessage(), e);
    }
  }

  /** Writes the report as indented JSON, atomically ({@link AtomicFiles}). */
  public void writeJson(Path file) {
    LedgerReport.writeJson(file, fields);
  }

  public boolean certified() {
    return (Boolean) fields.get("certified");
  }

  /** The certified ε, empty when {@link #certified} is false or the report is a table of several runs. */
  public OptionalDouble epsilon() {
    Object e = fields.get("epsilon");
    return e == null ? OptionalDouble.empty() : OptionalDouble.of((Double) e);
  }

  /**
   * Per-epoch rows of a ledger (epoch, steps, the ε of each bound) with a test accuracy: {@code accuracies} are
   * those of the last {@code accuracies.size()} rows (a resumed run measured only its own epochs); ε values that do
   * not exist and rows without an accuracy are null.
   */
  public static List<Map<String, Object>> perEpochRows(PrivacyLedger ledger, List<Double> accuracies) {
    List<Map<String, Object>> rows = new ArrayList<>();
    int offset = ledger.rows().size() - accuracies.size();
    for (int i = 0; i < ledger.rows().size(); i++) {
      LedgerRow row = ledger.rows().get(i);
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("epoch", row.epoch());
      m.put("steps", row.steps());
      m.put("testAccuracy", i >= offset ? accuracies.get(i - offset) : null);
      m.put("epsilonComposition", finite(row.composition()));
      m.put("epsilonHiddenState", finite(row.hiddenState()));
      m.put("epsilonLastIterate", finite(row.lastIterate()));
      m.put("epsilonPaperClaim", finite(row.paperClaim()));
      rows.add(m);
    }
    return rows;
  }

  private static Double finite(Optional<PrivacyGuarantee> g) {
    return g.filter(PrivacyGuarantee::isFinite).map(PrivacyGuarantee::epsilon).orElse(null);
  }

  /** Collects the fields; {@link #build} checks that the privacy statement is complete and consistent. */
  public static final class Builder {
    private final String command;
    private String algorithm;
    private String dataset;
    private Boolean certified;
    private Double epsilon;
    private String accountant;
    private String notCertifiedBecause;
    private Double delta;
    private NeighbouringRelation relation;
    private ThreatModel threatModel;
    private List<String> assumptions = List.of();
    private Double testAccuracy;
    private List<?> perEpoch = List.of();
    private boolean table;
    private final Map<String, Object> ledgerFields = new LinkedHashMap<>();
    private final Map<String, Object> extra = new LinkedHashMap<>();

    private Builder(String command) {
      checkArgument(command != null && !command.isBlank(), "command must be named, was '%s'", command);
      this.command = command;
    }

    /** The training algorithm, e.g. "dp-sgd", "dp-mbcd", "dp-nmf"; null (the default) for pure accounting. */
    public Builder algorithm(String algorithm) {
      this.algorithm = algorithm;
      return this;
    }

    /** The data set, e.g. "mnist"; null (the default) when no data were read. */
    public Builder dataset(String dataset) {
      this.dataset = dataset;
      return this;
    }

    /**
     * The neighbouring relation; needed unless it comes with a guarantee ({@link #certified(PrivacyGuarantee)},
     * {@link #ledger}), which it must then match.
     */
    public Builder relation(NeighbouringRelation relation) {
      checkState(this.relation == null || this.relation == relation, "neighbouring relation %s contradicts %s",
          relation, this.relation);
      this.relation = checkNotNull(relation, "relation");
      return this;
    }

    /**
     * A certified guarantee: its ε, δ, relation, threat model, accountant and assumptions. An infinite bound is
     * reported as not certified.
     */
    public Builder certified(PrivacyGuarantee g) {
      relation(g.relation());
      if (!g.isFinite()) {
        return notCertified("NOT CERTIFIED: the certified bound (" + g.accountant() + ") is unbounded (+∞)",
            g.delta(), g.threatModel());
      }
      return certified(g.epsilon(), g.delta(), g.threatModel(), g.accountant(), g.assumptions());
    }

    /**
     * A certified finite ε at δ for {@code threatModel}, from {@code accountant}, conditional on {@code
     * assumptions} (the relation is set with {@link #relation}).
     */
    public Builder certified(double epsilon, double delta, ThreatModel threatModel, String accountant,
        List<String> assumptions) {
      checkArgument(epsilon >= 0 && Double.isFinite(epsilon), "a certified epsilon must be finite and >= 0, was %s",
          epsilon);
      privacy(true, epsilon, delta, threatModel, null);
      this.accountant = checkNotNull(accountant, "accountant");
      this.assumptions = List.copyOf(assumptions);
      return this;
    }

    /** No certified ε: {@code reason} (one line, shown first by the command) says why; δ and the claimed threat model. */
    public Builder notCertified(String reason, double delta, ThreatModel claimed) {
      checkArgument(reason != null && !reason.isBlank(), "an uncertified report needs a reason, was '%s'", reason);
      privacy(false, null, delta, claimed, reason);
      return this;
    }

    /**
     * A table of several runs (rows with their own {@code certified}/{@code epsilon}): certified when every row is,
     * no single ε; {@code reason} is required when not.
     */
    public Builder table(boolean allCertified, String reason, double delta, ThreatModel threatModel) {
      checkArgument(allCertified == (reason == null), "a reason exactly when some row is not certified, was '%s'",
          reason);
      privacy(allCertified, null, delta, threatModel, reason);
      this.table = true;
      return this;
    }

    /**
     * The privacy statement of a ledger for the threat model {@code claimed}: its best certified bound (ε, δ,
     * relation, accountant, assumptions) or why there is none, and {@link LedgerReport}'s fields.
     */
    public Builder ledger(PrivacyLedger ledger, ThreatModel claimed) {
      Optional<String> why = LedgerReport.notCertifiedBecause(ledger, claimed);
      Optional<PrivacyGuarantee> g = LedgerReport.certifiedEpsilon(ledger, claimed);
      g.ifPresent(x -> relation(x.relation()));
      if (why.isPresent()) {
        notCertified(why.get(), ledger.delta(), claimed);
      } else {
        // a composition bound is also the certified bound of "only the last iterate released": report the claim
        certified(g.get().epsilon(), g.get().delta(), claimed, g.get().accountant(), g.get().assumptions());
      }
      Map<String, Object> m = new LinkedHashMap<>(LedgerReport.toMap(ledger, claimed));
      COMMON_FIELDS.forEach(m::remove);
      ledgerFields.putAll(m);
      return this;
    }

    /** The ledger's fields for its own claimed threat model ({@link PrivacyLedger#claimedThreatModel}). */
    public Builder ledger(PrivacyLedger ledger) {
      return ledger(ledger, ledger.claimedThreatModel());
    }

    /**
     * A paper's uncertified number computed beside the ledger (e.g. a SAFE DP-MBCD run's PAPER-mode accounting):
     * replaces the ledger's {@code epsilonPaperClaim} and {@code paperClaimNotCertifiedBecause}; never {@code
     * epsilon}.
     */
    public Builder paperClaim(Double epsilonPaperClaim, String whyNotCertified) {
      checkArgument(epsilonPaperClaim == null || Double.isFinite(epsilonPaperClaim),
          "epsilonPaperClaim must be finite or null, was %s", epsilonPaperClaim);
      ledgerFields.put("epsilonPaperClaim", epsilonPaperClaim);
      ledgerFields.put("paperClaimNotCertifiedBecause", epsilonPaperClaim == null ? null : whyNotCertified);
      return this;
    }

    /** Test accuracy of the released model, in [0, 1]. */
    public Builder testAccuracy(double accuracy) {
      checkArgument(accuracy >= 0 && accuracy <= 1, "testAccuracy must be in [0, 1], was %s", accuracy);
      this.testAccuracy = accuracy;
      return this;
    }

    /** One JSON object per epoch (e.g. {@link RunReport#perEpochRows}); empty (the default) without epochs. */
    public Builder perEpoch(List<? extends Map<String, ?>> rows) {
      rows.forEach(r -> checkJson("perEpoch", r));
      this.perEpoch = List.copyOf(rows);
      return this;
    }

    /**
     * A command-specific field: a string, boolean, finite number, enum constant (written as its name), null, or a
     * list/array/map of those. Its name may
     * not be a common field's or a ledger field's.
     */
    public Builder field(String name, Object value) {
      checkArgument(!COMMON_FIELDS.contains(name), "'%s' is a common field: use its builder method", name);
      checkArgument(!ledgerFields.containsKey(name), "'%s' is a ledger field and cannot be replaced", name);
      checkJson(name, value);
      extra.put(name, value);
      return this;
    }

    /** Every entry of {@code fields} (see {@link #field}), in their order. */
    public Builder fields(Map<String, ?> fields) {
      fields.forEach(this::field);
      return this;
    }

    public RunReport build() {
      checkState(certified != null, "%s: no privacy statement (certified, notCertified, table or ledger)", command);
      checkState(relation != null, "%s: no neighbouring relation", command);
      for (String name : extra.keySet()) {
        checkState(!ledgerFields.containsKey(name), "'%s' is a ledger field and cannot be replaced", name);
      }
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("schemaVersion", SCHEMA_VERSION);
      m.put("dp4jVersion", Dp4jVersion.get());
      m.put("command", command);
      m.put("algorithm", algorithm);
      m.put("dataset", dataset);
      m.put("certified", certified);
      m.put("epsilon", epsilon);
      m.put("epsilonAccountant", accountant);
      m.put("notCertifiedBecause", notCertifiedBecause);
      m.put("delta", delta);
      m.put("neighbouringRelation", relation.description());
      m.put("threatModel", threatModel.description());
      m.put("assumptions", assumptions);
      m.put("testAccuracy", testAccuracy);
      m.put("perEpoch", perEpoch);
      m.putAll(extra);
      m.putAll(ledgerFields);
      checkState(table ? epsilon == null : certified == (epsilon != null), "%s: epsilon %s with certified %s",
          command, epsilon, certified);
      return new RunReport(m);
    }

    private void privacy(boolean certified, Double epsilon, double delta, ThreatModel threatModel, String reason) {
      checkState(this.certified == null, "%s: the privacy statement is already set", command);
      checkArgument(delta > 0 && delta < 1, "delta must be in (0, 1), was %s", delta);
      this.certified = certified;
      this.epsilon = epsilon;
      this.delta = delta;
      this.threatModel = checkNotNull(threatModel, "threatModel");
      this.notCertifiedBecause = reason;
    }

    /** Refuses a value JSON cannot carry faithfully (NaN, ∞, an arbitrary object). */
    private static void checkJson(String name, Object v) {
      if (v == null || v instanceof String || v instanceof Boolean || v instanceof Integer || v instanceof Long
          || v instanceof Enum) {
        return;
      }
      if (v instanceof Double || v instanceof Float) {
        checkArgument(Double.isFinite(((Number) v).doubleValue()), "report field %s must be finite (or null), was %s",
            name, v);
      } else if (v instanceof Collection<?> c) {
        c.forEach(x -> checkJson(name, x));
      } else if (v instanceof Map<?, ?> map) {
        map.forEach((k, x) -> checkJson(name + "." + k, x));
      } else if (v instanceof double[] a) {
        for (double x : a) {
          checkJson(name, x);
        }
      } else {
        checkArgument(v instanceof int[] || v instanceof long[] || v instanceof Number,
            "report field %s has a type JSON does not carry: %s", name, v.getClass().getName());
      }
    }
  }
}
