package org.dp4j.listeners;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.dp4j.InvalidSettingException;
import org.dp4j.accounting.NeighbouringRelation;
import org.dp4j.accounting.Orders;
import org.dp4j.accounting.SampledGaussianMechanism;
import org.dp4j.accounting.ThreatModel;
import org.dp4j.accounting.ledger.CompositionStepAccountant;
import org.dp4j.accounting.ledger.PrivacyLedger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RunReportTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The MNIST DP-SGD run of Abadi et al. / TF Privacy: q = 256/60000, z = 1.1, 60 epochs = 14063 steps. */
  private static PrivacyLedger mnistLedger() {
    PrivacyLedger ledger = PrivacyLedger.builder()
        .accountant(new CompositionStepAccountant(new SampledGaussianMechanism(256.0 / 60000, 1.1), Orders.DEFAULT))
        .delta(1e-5).build();
    for (int epoch = 1; epoch <= 3; epoch++) {
      long upTo = epoch == 3 ? 14063 : epoch * 4688L;
      while (ledger.steps() < upTo) {
        ledger.tryStep();
      }
      ledger.closeEpoch(epoch);
    }
    return ledger;
  }

  @Test
  void aLedgerReportCarriesTheCommonFieldsAndTheCertifiedEpsilon(@TempDir Path dir) throws Exception {
    PrivacyLedger ledger = mnistLedger();
    RunReport r = RunReport.builder("dp4j train").algorithm("dp-sgd").dataset("mnist")
        .relation(NeighbouringRelation.ADD_REMOVE).ledger(ledger, ThreatModel.ALL_ITERATES_RELEASED)
        .testAccuracy(0.95).perEpoch(RunReport.perEpochRows(ledger, List.of(0.9, 0.95)))
        .field("noiseMultiplier", 1.1).build();
    Path file = dir.resolve("report.json");
    r.writeJson(file);
    JsonNode j = JSON.readTree(file.toFile());
    assertThat(JSON.readTree(r.toJson())).isEqualTo(j);
    assertThat(List.copyOf(r.toMap().keySet()).subList(0, RunReport.COMMON_FIELDS.size()))
        .isEqualTo(RunReport.COMMON_FIELDS);
    assertThat(j.get("schemaVersion").asInt()).isEqualTo(RunReport.SCHEMA_VERSION);
    // TF Privacy's compute_dp_sgd_privacy for this run with the improved conversion: ε = 2.5967 at δ = 1e-5.
    assertThat(j.get("epsilon").asDouble()).isCloseTo(2.5967, org.assertj.core.data.Offset.offset(5e-4));
    assertThat(j.get("certified").asBoolean()).isTrue();
    assertThat(j.get("notCertifiedBecause").isNull()).isTrue();
    assertThat(j.get("neighbouringRelation").asText()).isEqualTo("add/remove one record");
    assertThat(j.get("threatModel").asText()).isEqualTo("all iterates released")
        .isEqualTo(j.get("epsilonThreatModel").asText());
    assertThat(j.get("assumptions").toString()).contains("Poisson");
    assertThat(j.get("epsilonComposition").asDouble()).isEqualTo(j.get("epsilon").asDouble());
    assertThat(j.get("ledger")).hasSize(3);
    // accuracies belong to the last rows: the first row of three has none
    assertThat(j.get("perEpoch").get(0).get("testAccuracy").isNull()).isTrue();
    assertThat(j.get("perEpoch").get(2).get("testAccuracy").asDouble()).isEqualTo(0.95);
    assertThat(j.get("perEpoch").get(2).get("epsilonComposition").asDouble()).isEqualTo(j.get("epsilon").asDouble());
    // the ε grows with the steps, row by row
    assertThat(j.get("perEpoch").get(0).get("epsilonComposition").asDouble())
        .isLessThan(j.get("perEpoch").get(1).get("epsilonComposition").asDouble());
    assertThat(r.epsilon()).hasValueCloseTo(2.5967, org.assertj.core.data.Offset.offset(5e-4));
  }

  @Test
  void noCertifiedBoundForTheClaimedThreatModelMeansNoEpsilon() throws Exception {
    RunReport r = RunReport.builder("dp4j train").relation(NeighbouringRelation.ADD_REMOVE)
        .ledger(mnistLedger(), ThreatModel.LAST_ITERATE_ONLY).build();
    JsonNode j = JSON.readTree(r.toJson());
    // a composition bound also holds when only the last iterate is released: still certified
    assertThat(j.get("certified").asBoolean()).isTrue();
    assertThat(j.get("threatModel").asText()).isEqualTo("only the last iterate released");
    RunReport none = RunReport.builder("dp4j audit").relation(NeighbouringRelation.ADD_REMOVE)
        .notCertified("NOT CERTIFIED: no noise", 1e-5, ThreatModel.ALL_ITERATES_RELEASED).build();
    assertThat(none.certified()).isFalse();
    assertThat(none.epsilon()).isEmpty();
    assertThat(none.toMap()).containsEntry("epsilon", null).containsEntry("notCertifiedBecause",
        "NOT CERTIFIED: no noise").containsEntry("testAccuracy", null).containsEntry("perEpoch", List.of());
  }

  @Test
  void theRelationComesFromTheGuaranteeAndMayNotBeContradicted() {
    RunReport r = RunReport.builder("dp4j train").ledger(mnistLedger(), ThreatModel.ALL_ITERATES_RELEASED).build();
    assertThat(r.toMap().get("neighbouringRelation")).isEqualTo(NeighbouringRelation.ADD_REMOVE.description());
    assertThatThrownBy(() -> RunReport.builder("dp4j train").relation(NeighbouringRelation.REPLACE_ONE)
        .ledger(mnistLedger(), ThreatModel.ALL_ITERATES_RELEASED)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("REPLACE_ONE");
  }

  @Test
  void refusesIncompleteOrUnfaithfulReports() {
    RunReport.Builder b = RunReport.builder("dp4j nmf").relation(NeighbouringRelation.REPLACE_ONE);
    assertThatThrownBy(b::build).isInstanceOf(IllegalStateException.class).hasMessageContaining("privacy statement");
    // a malformed report is the calling code's bug, not a refused user setting
    assertThatThrownBy(() -> b.field("epsilon", 1.0)).isInstanceOf(IllegalArgumentException.class)
        .isNotInstanceOf(InvalidSettingException.class).hasMessageContaining("common field");
    assertThatThrownBy(() -> b.field("rmse", Double.NaN)).hasMessageContaining("finite");
    assertThatThrownBy(() -> b.field("values", List.of(1.0, Double.POSITIVE_INFINITY))).hasMessageContaining("finite");
    assertThatThrownBy(() -> b.field("thing", new Object())).hasMessageContaining("type");
    assertThatThrownBy(() -> b.notCertified(" ", 1e-5, ThreatModel.LAST_ITERATE_ONLY)).hasMessageContaining("reason");
    assertThatThrownBy(() -> b.certified(Double.POSITIVE_INFINITY, 1e-5, ThreatModel.LAST_ITERATE_ONLY, "a",
        List.of())).hasMessageContaining("finite");
    assertThatThrownBy(() -> b.table(true, "why", 1e-5, ThreatModel.LAST_ITERATE_ONLY)).hasMessageContaining("reason");
    RunReport.Builder ledgerBacked = RunReport.builder("dp4j train")
        .ledger(mnistLedger(), ThreatModel.ALL_ITERATES_RELEASED);
    assertThatThrownBy(() -> ledgerBacked.field("epsilonComposition", 1.0)).hasMessageContaining("ledger field");
  }

  @Test
  void aTableCertifiesItsRowsAndHasNoSingleEpsilon() throws Exception {
    List<Object> rows = new ArrayList<>(List.of(java.util.Map.of("certified", true, "epsilon", 3.1)));
    RunReport t = RunReport.builder("dp4j experiment madelon").relation(NeighbouringRelation.REPLACE_ONE)
        .table(true, null, 1e-5, ThreatModel.LAST_ITERATE_ONLY).field("rows", rows).build();
    JsonNode j = JSON.readTree(t.toJson());
    assertThat(j.get("certified").asBoolean()).isTrue();
    assertThat(j.get("epsilon").isNull()).isTrue();
    assertThat(j.get("rows").get(0).get("epsilon").asDouble()).isEqualTo(3.1);
  }
}
