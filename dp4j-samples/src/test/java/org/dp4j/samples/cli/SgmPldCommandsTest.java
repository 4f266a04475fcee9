package org.dp4j.samples.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.dp4j.accounting.NeighbouringRelation;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SgmPldCommandsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String[] MNIST = {"--epochs", "60", "--dataset-size", "60000", "--batch-size", "256",
      "--noise-multiplier", "1.1", "--delta", "1e-5"};

  @Test
  void pldAccountsTheMnistRunTighterThanRdp() throws Exception {
    CliRun r = CliRun.of(concat(new String[] {"account", "sgm", "--accountant", "pld", "--json"}, MNIST));
    assertThat(r.status()).as(r.err()).isZero();
    JsonNode j = JSON.readTree(r.out());
    // independent numpy sandwich (dp4j-core/src/test/python/pld_reference.py): 2.37817 ≤ ε ≤ 2.38521;
    // RDP gives 2.5967 (docs/accountants.md#sampled-gaussian-rdp)
    assertThat(j.get("epsilon").asDouble()).isBetween(2.3781739785557914, 2.39);
    assertThat(j.get("epsilonLower").asDouble()).isBetween(2.36, 2.3852054861562486);
    assertThat(j.get("epsilonErrorBound").asDouble()).isPositive().isLessThan(0.015);
    assertThat(j.get("pldInterval").asDouble()).isPositive();
    assertThat(j.get("accountant").asText()).isEqualTo("sampled-gaussian-pld");
    assertThat(j.get("neighbouringRelation").asText()).isEqualTo(NeighbouringRelation.ADD_REMOVE.description());
    assertThat(j.get("threatModel").asText()).isEqualTo("all iterates released");
    assertThat(j.get("mechanism").get("steps").asLong()).isEqualTo(14063);
    assertThat(j.has("rdp")).isFalse();
    assertThat(j.get("epsilonFinite").asBoolean()).isTrue();
  }

  @Test
  void pldTextReportSaysTheBoundIsCertified() {
    CliRun r = CliRun.of("account", "sgm", "--accountant", "pld", "--sampling-rate", "0.01", "--steps", "1000",
        "--noise-multiplier", "1.0", "--delta", "1e-5");
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(r.out()).contains("certified upper bound", "optimal epsilon >=", "add/remove one record",
        "sampled-gaussian-pld");
  }

  @Test
  void pldCalibrationNeedsLessNoiseThanRdp() throws Exception {
    String[] common = {"calibrate", "sgm", "--target-epsilon", "1.85", "--delta", "1e-5", "--sampling-rate", "0.01",
        "--steps", "1000", "--json"};
    JsonNode pld = JSON.readTree(CliRun.of(concat(common, "--accountant", "pld", "--pld-tolerance", "0.01")).out());
    JsonNode rdp = JSON.readTree(CliRun.of(common).out());
    assertThat(pld.get("epsilon").asDouble()).isLessThanOrEqualTo(1.85);
    assertThat(pld.get("noiseMultiplier").asDouble()).isLessThan(rdp.get("noiseMultiplier").asDouble());
    assertThat(pld.get("epsilonErrorBound").asDouble()).isPositive();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "--accountant fancy | --accountant",
      "--accountant pld --conversion classic | --conversion",
      "--accountant pld --orders 2,3 | --orders",
      "--pld-tolerance 0.01 | --pld-tolerance",
      "--accountant pld --pld-tolerance -1 | --pld-tolerance",
  })
  void badAccountantOptionsExitTwo(String extra, String mentioned) {
    String[] base = {"account", "sgm", "--sampling-rate", "0.01", "--steps", "100", "--noise-multiplier", "1",
        "--delta", "1e-5"};
    CliRun r = CliRun.of(concat(base, extra.trim().split(" ")));
    assertThat(r.status()).isEqualTo(2);
    assertThat(r.err()).contains(mentioned.trim()).doesNotContain("Exception");
    assertThat(r.out()).isEmpty();
  }

  @Test
  void helpDocumentsTheDefaultAccountant() {
    CliRun r = CliRun.of("account", "sgm", "--help");
    assertThat(r.out()).contains("--accountant", "rdp (default)", "pld");
  }

  private static String[] concat(String[] a, String... b) {
    String[] c = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, c, a.length, b.length);
    return c;
  }
}
