package io.epochal.examples;

import io.epochal.pipeline.BatchReport;
import io.epochal.pipeline.PipelineListener;
import io.epochal.spout.BatchAttempt;
import java.io.PrintStream;
import java.util.function.LongSupplier;

/**
 * The progress of a long example run. On a terminal, one line redrawn in place (at most ten times a second): a bar,
 * the share of the input done, records, the committed txid, the rate in the example's unit (words/s, events/s), the
 * replays and the time left. Elsewhere (a pipe, a log file, a test), a plain line at most once a second with the same
 * figures. The bar and the ETA need the input size; for an unbounded input (Kafka) only the counts and the rate are
 * shown. A {@link PipelineListener}: called on the coordinator thread; not thread-safe otherwise.
 */
final class Progress implements PipelineListener {
  private static final int BAR = 24;

  private final PrintStream out;
  private final boolean terminal;
  private final long totalRecords;
  private final String unit;
  private final double unitsPerRecord;
  private final LongSupplier nanos;
  private final long intervalNanos;
  private final long started;
  private long lastPrint;
  private long records;
  private long txid;
  private long failures;
  private boolean drawn;

  /**
   * @param terminal whether {@code out} is a terminal (see {@link #isTerminal})
   * @param totalRecords how many records the input holds, 0 if unknown (no bar, no ETA)
   * @param unit what the rate counts ("words", "events", "records")
   * @param unitsPerRecord units per record (words per sentence), 1 for records
   * @param nanos the clock ({@code System::nanoTime})
   */
  Progress(PrintStream out, boolean terminal, long totalRecords, String unit, double unitsPerRecord,
      LongSupplier nanos) {
    this.out = out;
    this.terminal = terminal;
    this.totalRecords = totalRecords;
    this.unit = unit;
    this.unitsPerRecord = unitsPerRecord;
    this.nanos = nanos;
    this.intervalNanos = terminal ? 100_000_000L : 1_000_000_000L;
    this.started = nanos.getAsLong();
    this.lastPrint = started;
  }

  /** Whether {@code out} is the process's standard output attached to a terminal that can redraw a line. */
  static boolean isTerminal(PrintStream out) {
    String term = System.getenv("TERM");
    return out == System.out && System.console() != null && term != null && !term.equals("dumb");
  }

  @Override
  public void onBatchCommitted(BatchReport report) {
    records += report.records();
    txid = report.txid();
    long now = nanos.getAsLong();
    if (now - lastPrint >= intervalNanos) {
      lastPrint = now;
      print(now);
    }
  }

  @Override
  public void onAttemptFailed(BatchAttempt attempt, Throwable cause) {
    failures++;
  }

  /** Ends the display: on a terminal, draws the final state and ends its line. */
  void finish() {
    if (terminal && drawn) {
      print(nanos.getAsLong());
      out.println();
    }
  }

  private void print(long now) {
    double seconds = Math.max(1e-9, (now - started) / 1e9);
    double rate = records * unitsPerRecord / seconds;
    StringBuilder line = new StringBuilder();
    if (terminal) {
      line.append('\r');
    } else {
      line.append("  ... ");
    }
    if (totalRecords > 0) {
      double done = Math.min(1.0, (double) records / totalRecords);
      if (terminal) {
        int filled = (int) Math.round(done * BAR);
        line.append('[').append("#".repeat(filled)).append(".".repeat(BAR - filled)).append("] ");
      }
      line.append(String.format("%3.0f%%  %,d/%,d records", done * 100, records, totalRecords));
    } else {
      line.append(String.format("%,d records", records));
    }
    line.append(String.format(", txid %,d, %s %s/s, %,d replayed", txid, human(rate), unit, failures));
    if (totalRecords > 0 && records > 0 && records < totalRecords) {
      long left = Math.round(seconds * (totalRecords - records) / records);
      line.append(String.format(", ETA %d:%02d", left / 60, left % 60));
    }
    if (terminal) {
      line.append("   "); // clears what a longer previous line left
      out.print(line);
      out.flush();
      drawn = true;
    } else {
      out.println(line);
    }
  }

  /** 1234 -> "1,234", 2_500_000 -> "2.50M". */
  static String human(double n) {
    return n >= 1e6 ? String.format("%.2fM", n / 1e6) : String.format("%,.0f", n);
  }
}
