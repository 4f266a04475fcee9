package org.dp4j.listeners;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.dp4j.accounting.NeighbouringRelation;
import org.dp4j.accounting.Orders;
import org.dp4j.accounting.RdpCurve;
import org.dp4j.accounting.SampledGaussianMechanism;
import org.dp4j.accounting.ThreatModel;
import org.dp4j.accounting.ledger.CompositionStepAccountant;
import org.dp4j.accounting.ledger.PrivacyBudget;
import org.dp4j.accounting.ledger.PrivacyLedger;
import org.dp4j.accounting.ledger.CompositionAccounting;
import org.dp4j.accounting.ledger.RdpStepAccountant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LedgerReportTest {
  /** A hidden-state double whose bound saturates and whose LSI constant halves every 100 steps. */
  static final class Saturating implements RdpStepAccountant {
    @Override public void requireCovers(org.dp4j.sampling.SamplingPlan plan, double noiseMultiplier) { }
    private long steps;

    @Override public String name() { return "saturating"; }
    @Override public String mechanismDescription() { return "test"; }
    @Override public String theorem() { return "test double"; }
    @Override public ThreatModel threatModel() { return ThreatModel.LAST_ITERATE_ONLY; }
    @Override public NeighbouringRelation relation() { return NeighbouringRelation.REPLACE_ONE; }
    @Override public List<String> assumptions() { return List.of("asserted smoothness"); }
    @Override public Orders orders() { return Orders.DEFAULT; }
    @Override public long steps() { return steps; }
    @Override public RdpCurve curve() { return curveAfter(0); }
    @Override public RdpCurve curveAfter(long more) {
      double k = 1 - Math.exp(-(steps + more) / 300.0);
      return RdpCurve.tabulate(Orders.DEFAULT, a -> k * a / 20);
    }
    @Override public void advance(long count) { steps += count; }
    @Override public Map<String, Double> lsiConstants() { return Map.of("W1", Math.pow(0.5, steps / 100.0)); }
  }

  private static PrivacyLedger tenEpochs() {
    PrivacyLedger ledger = PrivacyLedger.builder()
        .accountant(new CompositionStepAccountant(new SampledGaussianMechanism(0.01, 1.0), Orders.DEFAULT))
        .accountant(new Saturating()).delta(1e-5)
        .budget(new PrivacyBudget(8, 1e-5, ThreatModel.LAST_ITERATE_ONLY)).build();
    for (int e = 1; e <= 10; e++) {
      for (int i = 0; i < 100; i++) {
        ledger.tryStep();
      }
      ledger.closeEpoch(e);
    }
    return ledger;
  }

  @Test
  void jsonCsvAndSummaryCarryEveryThreatModel(@TempDir Path dir) throws Exception {
    PrivacyLedger ledger = tenEpochs();
    Map<String, Object> map = LedgerReport.toMap(ledger);
    map.put("stopReason", "completed");
    Path json = dir.resolve("r/report.json");
    LedgerReport.writeJson(json, map);
    JsonNode j = new ObjectMapper().readTree(json.toFile());
    assertThat(j.get("epochsCompleted").asInt()).isEqualTo(10);
    assertThat(j.get("ledger")).hasSize(10);
    JsonNode row = j.get("ledger").get(9);
    assertThat(row.get("steps").asLong()).isEqualTo(1000);
    assertThat(row.get("epsilonComposition").asDouble())
        .isEqualTo(ledger.rows().get(9).composition().orElseThrow().epsilon());
    assertThat(row.get("epsilonHiddenState").asDouble()).isLessThan(row.get("epsilonComposition").asDouble());
    assertThat(row.get("lsiConstants").get("saturating/W1").asDouble()).isEqualTo(Math.pow(0.5, 10));
    assertThat(row.get("assumptions").toString()).contains("Poisson", "asserted smoothness");
    assertThat(j.get("budget").get("threatModel").asText()).isEqualTo("only the last iterate released");

    Path csv = dir.resolve("ledger.csv");
    LedgerReport.writeCsv(csv, ledger);
    List<String> lines = Files.readAllLines(csv);
    assertThat(lines).hasSize(11);
    assertThat(lines.get(0)).startsWith("epoch,steps,epsilon_composition").endsWith("lsi_saturating_W1");
    assertThat(lines.get(10).split(",", -1)).hasSize(9);
    assertThat(lines.get(0)).contains("epsilon_last_iterate,epsilon_paper_claim");
    // the budget claims "only the last iterate released": epsilon is that threat model's certified bound
    assertThat(j.get("certified").asBoolean()).isTrue();
    assertThat(j.get("epsilon").asDouble()).isEqualTo(row.get("epsilonLastIterate").asDouble());
    assertThat(j.get("epsilonThreatModel").asText()).isEqualTo("only the last iterate released");
    assertThat(j.get("notCertifiedBecause").isNull()).isTrue();
    assertThat(j.get("epsilonPaperClaim").isNull()).isTrue();

    assertThat(LedgerReport.summary(ledger)).contains("all iterates released", "only the last iterate released",
        "after epoch 10");
  }

  @Test
  void aBudgetStopInsideAnEpochCountsOnlyFinishedEpochsAndBothAccountantsAreReported() {
    SampledGaussianMechanism sgm = new SampledGaussianMechanism(0.01, 1.0);
    PrivacyLedger.Builder b = PrivacyLedger.builder().delta(1e-5)
        .budget(new PrivacyBudget(0.9, 1e-5, ThreatModel.ALL_ITERATES_RELEASED));
    CompositionAccounting.PLD.ledgerAccountants(sgm, Orders.DEFAULT).forEach(b::accountant);
    PrivacyLedger ledger = b.build();
    // 100 steps per epoch: the PLD stop for (0.9, 1e-5) lies inside epoch 3 (independently: python
    // pld_reference.py 0.01 1.0 200 1e-5 gives optimal ε ≤ 0.9005 at 200 steps, and 0.98 at 240)
    int epoch = 0;
    boolean stopped = false;
    while (!stopped) {
      epoch++;
      for (int i = 0; i < 100 && !stopped; i++) {
        stopped = !ledger.tryStep();
      }
      if (stopped) {
        ledger.closePartialEpoch(epoch);
      } else {
        ledger.closeEpoch(epoch);
      }
    }
    assertThat(ledger.steps()).isBetween(190L, 210L);
    Map<String, Object> map = LedgerReport.toMap(ledger);
    assertThat(map.get("epochsCompleted")).isEqualTo((int) (ledger.steps() / 100));
    assertThat(map.get("dp4jVersion").toString()).isNotBlank().doesNotContain("${").doesNotContain("unknown");
    @SuppressWarnings("unchecked")
    Map<String, Double> byAccountant = (Map<String, Double>) map.get("epsilonByAccountant");
    assertThat(byAccountant).hasSize(2);
    double pld = byAccountant.get("sampled-gaussian-pld (all iterates released)");
    double rdp = byAccountant.get("sampled-gaussian-rdp (all iterates released)");
    assertThat(pld).isLessThanOrEqualTo(0.9).isLessThan(rdp);
    assertThat((Double) map.get("epsilonComposition")).isEqualTo(pld);
    assertThat(map.get("epsilonExplained").toString()).contains("equals epsilonComposition",
        "no hidden-state theorem applies");
    assertThat(LedgerReport.summary(ledger)).contains("stopped by the budget");
  }

  @Test
  void chartIsAValidPngWithBothPanels(@TempDir Path dir) throws Exception {
    Path png = dir.resolve("chart.png");
    LedgerChart.writePng(png, tenEpochs(), "test run");
    BufferedImage img = ImageIO.read(png.toFile());
    assertThat(img).isNotNull();
    assertThat(img.getWidth()).isEqualTo(LedgerChart.WIDTH);
    assertThat(img.getHeight()).isEqualTo(2 * LedgerChart.PANEL_HEIGHT);
  }

  @Test
  void chartWithoutLsiConstantsHasOnePanel(@TempDir Path dir) throws Exception {
    PrivacyLedger ledger = PrivacyLedger.builder()
        .accountant(new CompositionStepAccountant(new SampledGaussianMechanism(0.01, 1.0), Orders.DEFAULT))
        .delta(1e-5).build();
    ledger.tryStep();
    ledger.closeEpoch(1);
    Path png = dir.resolve("c.png");
    LedgerChart.writePng(png, ledger, "composition only");
    assertThat(ImageIO.read(png.toFile()).getHeight()).isEqualTo(LedgerChart.PANEL_HEIGHT);
  }

  /** The Saturating test double, reproducing a paper's uncertified accounting. */
  static final class PaperClaim implements RdpStepAccountant {
    private final RdpStepAccountant inner = new Saturating();

    @Override public void requireCovers(org.dp4j.sampling.SamplingPlan plan, double noiseMultiplier) { }
    @Override public String name() { return "paper"; }
    @Override public String mechanismDescription() { return "paper"; }
    @Override public String theorem() { return "a paper"; }
    @Override public ThreatModel threatModel() { return inner.threatModel(); }
    @Override public NeighbouringRelation relation() { return inner.relation(); }
    @Override public List<String> assumptions() { return inner.assumptions(); }
    @Override public Orders orders() { return inner.orders(); }
    @Override public long steps() { return inner.steps(); }
    @Override public RdpCurve curve() { return inner.curve(); }
    @Override public RdpCurve curveAfter(long more) { return inner.curveAfter(more); }
    @Override public void advance(long count) { inner.advance(count); }
    @Override public java.util.Optional<String> notCertifiedBecause() { return java.util.Optional.of("unproven"); }
  }

  @Test
  void aLedgerWhoseOnlyBoundIsAPapersClaimHasNoEpsilon(@TempDir Path dir) throws Exception {
    PrivacyLedger ledger = PrivacyLedger.builder().accountant(new PaperClaim()).delta(1e-5).build();
    for (int e = 1; e <= 3; e++) {
      for (int i = 0; i < 100; i++) {
        ledger.tryStep();
      }
      ledger.closeEpoch(e);
    }
    Map<String, Object> map = LedgerReport.toMap(ledger);
    assertThat(map.get("certified")).isEqualTo(false);
    assertThat(map.get("epsilon")).isNull();
    assertThat(map.get("epsilonLastIterate")).isNull();
    assertThat((Double) map.get("epsilonPaperClaim")).isPositive();
    assertThat(map.get("notCertifiedBecause").toString()).startsWith("NOT CERTIFIED: ").contains("paper: unproven");
    assertThat(map.get("epsilonExplained").toString()).startsWith("no certified bound");
    assertThat(LedgerReport.summary(ledger).lines().findFirst().orElseThrow()).startsWith("NOT CERTIFIED: ");
    assertThat(LedgerReport.summary(ledger)).contains("paper's claim, NOT a guarantee");
    Path csv = dir.resolve("p.csv");
    LedgerReport.writeCsv(csv, ledger);
    String[] cells = Files.readAllLines(csv).get(3).split(",", -1);
    assertThat(cells[7]).isNotEmpty(); // epsilon_paper_claim
    assertThat(cells[6]).isEmpty(); // epsilon_last_iterate
    Path png = dir.resolve("p.png");
    LedgerChart.writePng(png, ledger, "paper");
    assertThat(LedgerChart.epsilonChart(ledger, "paper").getTitle()).endsWith("NOT CERTIFIED");
    assertThat(LedgerChart.epsilonChart(ledger, "paper").getSeriesMap().get("paper's claim — NOT certified")
        .getLineStyle()).isEqualTo(org.knowm.xchart.style.lines.SeriesLines.DASH_DASH);
  }
}
