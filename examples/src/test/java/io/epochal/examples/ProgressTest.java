package io.epochal.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.pipeline.BatchReport;
import io.epochal.spout.BatchAttempt;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The progress display: a bar redrawn in place on a terminal, plain periodic lines elsewhere, on a fake clock. */
class ProgressTest {
  private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
  private final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
  private final AtomicLong now = new AtomicLong();

  private String text() {
    return bytes.toString(StandardCharsets.UTF_8);
  }

  private void commit(Progress p, long txid, long records, long afterMillis) {
    now.addAndGet(afterMillis * 1_000_000L);
    p.onBatchCommitted(new BatchReport(txid, 1, records, 0));
  }

  @Test
  void aTerminalGetsOneLineRedrawnWithBarRateAndEta() {
    Progress p = new Progress(out, true, 1000, "words", 7.5, now::get);
    commit(p, 1, 100, 50);                      // before the first 100 ms: nothing drawn
    assertEquals("", text());
    commit(p, 2, 150, 950);                     // 1 s: 250 of 1000 records
    String first = text();
    assertTrue(first.startsWith("\r[######..................]  25%  250/1,000 records, txid 2"), first);
    assertTrue(first.contains("1,875 words/s"), first);   // 250 records * 7.5 words / 1 s
    assertTrue(first.contains("ETA 0:03"), first);        // 750 left at 250/s
    assertFalse(first.contains("\n"), "redrawn in place, no new line: " + first);
    p.onAttemptFailed(new BatchAttempt(3, 1), new RuntimeException("injected"));
    commit(p, 3, 750, 1000);
    p.finish();
    String all = text();
    assertTrue(all.contains("\r[########################] 100%  1,000/1,000 records, txid 3"), all);
    assertTrue(all.contains("1 replayed"), all);
    assertTrue(all.endsWith("\n"), "finish() ends the line");
    assertFalse(all.substring(all.lastIndexOf('\r')).contains("ETA"), "no ETA once done: " + all);
  }

  @Test
  void elsewhereItPrintsAPlainLineAtMostOnceASecond() {
    Progress p = new Progress(out, false, 0, "records", 1, now::get);   // Kafka: size unknown
    commit(p, 1, 2_000_000, 500);
    assertEquals("", text(), "not before a second");
    commit(p, 2, 3_000_000, 500);
    commit(p, 3, 10, 10);
    p.finish();
    String all = text();
    assertEquals("  ... 5,000,000 records, txid 2, 5.00M records/s, 0 replayed\n", all);
  }

  @Test
  void humanRates() {
    assertEquals("999", Progress.human(999));
    assertEquals("12,345", Progress.human(12_345));
    assertEquals("2.50M", Progress.human(2_500_000));
  }
}
