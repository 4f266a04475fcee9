package org.dp4j.samples.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.dp4j.accounting.NeighbouringRelation;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SgmCommandsTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void accountPrintsTheMnistAnchorInText() {
    CliRun r = CliRun.of("account", "sgm", "--epochs", "60", "--dataset-size", "60000", "--batch-size", "256",
        "--noise-multiplier", "1.1", "--delta", "1e-5");
    assertThat(r.status()).isZero();
    // docs/accountants.md#sampled-gaussian-rdp: q = 256/60000, z = 1.1, T = 14063, δ = 1e-5 → ε ≈ 2.5967 at α ≈ 8.1
    assertThat(r.out()).contains("epsilon = 2.5966", "optimal order 8.1", "add/remove one record",
        "all iterates released", "steps = 14063");
    assertThat(r.err()).isEmpty();
  }

  @Test
  void accountJsonHasTheContractFields() throws Exception {
    CliRun r = CliRun.of("account", "sgm", "--sampling-rate", "0.0025", "--steps", "6000", "--noise-multiplier",
        "1.3", "--delta", "1e-5", "--orders", "1.25,1.5,1.75,2,2.25,2.5,3,3.5,4,4.5,5,6,7,8,9,10,11,12,13,14,15,16,"
            + "17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,"
            + "50,51,52,53,54,55,56,57,58,59,60,61,62,63,128,256,512", "--json");
    assertThat(r.status()).isZero();
    JsonNode j = JSON.readTree(r.out());
    // TF Privacy compute_dp_sgd_privacy(60000, 150, 1.3, 15, 1e-5) = 0.7242234026109595 at order 19
    assertThat(j.get("epsilon").asDouble()).isCloseTo(0.7242234026109595, within(1e-8));
    assertThat(j.get("order").asDouble()).isEqualTo(19);
    assertThat(j.get("delta").asDouble()).isEqualTo(1e-5);
    assertThat(j.get("orders").size()).isEqualTo(j.get("rdp").size()).isEqualTo(72);
    assertThat(j.get("threatModel").asText()).isEqualTo("all iterates released");
    assertThat(j.get("neighbouringRelation").asText()).isEqualTo(NeighbouringRelation.ADD_REMOVE.description());
  }

  @Test
  void classicConversionIsLarger() throws Exception {
    String[] base = {"account", "sgm", "--epochs", "60", "--dataset-size", "60000", "--batch-size", "256",
        "--noise-multiplier", "1.1", "--delta", "1e-5", "--json", "--conversion"};
    double improved = epsilon(CliRun.of(concat(base, "improved")));
    double classic = epsilon(CliRun.of(concat(base, "classic")));
    assertThat(classic).isCloseTo(3.008, within(1e-3)).isGreaterThan(improved);
  }

  @Test
  void calibrateReturnsANoiseThatMeetsTheTarget() throws Exception {
    CliRun r = CliRun.of("calibrate", "sgm", "--target-epsilon", "2.5967", "--delta", "1e-5", "--epochs", "60",
        "--dataset-size", "60000", "--batch-size", "256", "--json");
    assertThat(r.status()).isZero();
    JsonNode j = JSON.readTree(r.out());
    assertThat(j.get("noiseMultiplier").asDouble()).isCloseTo(1.1, within(1e-3));
    assertThat(j.get("epsilon").asDouble()).isLessThanOrEqualTo(2.5967);
    assertThat(j.has("orders")).isTrue();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "--noise-multiplier -1 | --noise-multiplier",
      "--noise-multiplier 0 | --noise-multiplier",
      "--delta 1.5 | --delta",
      "--delta 0 | --delta",
      "--sampling-rate 1.5 | --sampling-rate",
      "--sampling-rate 0 | --sampling-rate",
      "--frobnicate 3 | --frobnicate",
      "--noise-multiplier abc | abc",
      "--orders 0.5,2 | --orders",
      "--conversion fancy | --conversion",
      "--orders 2,1e300 | --orders",
      "--orders 1.005 | --orders",
      "--noise-multiplier 1e-308 | --noise-multiplier",
  })
  void badInputExitsTwoWithOneLine(String override, String mentioned) {
    java.util.Map<String, String> args = new java.util.LinkedHashMap<>();
    args.put("--sampling-rate", "0.01");
    args.put("--steps", "100");
    args.put("--noise-multiplier", "1.0");
    args.put("--delta", "1e-5");
    String[] kv = override.trim().split(" ");
    args.put(kv[0], kv[1]);
    java.util.List<String> argv = new java.util.ArrayList<>(java.util.List.of("account", "sgm"));
    args.forEach((k, v) -> {
      argv.add(k);
      argv.add(v);
    });
    CliRun.of(argv.toArray(String[]::new)).assertRefusedNaming(mentioned);
  }

  /**
   * q = 1/2 (the MTZ19 series diverges there; this used to exit 1). Reference: the improved conversion of
   * 10 × the mpmath RDP values in sgm_rdp_reference.csv (q=0.5, z=1), minimised over the five orders.
   */
  @Test
  void accountAtSamplingRateOneHalfMatchesTheMpmathReference() throws Exception {
    CliRun r = CliRun.of("account", "sgm", "--sampling-rate", "0.5", "--noise-multiplier", "1", "--steps", "10",
        "--delta", "1e-5", "--orders", "1.1,1.5,2,3.5,8", "--json");
    assertThat(r.status()).as(r.err()).isZero();
    JsonNode j = JSON.readTree(r.out());
    assertThat(j.get("epsilon").asDouble()).isCloseTo(12.897304911376582, within(1e-8));
    assertThat(j.get("order").asDouble()).isEqualTo(3.5);
  }

  @Test
  void calibrateAtLargeSamplingRatesMeetsTheTarget() throws Exception {
    for (String q : new String[] {"0.341", "0.6", "1"}) {
      CliRun r = CliRun.of("calibrate", "sgm", "--target-epsilon", "3", "--delta", "1e-5", "--sampling-rate", q,
          "--steps", "20", "--json");
      assertThat(r.status()).as(r.err()).isZero();
      JsonNode j = JSON.readTree(r.out());
      assertThat(j.get("epsilon").asDouble()).as("q=%s", q).isLessThanOrEqualTo(3).isGreaterThan(2.99);
    }
  }

  @Test
  void missingValuesAreNamed() {
    CliRun r = CliRun.of("account", "sgm", "--noise-multiplier", "1.0", "--delta", "1e-5", "--epochs", "3");
    assertThat(r.status()).isEqualTo(2);
    assertThat(r.err()).contains("--dataset-size");
    CliRun noDelta = CliRun.of("calibrate", "sgm", "--target-epsilon", "1", "--sampling-rate", "0.1", "--steps", "9");
    assertThat(noDelta.status()).isEqualTo(2);
    assertThat(noDelta.err()).contains("--delta");
  }

  private static double epsilon(CliRun r) throws Exception {
    assertThat(r.status()).isZero();
    return JSON.readTree(r.out()).get("epsilon").asDouble();
  }

  private static String[] concat(String[] a, String b) {
    String[] c = java.util.Arrays.copyOf(a, a.length + 1);
    c[a.length] = b;
    return c;
  }
}
