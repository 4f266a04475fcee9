package org.dp4j.listeners;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Iterator;
import java.util.Set;
import org.dp4j.accounting.ledger.PrivacyLedger;

/**
 * A {@link PrivacyLedger.State} as JSON data with a schema name and version, never Java serialization: reading
 * a checkpoint instantiates no class named by the file, and everything read is checked before it is used.
 *
 * <pre>{@code
 * // given: PrivacyLedger ledger
 * ObjectNode json = LedgerStateJson.toJson(ledger.state());
 * PrivacyLedger.State back = LedgerStateJson.fromJson(json);   // InvalidCheckpointException if malformed
 * }</pre>
 *
 * <p>Format (version 1): {@code {"schema": "dp4j-ledger-state", "version": 1, "fingerprint": "...",
 * "epochs": [1, 2], "rowSteps": [10, 20], "steps": 20, "voidedBecause": null, "voidedBeforeRow": 2}}.
 */
public final class LedgerStateJson {
  public static final String SCHEMA = "dp4j-ledger-state";
  public static final int VERSION = 1;
  private static final Set<String> FIELDS = Set.of("schema", "version", "fingerprint", "epochs", "rowSteps",
      "steps", "voidedBecause", "voidedBeforeRow");

  private LedgerStateJson() {}

  public static ObjectNode toJson(PrivacyLedger.State state) {
    ObjectNode n = JsonNodeFactory.instance.objectNode();
    n.put("schema", SCHEMA);
    n.put("version", VERSION);
    n.put("fingerprint", state.fingerprint());
    ArrayNode epochs = n.putArray("epochs");
    for (int e : state.epochs()) {
      epochs.add(e);
    }
    ArrayNode rowSteps = n.putArray("rowSteps");
    for (long s : state.rowSteps()) {
      rowSteps.add(s);
    }
    n.put("steps", state.steps());
    n.put("voidedBecause", state.voidedBecause());
    n.put("voidedBeforeRow", state.voidedBeforeRow());
    return n;
  }

  /**
   * Reads and checks a state: the schema and version, every field's type, and the invariants a ledger keeps
   * (epochs increasing, steps never going backwards, the voiding point within the rows).
   *
   * @throws InvalidCheckpointException naming what is wrong
   */
  public static PrivacyLedger.State fromJson(JsonNode n) {
    require(n != null && n.isObject(), "the ledger state is not a JSON object");
    require(SCHEMA.equals(text(n, "schema", false)), "the ledger state's schema is not " + SCHEMA);
    long version = integer(n, "version");
    require(version <= VERSION, "the ledger state has format version " + version + ", this dp4j reads up to "
        + VERSION + " (it was written by a newer dp4j)");
    require(version == VERSION, "the ledger state has unknown format version " + version);
    for (Iterator<String> it = n.fieldNames(); it.hasNext(); ) {
      String f = it.next();
      require(FIELDS.contains(f), "the ledger state has an unknown field '" + f + "'");
    }
    String fingerprint = text(n, "fingerprint", false);
    require(!fingerprint.isEmpty(), "the ledger state has an empty fingerprint");
    long[] epochs = integers(n, "epochs");
    long[] rowSteps = integers(n, "rowSteps");
    require(epochs.length == rowSteps.length, "the ledger state has " + epochs.length + " epochs but "
        + rowSteps.length + " row step counts");
    long steps = integer(n, "steps");
    int[] epochNumbers = new int[epochs.length];
    for (int i = 0; i < epochs.length; i++) {
      require(epochs[i] >= 1 && epochs[i] <= Integer.MAX_VALUE && (i == 0 || epochs[i] > epochs[i - 1]),
          "the ledger state's epochs must be increasing positive integers, found " + epochs[i] + " at row " + i);
      require(rowSteps[i] >= (i == 0 ? 0 : rowSteps[i - 1]) && rowSteps[i] <= steps,
          "the ledger state's steps go backwards at row " + i + " (" + rowSteps[i] + ", total " + steps + ")");
      epochNumbers[i] = (int) epochs[i];
    }
    require(steps >= 0, "the ledger state has negative steps " + steps);
    String voidedBecause = text(n, "voidedBecause", true);
    long voidedBeforeRow = integer(n, "voidedBeforeRow");
    require(voidedBecause == null ? voidedBeforeRow == epochs.length
            : voidedBeforeRow >= 0 && voidedBeforeRow <= epochs.length,
        "the ledger state's voidedBeforeRow " + voidedBeforeRow + " does not fit its " + epochs.length + " rows");
    return new PrivacyLedger.State(fingerprint, epochNumbers, rowSteps, steps, voidedBecause, (int) voidedBeforeRow);
  }

  private static String text(JsonNode n, String field, boolean nullable) {
    JsonNode v = n.get(field);
    require(v != null, "the ledger state has no field '" + field + "'");
    if (nullable && v.isNull()) {
      return null;
    }
    require(v.isTextual(), "the ledger state's '" + field + "' is not a string");
    return v.asText();
  }

  private static long integer(JsonNode n, String field) {
    JsonNode v = n.get(field);
    require(v != null, "the ledger state has no field '" + field + "'");
    require(v.isIntegralNumber() && v.canConvertToLong(), "the ledger state's '" + field + "' is not an integer");
    return v.asLong();
  }

  private static long[] integers(JsonNode n, String field) {
    JsonNode v = n.get(field);
    require(v != null && v.isArray(), "the ledger state's '" + field + "' is not an array");
    long[] r = new long[v.size()];
    for (int i = 0; i < r.length; i++) {
      JsonNode x = v.get(i);
      require(x.isIntegralNumber() && x.canConvertToLong(), "the ledger state's '" + field + "' holds a non-integer");
      r[i] = x.asLong();
    }
    return r;
  }

  private static void require(boolean ok, String message) {
    if (!ok) {
      throw new InvalidCheckpointException(message);
    }
  }
}
