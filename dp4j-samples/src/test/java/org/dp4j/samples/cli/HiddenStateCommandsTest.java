package org.dp4j.samples.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import org.dp4j.accounting.NeighbouringRelation;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The hidden-state commands reproduce independently computed reference values (docs/accountants.md: Ye–Shokri, PABI and
 * Langevin, shifted interpolation, DP-MBCD, Kong–Ribero; float64 values computed
 * separately from the papers' formulas) and refuse bad input with exit 2 and one line.
 */
class HiddenStateCommandsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TINY = "dp-mbcd --dataset-size 4 --batch-size 2 --learning-rate 0.1"
      + " --lipschitz-f 0.9 --lipschitz-t 1 --sensitivity 1 --delta 1e-5";

  private static JsonNode json(String command) throws Exception {
    List<String> argv = new ArrayList<>(List.of("account"));
    argv.addAll(List.of(command.trim().split("\\s+")));
    argv.add("--json");
    CliRun r = CliRun.of(argv.toArray(String[]::new));
    assertThat(r.status()).as(r.err()).isZero();
    return JSON.readTree(r.out());
  }

  private static double rdp(JsonNode j, int i) {
    return j.get("rdp").get(i).asDouble();
  }

  @Test
  void dpMbcdTinyAccountantMatchesDigest003() throws Exception {
    JsonNode j = json(TINY + " --noise-variance 0.01 --epochs 2 --orders 2,10");
    // §5.2: ε_K(2) = 1.6750161037, ε_K(10) = 9.8886176436 after K = 2 epochs
    assertThat(rdp(j, 0)).isCloseTo(1.6750161037, within(1e-9));
    assertThat(rdp(j, 1)).isCloseTo(9.8886176436, within(1e-9));
    assertThat(j.get("orders").get(0).asDouble()).isEqualTo(2);
    assertThat(j.get("delta").asDouble()).isEqualTo(1e-5);
    assertThat(j.get("epsilon").asDouble()).isPositive();
    assertThat(j.get("threatModel").asText()).isEqualTo("only the last iterate released");
    assertThat(j.get("neighbouringRelation").asText()).isEqualTo(NeighbouringRelation.REPLACE_ONE.description());
    JsonNode epochs = j.get("perEpoch");
    assertThat(epochs).hasSize(2);
    // §5.2 table: ε_1(2) = 0.9631651262; §5.1: 1/c = 0.00362 after 2 steps, 0.005995082 after 4
    assertThat(epochs.get(0).get("rdp").get(0).asDouble()).isCloseTo(0.9631651262, within(1e-9));
    assertThat(epochs.get(1).get("rdp").get(0).asDouble()).isCloseTo(1.6750161037, within(1e-9));
    assertThat(epochs.get(0).get("lsiConstant").asDouble()).isCloseTo(1 / 0.00362, within(1e-6));
    assertThat(epochs.get(1).get("lsiConstant").asDouble()).isCloseTo(1 / 0.005995082, within(1e-6));
    // two identical blocks: RDP summed (§3.10)
    assertThat(rdp(json(TINY + " --noise-variance 0.01 --epochs 2 --orders 2 --blocks 2"), 0))
        .isCloseTo(2 * 1.6750161037, within(2e-9));
  }

  @Test
  void dpMbcdPerEpochTableIsSummarisedForManyEpochs() throws Exception {
    JsonNode j = json(TINY + " --noise-variance 0.01 --epochs 5000 --orders 2,10");
    JsonNode rows = j.get("perEpoch");
    assertThat(rows.size()).isLessThan(60);
    for (int k = 1; k <= DpMbcdAccountCommand.ALL_ROWS_UP_TO; k++) {
      assertThat(rows.get(k - 1).get("epoch").asInt()).isEqualTo(k);
    }
    assertThat(rows.get(1).get("rdp").get(0).asDouble()).isCloseTo(1.6750161037, within(1e-9)); // §5.2
    JsonNode last = rows.get(rows.size() - 1);
    assertThat(last.get("epoch").asInt()).isEqualTo(5000);
    assertThat(last.get("rdp").get(1).asDouble()).isEqualTo(rdp(j, 1));
    // A summarised row holds the value of a run of exactly that many epochs.
    JsonNode middle = rows.get(30);
    int k = middle.get("epoch").asInt();
    assertThat(k).isGreaterThan(DpMbcdAccountCommand.ALL_ROWS_UP_TO).isLessThan(5000);
    JsonNode shorter = json(TINY + " --noise-variance 0.01 --epochs " + k + " --orders 2,10");
    assertThat(middle.get("rdp").get(1).asDouble()).isCloseTo(rdp(shorter, 1), within(1e-12));
    assertThat(middle.get("lsiConstant").asDouble())
        .isEqualTo(shorter.get("perEpoch").get(shorter.get("perEpoch").size() - 1).get("lsiConstant").asDouble());
  }

  @Test
  void dpMbcdRefusesLedgersThatWouldNotFitInMemory() {
    CliRun r = CliRun.of(("account " + TINY + " --noise-variance 0.01 --epochs 2000000000 --blocks 1000").split(" "));
    r.assertRefusedNaming("--blocks 1000");
    assertThat(r.err()).contains("--epochs 2000000000", "-Xmx", "MB");
  }

  @Test
  void dpMbcdSchedulesAndModesMatchDigest003() throws Exception {
    String six = "dp-mbcd -n 6 -b 2 -K 3 --eta 0.05 --LF 0.95 --LT 1 --SG 1 --orders 2,10 --delta 1e-5";
    // §5.3: o = 0.02 − 0.005k → ε(2) = 0.92778245355, ε(10) = 5.3553940817
    JsonNode linear = json(six + " --noise-schedule linear:0.02,-0.005");
    assertThat(rdp(linear, 0)).isCloseTo(0.92778245355, within(1e-10));
    assertThat(rdp(linear, 1)).isCloseTo(5.3553940817, within(1e-9));
    assertThat(rdp(json(six + " --noise-schedule piecewise:0=0.02,1=0.015,2=0.01"), 0))
        .isCloseTo(0.92778245355, within(1e-10));
    // §5.4: L_T = 0.9, L_F = 1, o = 0.01: PAPER ε(2) = 0.80071373645, SAFE 0.90262587173
    String lt = "dp-mbcd -n 6 -b 2 -K 3 --eta 0.05 --LF 1 --LT 0.9 --SG 1 -o 0.01 --orders 2 --delta 1e-5";
    assertThat(rdp(json(lt + " --mode paper"), 0)).isCloseTo(0.80071373645, within(1e-10));
    assertThat(rdp(json(lt), 0)).isCloseTo(0.90262587173, within(1e-10));
    // §5.5 Madelon-like D schedule o = 0.002 + 0.00025·(K−1−k), K = 10: ε_K(2) = 3.072370e−5
    JsonNode d = json("dp-mbcd -n 4800 -b 960 -K 10 --eta 0.05 --LF 0.95 --LT 1 --SG 1 --orders 2 --delta 1e-5"
        + " --noise-schedule decreasing:0.002,0.00025");
    assertThat(rdp(d, 0)).isCloseTo(3.072370e-5, within(1e-11));
    // §5.5 constant o = 0.005, K = 40: improved ε = 0.010332 at α ≈ 804 (δ = 1e-5); the README's example
    JsonNode madelon = json("dp-mbcd -n 4800 -b 960 -K 40 --eta 0.05 --LF 0.95 --LT 1 --SG 1 -o 0.005"
        + " --orders 800,804,808 --delta 1e-5");
    assertThat(madelon.get("epsilon").asDouble()).isCloseTo(0.010332, within(5e-7));
    assertThat(madelon.get("order").asDouble()).isEqualTo(804);
  }

  @Test
  void dpMbcdTextReportShowsEpochsAndIsConditional() {
    CliRun r = CliRun.of(("account " + TINY + " --noise-variance 0.01 --epochs 2 --orders 2").split(" "));
    assertThat(r.status()).isZero();
    assertThat(r.out()).contains("after epoch 1: LSI constant c = 276.243, RDP at order 2.0 = 0.963165",
        "after epoch 2: LSI constant c = 166.803, RDP at order 2.0 = 1.67502",
        "conditional on: block W0: user asserts F", "only the last iterate released");
  }

  @Test
  void yeShokriTheoremsMatchDigest000() throws Exception {
    // §5.2, Figure-2 setting (n = 50, b = 4, η = 0.02, λ = 1, β = 4, S_g = 4, σ = 2), K = 10, α = 10
    String fig2 = "ye-shokri -n 50 -b 4 -K 10 --eta 0.02 --lambda 1 --beta 4 --sg 4 --sigma 2 --orders 10"
        + " --delta 1e-5 --theorem ";
    assertThat(rdp(json(fig2 + "shuffle"), 0)).isCloseTo(0.01084159, within(1e-8));
    assertThat(rdp(json(fig2 + "without-replacement"), 0)).isCloseTo(0.02884734, within(1e-8));
    assertThat(rdp(json(fig2 + "fixed-batch"), 0)).isCloseTo(0.02024200, within(1e-8));
    // §5.1, Figure-1 setting (b = 2): convex Thm 4.3 at K = 10 gives 0.068; the naive baseline → 10 as K → ∞
    String fig1 = "ye-shokri -n 50 -b 2 --eta 0.02 --lambda 1 --beta 4 --sg 4 --sigma 2 --orders 10 --delta 1e-5";
    assertThat(rdp(json(fig1 + " -K 10 --theorem convex-fixed-batch"), 0)).isCloseTo(0.068, within(1e-12));
    assertThat(rdp(json(fig1 + " -K 100000 --theorem naive-baseline"), 0)).isCloseTo(10.0, within(1e-8));
  }

  @Test
  void kongRiberoMatchesDigest004() throws Exception {
    // §5.2 Set B: k = 10, b = 2, T = 23, λ = 0.1, C = 1, σ = 0.5, m = M = 1 → ε(2) = 0.328243193324787 (eq. 17)
    JsonNode j = json("kong-ribero -k 10 -b 2 -T 23 --lambda 0.1 -C 1 --sigma 0.5 -m 1 -M 1 --orders 2 --delta 1e-5");
    assertThat(rdp(j, 0)).isCloseTo(0.328243193324787, within(1e-12));
    assertThat(j.get("rho").asDouble()).isCloseTo(0.328243193324787 / 2, within(1e-12));
  }

  @Test
  void shiftedInterpolationMatchesDigest002() throws Exception {
    // §4.1 Table 3: n = 60000, b = 1500, L = 10, σ = 0.01, η = 0.05, m = 0.002, M = 1, E = 50 → μ = 0.9925, ε = 4.339
    JsonNode cgd = json("shifted-interpolation --algorithm cgd -n 60000 -b 1500 -L 10 --sigma 0.01 --eta 0.05"
        + " -m 0.002 -M 1 -E 50 --delta 1e-5");
    assertThat(cgd.get("mu").asDouble()).isCloseTo(0.9925, within(5e-5));
    assertThat(cgd.get("epsilon").asDouble()).isCloseTo(4.339, within(5e-4));
    // §4.6 Fig. 1: n = 10, L = 1, σ = 1, η = 0.05, m = 1, M = 10, t = 160 → μ = 0.6243, ε = 2.557
    JsonNode gd = json("shifted-interpolation --algorithm gd -n 10 -L 1 --sigma 1 --eta 0.05 -m 1 -M 10 -t 160"
        + " --delta 1e-5");
    assertThat(gd.get("mu").asDouble()).isCloseTo(0.6243, within(5e-5));
    assertThat(gd.get("epsilon").asDouble()).isCloseTo(2.557, within(5e-4));
  }

  @Test
  void pabiAndLangevinMatchDigest001() throws Exception {
    // §3.5: Q = 10, T = 5, σ = 1 → ε(2) = (2/2)(4/10 + 1) = 1.4 (worst position)
    assertThat(rdp(json("pabi -n 100 -B 10 -T 5 --sigma 1 --eta 0.1 --beta 1 -L 1 --orders 2 --delta 1e-5"), 0))
        .isCloseTo(1.4, within(1e-12));
    // §3.6: λ = 0.1, η = 0.5, σ = 2, K = 100 → ε(2) = 18.358300; limit 20
    JsonNode lsi = json("langevin --lambda 0.1 --beta 1.5 --eta 0.5 --sigma 2 -K 100 --orders 2 --delta 1e-5");
    assertThat(rdp(lsi, 0)).isCloseTo(18.358300, within(1e-6));
    assertThat(2 * lsi.get("rhoLimit").asDouble()).isCloseTo(20, within(1e-12));
  }

  @Test
  void listNamesEveryAccountantWithItsScope() throws Exception {
    CliRun r = CliRun.of("account", "--list");
    assertThat(r.status()).isZero();
    assertThat(r.out()).contains("dp4j account sgm", "dp4j account dp-mbcd", "--theorem shuffle",
        "--theorem without-replacement", "--theorem fixed-batch", "kong-ribero", "--algorithm gd", "--algorithm cgd",
        "pabi", "langevin", "all iterates released", "only the last iterate released", "replace one record",
        "add/remove one record", "user-asserted");
    JsonNode list = JSON.readTree(CliRun.of("account", "--list", "--json").out());
    assertThat(list).hasSize(AccountantCatalogue.values().length);
    for (JsonNode entry : list) {
      assertThat(entry.get("theorem").asText()).isNotBlank();
      assertThat(entry.get("assumptions")).isNotEmpty();
    }
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      // theorem conditions
      "ye-shokri --theorem shuffle -n 50 -b 4 -K 10 --eta 0.6 --lambda 1 --beta 4 --sg 4 --sigma 2 | η = 0.6",
      "ye-shokri --theorem shuffle -n 50 -b 4 -K 10 --eta 0.02 --lambda 0 --beta 4 --sg 4 --sigma 2 | λ = 0.0",
      "ye-shokri --theorem shuffle -n 50 -b 4 -K 10 --eta 0.02 --lambda 1 --beta 4 --sigma 2 | --sensitivity",
      "ye-shokri --theorem magic -n 50 -b 4 -K 10 --eta 0.02 --lambda 1 --beta 4 --sg 4 --sigma 2 | --theorem",
      "kong-ribero -k 10 -b 3 -T 23 --lambda 0.1 -C 1 --sigma 0.5 -m 1 -M 1 | must divide k",
      "kong-ribero -k 10 -b 2 -T 23 --lambda 0.5 -C 1 --sigma 0.5 -m 1 -M 1 | λ = 0.5",
      "shifted-interpolation --algorithm gd -n 10 -L 1 --sigma 1 --eta 0.05 -M 10 -E 3 | --epochs",
      "shifted-interpolation --algorithm cgd -n 10 -b 5 -L 1 --sigma 1 --eta 0.05 -M 10 | --epochs",
      "shifted-interpolation --algorithm sgd -n 10 -L 1 --sigma 1 --eta 0.05 -M 10 -t 3 | --algorithm",
      "shifted-interpolation --algorithm gd -n 10 -L -1 --sigma 1 --eta 0.05 -M 10 -t 3 | gradient sensitivity L",
      "pabi -n 100 -B 10 -T 5 --sigma 1 --eta 3 --beta 1 -L 1 | η = 3.0",
      "pabi -n 100 -B 10 -T 5 --sigma 0 --eta 0.1 --beta 1 -L 1 | σ (noise multiplier)",
      "langevin --lambda 2 --beta 1.5 --eta 0.5 --sigma 2 -K 100 | λ = 2.0",
      "langevin --lambda 0.1 --beta 1.5 --eta 0.9 --sigma 2 -K 100 | η = 0.9",
      // dp-mbcd flags and the theorem's conditions
      "dp-mbcd -n 4 -b 2 -K 2 --eta 0.1 -o 0.01 --LF 0.9 --LT 1.5 --SG 1 | L_T must be in (0, 1]",
      "dp-mbcd -n 4 -b 8 -K 2 --eta 0.1 -o 0.01 --LF 0.9 --LT 1 --SG 1 | batch size b = 8",
      "dp-mbcd -n 4 -b 2 -K 2 --eta 0.1 -o -0.01 --LF 0.9 --LT 1 --SG 1 | --noise-variance",
      "dp-mbcd -n 4 -b 2 -K 2 --eta 0.1 --LF 0.9 --LT 1 --SG 1 | --noise-schedule",
      "dp-mbcd -n 4 -b 2 -K 2 --eta 0.1 -o 0.01 --noise-schedule constant:0.01 --LF 0.9 --LT 1 --SG 1 | exactly one",
      "dp-mbcd -n 4 -b 2 -K 2 --eta 0.1 --noise-schedule linear:0.01,-0.02 --LF 0.9 --LT 1 --SG 1 | o(k=1, j=0)",
      "dp-mbcd -n 4 -b 2 -K 2 --eta 0.1 --noise-schedule cubic:1 --LF 0.9 --LT 1 --SG 1 | --noise-schedule",
      "dp-mbcd -n 4 -b 2 -K 2 --eta 0.1 --noise-schedule linear:x,1 --LF 0.9 --LT 1 --SG 1 | --noise-schedule",
      "dp-mbcd -n 4 -b 2 -K 2 --eta 0.1 --noise-schedule piecewise:1=0.1 --LF 0.9 --LT 1 --SG 1 | epoch 0",
      "dp-mbcd -n 4 -b 2 -K 2 --eta 0.1 -o 0.01 --LF 0.9 --LT 1 --SG 1 --mode bold | --mode",
      "dp-mbcd -n 4 -b 2 -K 0 --eta 0.1 -o 0.01 --LF 0.9 --LT 1 --SG 1 | --epochs",
      "dp-mbcd -n 4 -b 2 -K 2 --eta 0.1 -o 0.01 --LF 0.9 --LT 1 --SG 1 -P 0 | --blocks",
      "dp-mbcd -n 4 -b 2 -K 2 --eta 0.1 -o 0.01 --LF 0.9 --LT 1 | --sensitivity",
      "dp-mbcd -n 4 -b 2 -K 2 --eta abc -o 0.01 --LF 0.9 --LT 1 --SG 1 | abc",
  })
  void badInputExitsTwoWithOneLine(String command, String mentioned) {
    List<String> argv = new ArrayList<>(List.of("account"));
    argv.addAll(List.of(command.trim().split("\\s+")));
    argv.addAll(List.of("--delta", "1e-5"));
    CliRun.of(argv.toArray(String[]::new)).assertRefusedNaming(mentioned);
  }
}
