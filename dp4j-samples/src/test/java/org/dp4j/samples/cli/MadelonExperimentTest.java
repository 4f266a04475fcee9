package org.dp4j.samples.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import org.dp4j.data.LabelledVectors;
import org.dp4j.data.SyntheticClassification;
import org.dp4j.mbcd.DpMbcdTrainer;
import org.junit.jupiter.api.Test;

/**
 * {@link MadelonExperiment} and {@code dp4j experiment madelon}. Privacy at the paper's full setting is checked
 * against docs/accountants.md#dp-mbcd (one block: n = 4800, b = 960, η = 0.05, L_F = 0.95, L_T = 1, S_g = 1, α = 2); in paper
 * mode all five blocks of 20-200-200-200-200-5 have these constants (ρ = 1 for every x_d, inputs included), so
 * the summed RDP is five times the one-block reference value. Training runs use a tiny configuration with seeded noise.
 */
class MadelonExperimentTest {
  private static final LabelledVectors MADELON = SyntheticClassification.madelonLike().build().generate();

  /** The paper's setting; hidden widths 8 instead of 200 (privacy depends on the 5 blocks' constants, not widths). */
  private static MadelonExperiment.Builder papers() {
    return MadelonExperiment.builder(MADELON.rows(0, 4800), MADELON.rows(4800, 6000)).hidden(8, 8, 8, 8);
  }

  private static MadelonExperiment.Builder tiny() {
    LabelledVectors all = SyntheticClassification.madelonLike().samples(200).build().generate();
    return MadelonExperiment.builder(all.rows(0, 160), all.rows(160, 200)).hidden(8).batchSize(32).epochs(1, 2)
        .repeats(2).insecureSeed(5);
  }

  @Test
  void paperModeRdpIsFiveTimesTheDigestsOneBlockVector() {
    MadelonExperiment e = papers().build();
    MadelonExperiment.Schedule c = e.schedules().get(0);
    MadelonExperiment.Schedule d = e.schedules().get(1);
    // Chen & Liu 2025; docs/accountants.md#dp-mbcd: constant o = 0.005 and the D schedule, ε_K(2) of one block, 7 significant digits
    assertThat(e.privacy(10, c).rdp2PaperClaim()).isCloseTo(5 * 1.264792e-5, within(5 * 1e-11));
    assertThat(e.privacy(40, c).rdp2PaperClaim()).isCloseTo(5 * 1.326766e-5, within(5 * 1e-11));
    assertThat(e.privacy(10, d).rdp2PaperClaim()).isCloseTo(5 * 3.072370e-5, within(5 * 1e-11));
    assertThat(e.privacy(40, d).rdp2PaperClaim()).isCloseTo(5 * 3.222591e-5, within(5 * 1e-11));
  }

  @Test
  void privacyOrderingsThatTheAccountantGuarantees() {
    MadelonExperiment e = papers().build();
    MadelonExperiment.Schedule c = e.schedules().get(0);
    MadelonExperiment.Schedule d = e.schedules().get(1);
    // a constant schedule at D's first-epoch temperature (0.002 + 0.00025·(K−1)) has back-loaded extra noise
    // relative to D (ratio ≥ 1, non-decreasing), so it spends no more (NoiseScheduleOrderingTest); the paper's C
    // (0.005) is NOT pointwise ≥ D and no order is guaranteed: at these settings D spends more
    for (int k : new int[] {10, 40}) {
      MadelonExperiment hot = papers().constantNoise(0.002 + 0.00025 * (k - 1)).build();
      MadelonExperiment.Privacy pd = e.privacy(k, d);
      MadelonExperiment.Privacy ph = hot.privacy(k, hot.schedules().get(0));
      assertThat(ph.rdp2PaperClaim()).isLessThanOrEqualTo(pd.rdp2PaperClaim());
      assertThat(ph.rdp2Safe()).isLessThanOrEqualTo(pd.rdp2Safe());
      assertThat(ph.epsilonSafe()).isLessThanOrEqualTo(pd.epsilonSafe());
      assertThat(pd.rdp2PaperClaim()).isGreaterThan(e.privacy(k, c).rdp2PaperClaim());
    }
    // constant noise: non-decreasing in K (Chen & Liu 2025; docs/accountants.md#dp-mbcd); safe (L_F = 1) ≥ paper (L_F = 0.95) at equal
    // S_g = 2C = ρ² = 1, because every λ_t is non-decreasing in L_F
    double previous = 0;
    for (int k : new int[] {10, 20, 30, 40}) {
      MadelonExperiment.Privacy p = e.privacy(k, c);
      assertThat(p.rdp2PaperClaim()).isGreaterThanOrEqualTo(previous);
      previous = p.rdp2PaperClaim();
      assertThat(p.rdp2Safe()).isGreaterThan(p.rdp2PaperClaim());
      assertThat(p.epsilonSafe()).isGreaterThan(p.epsilonPaperClaim());
      assertThat(p.delta()).isEqualTo(1e-5);
    }
  }

