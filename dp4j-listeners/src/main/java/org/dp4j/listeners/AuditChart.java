package org.dp4j.listeners;

import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalDouble;
import org.dp4j.audit.AuditBound;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.Styler;

/**
 * A PNG of a one-run audit (XChart): the canaries' scores, included vs excluded (how well the auditor separates
 * them), and the measured lower bound on ε beside the certified upper bound of the same run.
 *
 * <pre>{@code
 * // given: org.dp4j.audit.AuditBound bound; double[] scores; org.dp4j.audit.CanaryCoins coins
 * AuditChart.writePng(Path.of("audit.png"), bound, OptionalDouble.of(4.0), scores, coins.included(), "DP-SGD MLP");
 * }</pre>
 */
public final class AuditChart {
  private static final int BINS = 40;

  private AuditChart() {}

  /**
   * @param certified the certified ε of the run at the bound's δ; empty for a non-private baseline
   */
  public static void writePng(Path file, AuditBound bound, OptionalDouble certified, double[] scores,
      boolean[] included, String title) {
    System.setProperty("java.awt.headless", "true");
    BufferedImage top = BitmapEncoder.getBufferedImage(histogram(scores, included, title));
    BufferedImage bottom = BitmapEncoder.getBufferedImage(epsilons(bound, certified));
    BufferedImage out = new BufferedImage(LedgerChart.WIDTH, 2 * LedgerChart.PANEL_HEIGHT,
        BufferedImage.TYPE_INT_RGB);
    Graphics2D g = out.createGraphics();
    g.setColor(Color.WHITE);
    g.fillRect(0, 0, out.getWidth(), out.getHeight());
    g.drawImage(top, 0, 0, null);
    g.drawImage(bottom, 0, LedgerChart.PANEL_HEIGHT, null);
    g.dispose();
    LedgerChart.writePng(file, out);
  }

  static XYChart histogram(double[] scores, boolean[] included, String title) {
    double lo = Double.POSITIVE_INFINITY;
    double hi = Double.NEGATIVE_INFINITY;
    for (double s : scores) {
      lo = Math.min(lo, s);
      hi = Math.max(hi, s);
    }
    double width = hi > lo ? (hi - lo) / BINS : 1;
    double[] centres = new double[BINS];
    double[] in = new double[BINS];
    double[] out = new double[BINS];
    for (int b = 0; b < BINS; b++) {
      centres[b] = lo + (b + 0.5) * width;
    }
    for (int i = 0; i < scores.length; i++) {
      int b = Math.min(BINS - 1, (int) ((scores[i] - lo) / width));
      (included[i] ? in : out)[b]++;
    }
    XYChart chart = new XYChartBuilder().width(LedgerChart.WIDTH).height(LedgerChart.PANEL_HEIGHT)
        .title(title + ": canary scores").xAxisTitle("score").yAxisTitle("canaries").build();
    chart.getStyler().setChartBackgroundColor(Color.WHITE);
    chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNE);
    chart.getStyler().setXAxisDecimalPattern("0.##E0");
    chart.addSeries("included (trained on)", centres, in);
    chart.addSeries("excluded", centres, out);
    return chart;
  }

  static CategoryChart epsilons(AuditBound bound, OptionalDouble certified) {
    CategoryChart chart = new CategoryChartBuilder().width(LedgerChart.WIDTH).height(LedgerChart.PANEL_HEIGHT)
        .title(String.format("epsilon at delta = %.0e: measured lower bound (%.0f%% confidence) vs certified upper"
            + " bound", bound.delta(), 100 * bound.confidence()))
        .yAxisTitle("epsilon").build();
    chart.getStyler().setChartBackgroundColor(Color.WHITE);
    chart.getStyler().setLegendVisible(false);
    chart.getStyler().setYAxisMin(0.0);
    List<String> names = new ArrayList<>(List.of("measured lower bound"));
    List<Double> values = new ArrayList<>(List.of(bound.epsilonLowerBound()));
    if (certified.isPresent()) {
      names.add("certified upper bound");
      values.add(certified.getAsDouble());
    } else {
      names.add("certified: none (non-private run)");
      values.add(0.0);
    }
    chart.addSeries("epsilon", names, values);
    return chart;
  }
}
