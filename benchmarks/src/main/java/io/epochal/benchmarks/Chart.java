package io.epochal.benchmarks;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;

/** A horizontal bar chart of throughput (log scale), drawn headless with java.awt. */
public final class Chart {
  /** One bar. */
  public record Bar(String label, double wordsPerSecond, Color color, String note) {
  }

  private Chart() {
  }

  /**
   * Picks the bar colour of a variant by its family.
   *
   * @param variant a variant id such as {@code epochal-rocksdb-tx}
   * @return blue for Epochal, orange for Storm, purple for Flink, grey for every other (baseline) variant
   */
  public static Color colorOf(String variant) {
    if (variant.startsWith("epochal")) {
      return new Color(0x1f77b4);
    }
    if (variant.startsWith("storm")) {
      return new Color(0xff7f0e);
    }
    if (variant.startsWith("flink")) {
      return new Color(0x9467bd);
    }
    return new Color(0x7f7f7f);
  }

  /**
   * Draws the bars, one row each in the given order, on a logarithmic words-per-second axis and writes a PNG.
   *
   * @param title the chart's title
   * @param bars the bars to draw; the axis spans whole decades from the slowest positive bar to the fastest, a bar below it is drawn at the axis minimum
   * @param png the PNG file to write, replaced if present
   * @throws UncheckedIOException if the file cannot be written
   */
  public static void draw(String title, List<Bar> bars, Path png) {
    System.setProperty("java.awt.headless", "true");
    int left = 420;
    int right = 170;
    int plot = 560;
    int rowH = 30;
    int top = 56;
    int bottom = 46;
    int width = left + plot + right;
    int height = top + rowH * bars.size() + bottom;
    double max = bars.stream().mapToDouble(Bar::wordsPerSecond).max().orElse(1);
    double min = bars.stream().mapToDouble(Bar::wordsPerSecond).filter(v -> v > 0).min().orElse(1);
    int lo = (int) Math.floor(Math.log10(Math.max(1, min)));
    int hi = (int) Math.ceil(Math.log10(Math.max(10, max)));
    if (hi == lo) {
      hi = lo + 1;
    }
    BufferedImage img = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = img.createGraphics();
    g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
    g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
    g.setColor(Color.WHITE);
    g.fillRect(0, 0, width, height);
    g.setColor(Color.BLACK);
    g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 15));
    g.drawString(title, 12, 24);
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
    FontMetrics fm = g.getFontMetrics();
    // grid: one line per decade
    for (int d = lo; d <= hi; d++) {
      int x = left + (int) Math.round((d - lo) * (double) plot / (hi - lo));
      g.setColor(new Color(0xdddddd));
      g.drawLine(x, top - 6, x, top + rowH * bars.size());
      g.setColor(Color.DARK_GRAY);
      String s = humanize(Math.pow(10, d));
      g.drawString(s, x - fm.stringWidth(s) / 2, top + rowH * bars.size() + 16);
    }
    g.drawString("words per second (log scale)", left + plot / 2 - 80, top + rowH * bars.size() + 34);
    for (int i = 0; i < bars.size(); i++) {
      Bar b = bars.get(i);
      int y = top + i * rowH;
      g.setColor(Color.BLACK);
      String label = b.label();
      g.drawString(label, left - 8 - fm.stringWidth(label), y + rowH / 2 + 4);
      double v = Math.max(b.wordsPerSecond(), Math.pow(10, lo));
      int w = (int) Math.round((Math.log10(v) - lo) * plot / (hi - lo));
      g.setColor(b.color());
      g.fillRect(left, y + 5, Math.max(1, w), rowH - 10);
      g.setColor(Color.BLACK);
      g.setStroke(new BasicStroke(1f));
      String value = humanize(b.wordsPerSecond()) + (b.note() == null ? "" : "  " + b.note());
      g.drawString(value, left + w + 6, y + rowH / 2 + 4);
    }
    g.dispose();
    try {
      Files.createDirectories(png.toAbsolutePath().getParent());
      ImageIO.write(img, "png", png.toFile());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String humanize(double v) {
    if (v >= 1e9) {
      return String.format("%.1fG", v / 1e9);
    }
    if (v >= 1e6) {
      return String.format("%.1fM", v / 1e6);
    }
    if (v >= 1e3) {
      return String.format("%.0fk", v / 1e3);
    }
    return String.format("%.0f", v);
  }
}
