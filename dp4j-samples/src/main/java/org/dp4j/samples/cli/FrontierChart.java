package org.dp4j.samples.cli;

import java.awt.Color;
import java.nio.file.Path;
import java.util.List;
import org.dp4j.listeners.LedgerChart;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.Styler;

/** The PNG of {@code dp4j experiment frontier}: test accuracy against certified ε, one curve per algorithm. */
final class FrontierChart {
  static final int WIDTH = 800;
  static final int HEIGHT = 500;

  private FrontierChart() {}

  /** Mean test accuracy per target ε with ±1 sample std error bars; written atomically. */
  static void writePng(Path file, List<FrontierExperiment.Row> rows, String title) {
    System.setProperty("java.awt.headless", "true");
    XYChart chart = new XYChartBuilder().width(WIDTH).height(HEIGHT).title(title)
        .xAxisTitle("certified epsilon").yAxisTitle("test accuracy").build();
    chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideSE);
    chart.getStyler().setChartBackgroundColor(Color.WHITE);
    chart.getStyler().setPlotGridLinesVisible(true);
    chart.getStyler().setYAxisMin(0.0);
    chart.getStyler().setYAxisMax(1.0);
    chart.getStyler().setXAxisMin(0.0);
    series(chart, rows, "dp-mbcd", "DP-MBCD (min of SAFE hidden state and composition; last iterate, replace-one)");
    series(chart, rows, "dp-sgd", "DP-SGD (PLD composition; all iterates, add/remove)");
    LedgerChart.writePng(file, BitmapEncoder.getBufferedImage(chart));
  }

  private static void series(XYChart chart, List<FrontierExperiment.Row> rows, String algorithm, String name) {
    List<FrontierExperiment.Row> mine = rows.stream().filter(r -> r.algorithm().equals(algorithm)).toList();
    if (mine.isEmpty()) {
      return;
    }
    double[] x = mine.stream().mapToDouble(FrontierExperiment.Row::targetEpsilon).toArray();
    double[] y = mine.stream().mapToDouble(FrontierExperiment.Row::mean).toArray();
    double[] err = mine.stream().mapToDouble(FrontierExperiment.Row::std).toArray();
    chart.addSeries(name, x, y, err);
  }
}
