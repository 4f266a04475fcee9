package org.dp4j.listeners;

import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import javax.imageio.ImageIO;
import javax.imageio.stream.ImageOutputStream;
import javax.imageio.stream.MemoryCacheImageOutputStream;
import org.dp4j.accounting.PrivacyGuarantee;
import org.dp4j.accounting.ledger.LedgerRow;
import org.dp4j.accounting.ledger.PrivacyLedger;
import org.dp4j.io.AtomicFiles;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.lines.SeriesLines;
import org.knowm.xchart.style.Styler;

/**
 * A PNG chart of a ledger (XChart): ε per epoch for each threat model (composition vs hidden state),
 * and, when the accountants expose them, the LSI constants per epoch on a log scale (they span decades).
 */
public final class LedgerChart {
  public static final int WIDTH = 900;
  public static final int PANEL_HEIGHT = 420;

  private LedgerChart() {}

  /** Writes the chart atomically ({@link AtomicFiles}); the image is {@link #WIDTH} wide and one or two panels high. */
  public static void writePng(Path file, PrivacyLedger ledger, String title) {
    System.setProperty("java.awt.headless", "true");
    List<BufferedImage> panels = new ArrayList<>();
    panels.add(BitmapEncoder.getBufferedImage(epsilonChart(ledger, title)));
    lsiChart(ledger).ifPresent(c -> panels.add(BitmapEncoder.getBufferedImage(c)));
    BufferedImage out = new BufferedImage(WIDTH, PANEL_HEIGHT * panels.size(), BufferedImage.TYPE_INT_RGB);
    Graphics2D g = out.createGraphics();
    g.setColor(Color.WHITE);
    g.fillRect(0, 0, out.getWidth(), out.getHeight());
    for (int i = 0; i < panels.size(); i++) {
      g.drawImage(panels.get(i), 0, i * PANEL_HEIGHT, null);
    }
    g.dispose();
    writePng(file, out);
  }

  /**
   * Writes an image as PNG, atomically ({@link AtomicFiles}), e.g. a chart of one's own:
   * {@code LedgerChart.writePng(Path.of("c.png"), BitmapEncoder.getBufferedImage(xyChart))}.
   */
  public static void writePng(Path file, BufferedImage out) {
    try {
      // A memory cache: ImageIO's default file cache would write a second temporary file into java.io.tmpdir.
      AtomicFiles.write(file, stream -> {
        try (ImageOutputStream image = new MemoryCacheImageOutputStream(stream)) {
          if (!ImageIO.write(out, "png", image)) {
            throw new IOException("this Java runtime has no PNG writer");
          }
        }
      });
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write chart " + file + ": " + AtomicFiles.reason(e), e);
    }
  }

  static XYChart epsilonChart(PrivacyLedger ledger, String title) {
    XYChart chart = new XYChartBuilder().width(WIDTH).height(PANEL_HEIGHT)
        .title(title + String.format(" — epsilon at delta = %.0e", ledger.delta())
            + (LedgerReport.notCertifiedBecause(ledger).isPresent() ? " — NOT CERTIFIED" : ""))
        .xAxisTitle("epoch").yAxisTitle("epsilon").build();
    style(chart);
    chart.getStyler().setYAxisMin(0.0); // ε starts at 0: a truncated axis exaggerates growth
    addSeries(chart, "composition (all iterates released)", ledger.rows(), LedgerRow::composition);
    addSeries(chart, "hidden state (only last iterate released)", ledger.rows(), LedgerRow::hiddenState);
    XYSeries claim = addSeries(chart, "paper's claim — NOT certified", ledger.rows(), LedgerRow::paperClaim);
    if (claim != null) {
      claim.setLineStyle(SeriesLines.DASH_DASH);
    }
    ledger.budget().ifPresent(b -> {
      List<Double> xs = new ArrayList<>();
      List<Double> ys = new ArrayList<>();
      for (LedgerRow r : ledger.rows()) {
        xs.add((double) r.epoch());
        ys.add(b.epsilon());
      }
      if (!xs.isEmpty()) {
        chart.addSeries("budget (" + b.threatModel().description() + ")", xs, ys);
      }
    });
    if (chart.getSeriesMap().isEmpty()) {
      chart.addSeries("no epoch recorded", List.of(0.0), List.of(0.0));
    }
    return chart;
  }

  static Optional<XYChart> lsiChart(PrivacyLedger ledger) {
    Set<String> blocks = new LinkedHashSet<>();
    ledger.rows().forEach(r -> blocks.addAll(r.lsiConstants().keySet()));
    if (blocks.isEmpty()) {
      return Optional.empty();
    }
    XYChart chart = new XYChartBuilder().width(WIDTH).height(PANEL_HEIGHT).title("LSI constant per epoch")
        .xAxisTitle("epoch").yAxisTitle("LSI constant c (log scale)").build();
    style(chart);
    chart.getStyler().setYAxisLogarithmic(true);
    Map<String, List<double[]>> series = new LinkedHashMap<>();
    for (LedgerRow r : ledger.rows()) {
      r.lsiConstants().forEach((block, c) -> {
        if (c > 0 && Double.isFinite(c)) {
          series.computeIfAbsent(block, k -> new ArrayList<>()).add(new double[] {r.epoch(), c});
        }
      });
    }
    series.forEach((block, points) -> chart.addSeries(block, points.stream().mapToDouble(p -> p[0]).toArray(),
        points.stream().mapToDouble(p -> p[1]).toArray()));
    return chart.getSeriesMap().isEmpty() ? Optional.empty() : Optional.of(chart);
  }

  /** The series, or null if no row has a finite bound. */
  private static XYSeries addSeries(XYChart chart, String name, List<LedgerRow> rows,
      Function<LedgerRow, Optional<PrivacyGuarantee>> bound) {
    List<Double> xs = new ArrayList<>();
    List<Double> ys = new ArrayList<>();
    for (LedgerRow r : rows) {
      bound.apply(r).filter(g -> g.bound().isFinite()).ifPresent(g -> {
        xs.add((double) r.epoch());
        ys.add(g.epsilon());
      });
    }
    return xs.isEmpty() ? null : chart.addSeries(name, xs, ys);
  }

  private static void style(XYChart chart) {
    chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
    chart.getStyler().setChartBackgroundColor(Color.WHITE);
    chart.getStyler().setPlotGridLinesVisible(true);
  }
}