  @Test
  void tableRowsAreCompleteAndSeededRunsRepeat() {
    List<String> progress = new ArrayList<>();
    List<MadelonExperiment.Row> rows = tiny().build().run(progress::add);
    assertThat(rows).extracting(MadelonExperiment.Row::epochs).containsExactly(1, 1, 2, 2);
    assertThat(rows).extracting(r -> r.schedule().name()).containsExactly("C", "D", "C", "D");
    assertThat(progress).hasSize(8).allMatch(l -> l.contains("test accuracy"));
    for (MadelonExperiment.Row r : rows) {
      assertThat(r.accuracies()).hasSize(2);
      assertThat(r.mean()).isBetween(Math.min(r.accuracies()[0], r.accuracies()[1]),
          Math.max(r.accuracies()[0], r.accuracies()[1]));
      assertThat(r.std()).isCloseTo(Math.abs(r.accuracies()[0] - r.accuracies()[1]) / Math.sqrt(2), within(1e-12));
      assertThat(r.privacy().rdp2PaperClaim()).isPositive();
      assertThat(r.privacy().rdp2Safe()).isPositive();
      assertThat(r.privacy().epsilonPaperClaim()).isPositive().isFinite();
      assertThat(r.privacy().epsilonSafe()).isPositive().isFinite();
    }
    List<MadelonExperiment.Row> again = tiny().build().run(l -> { });
    for (int i = 0; i < rows.size(); i++) {
      assertThat(again.get(i).accuracies()).containsExactly(rows.get(i).accuracies());
    }
  }

  @Test
  void reportedSafeEpsilonIsTheTrainersOwnLedger() {
    MadelonExperiment e = tiny().build();
    MadelonExperiment.Schedule d = e.schedules().get(1);
    DpMbcdTrainer t = e.trainer(2, d, 0);
    t.train();
    double ledger = t.ledger().rows().get(1).hiddenState().orElseThrow().epsilon();
    assertThat(e.privacy(2, d).epsilonSafe()).isCloseTo(ledger, within(1e-12 * ledger));
    double composition = t.ledger().rows().get(1).composition().orElseThrow().epsilon();
    assertThat(e.privacy(2, d).epsilonComposition()).isCloseTo(composition, within(1e-12 * composition));
    assertThat(e.privacy(2, d).epsilon()).isEqualTo(Math.min(ledger, composition));
  }

  @Test
  void commandPrintsTheTableAndJson() throws Exception {
    String[] tiny = {"experiment", "madelon", "--samples", "200", "--batch-size", "32", "--hidden", "8", "--epochs",
        "1,2", "--repeats", "2", "--insecure-seed", "5"};
    CliRun text = CliRun.of(tiny);
    assertThat(text.status()).as(text.err()).isZero();
    assertThat(text.out()).contains("| K | noise | test accuracy | eps (certified) | eps safe hidden state | eps composition | "
        + "eps paper's claim (NOT certified) |",
        "| 2 | D |", "MLP 20-8-5", "INSECURE", "only the last iterate released");
    assertThat(text.err()).contains("NOT private");
    List<String> args = new ArrayList<>(List.of(tiny));
    args.add("--json");
    CliRun json = CliRun.of(args.toArray(String[]::new));
    assertThat(json.status()).as(json.err()).isZero();
    JsonNode j = new ObjectMapper().readTree(json.out());
    assertThat(j.get("rows")).hasSize(4);
    assertThat(j.get("secureNoise").asBoolean()).isFalse();
    assertThat(j.get("rows").get(3).get("accuracies")).hasSize(2);
    assertThat(j.get("rows").get(3).get("schedule").asText()).isEqualTo("D");
    assertThat(j.get("rows").get(3).get("epsilonSafe").asDouble()).isPositive();
  }

  @Test
  void batchSumsGiveTheSafeEpsilonOfTheEquivalentMeanRun() throws Exception {
    // b = 32: SUM with η = 0.05 and o is the MEAN run with η = 1.6 and o/32 (docs/errata.md#dp-mbcd-batch-mean)
    String[] common = {"experiment", "madelon", "--samples", "200", "--batch-size", "32", "--hidden", "8", "--epochs",
        "2", "--repeats", "1", "--insecure-seed", "5", "--json", "--noise-decrement", "0"};
    List<String> sum = new ArrayList<>(List.of(common));
    sum.addAll(List.of("--batch-reduction", "sum", "--learning-rate", "0.05", "--constant-noise", "0.32",
        "--final-noise", "0.32"));
    List<String> mean = new ArrayList<>(List.of(common));
    mean.addAll(List.of("--learning-rate", "1.6", "--constant-noise", "0.01", "--final-noise", "0.01"));
    CliRun s = CliRun.of(sum.toArray(String[]::new));
    CliRun m = CliRun.of(mean.toArray(String[]::new));
    assertThat(s.status()).as(s.err()).isZero();
    assertThat(m.status()).as(m.err()).isZero();
    JsonNode js = new ObjectMapper().readTree(s.out());
    JsonNode jm = new ObjectMapper().readTree(m.out());
    assertThat(js.get("batchReduction").asText()).isEqualTo("sum");
    double safe = jm.get("rows").get(0).get("epsilonSafe").asDouble();
    assertThat(js.get("rows").get(0).get("epsilonSafe").asDouble()).isCloseTo(safe, within(1e-9 * safe));
    CliRun.of("experiment", "madelon", "--batch-reduction", "avg").assertRefusedNaming("--batch-reduction");
  }

  @Test
  void commandRefusesBadValuesNamingThem() {
    CliRun.of("experiment", "madelon", "--epochs", "0").assertRefusedNaming("epochs must be >= 1");
    CliRun.of("experiment", "madelon", "--constant-noise", "-1").assertRefusedNaming("noise temperatures");
    CliRun.of("experiment", "madelon", "--delta", "2").assertRefusedNaming("--delta");
  }
}
