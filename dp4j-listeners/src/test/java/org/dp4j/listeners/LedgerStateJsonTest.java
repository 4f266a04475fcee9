package org.dp4j.listeners;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.dp4j.accounting.ledger.PrivacyLedger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class LedgerStateJsonTest {
  private static final PrivacyLedger.State STATE = new PrivacyLedger.State("sgm:q=0.1,z=1.2;delta=1.0E-5",
      new int[] {1, 2, 3}, new long[] {10, 20, 30}, 34, "a checkpoint was written", 1);

  @Test
  void roundTripsEveryField() throws Exception {
    String text = new ObjectMapper().writeValueAsString(LedgerStateJson.toJson(STATE));
    PrivacyLedger.State back = LedgerStateJson.fromJson(new ObjectMapper().readTree(text));
    assertThat(back.fingerprint()).isEqualTo(STATE.fingerprint());
    assertThat(back.epochs()).containsExactly(1, 2, 3);
    assertThat(back.rowSteps()).containsExactly(10, 20, 30);
    assertThat(back.steps()).isEqualTo(34);
    assertThat(back.voidedBecause()).isEqualTo("a checkpoint was written");
    assertThat(back.voidedBeforeRow()).isEqualTo(1);
    assertThat(text).contains("\"schema\":\"dp4j-ledger-state\"", "\"version\":1");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "version|2|newer dp4j",
      "version|\"1\"|not an integer",
      "schema|\"other\"|schema",
      "steps|-1|steps go backwards",
      "steps|25|steps go backwards",
      "rowSteps|[10, 5, 30]|steps go backwards",
      "epochs|[1, 1, 2]|increasing",
      "epochs|[1, 2]|3 row step counts",
      "voidedBeforeRow|4|does not fit",
      "fingerprint|\"\"|empty fingerprint",
      "fingerprint|null|not a string",
      "extra|1|unknown field 'extra'"})
  void refusesAMalformedState(String field, String json, String message) throws Exception {
    ObjectNode n = LedgerStateJson.toJson(STATE);
    n.set(field, new ObjectMapper().readTree(json));
    assertThatThrownBy(() -> LedgerStateJson.fromJson(n)).isInstanceOf(InvalidCheckpointException.class)
        .hasMessageContaining(message);
  }

  @Test
  void refusesAMissingFieldAndANonObject() throws Exception {
    ObjectNode n = LedgerStateJson.toJson(STATE);
    n.remove("steps");
    assertThatThrownBy(() -> LedgerStateJson.fromJson(n)).hasMessageContaining("no field 'steps'");
    assertThatThrownBy(() -> LedgerStateJson.fromJson(new ObjectMapper().readTree("[1]")))
        .isInstanceOf(InvalidCheckpointException.class).hasMessageContaining("not a JSON object");
  }
}
