package io.epochal.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code word-count --metrics-port 0}: the run serves its meters over real HTTP while it runs, and the scrape taken
 * at its end (while the CLI prints its verdict, the endpoint still up) matches what the run printed.
 */
class MetricsEndpointTest {
  private static final Pattern COMMITTED =
      Pattern.compile("committed ([0-9,]+) batches \\(txid ([0-9]+)\\), ([0-9,]+) records");
  private static final Pattern REPLAYS = Pattern.compile("replays survived: ([0-9,]+)");

  @TempDir
  Path tmp;

  private static HttpResponse<String> get(String url) {
    return ScrapingOut.get(url);
  }

  static double value(String scrape, String name, Map<String, String> labels) {
    return ScrapingOut.value(scrape, name, labels);
  }

  private static long number(String s) {
    return Long.parseLong(s.replace(",", ""));
  }

  @Test
  void aWordCountServesItsMetersAndTheScrapeAtTheEndMatchesTheRun() {
    ScrapingOut out = new ScrapingOut();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = Main.execute(new String[] {"word-count", "--sentences", "3000", "--batch-size", "300",
        "--failure-rate", "0.2", "--state-dir", tmp.resolve("state").toString(), "--metrics-port", "0"},
        new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    String printed = out.all.toString(StandardCharsets.UTF_8);
    assertEquals(Main.OK, code, () -> printed + err.toString(StandardCharsets.UTF_8));

    assertNotNull(out.atStart, printed);
    assertEquals(200, out.atStart.statusCode());
    assertTrue(out.atStart.headers().firstValue("Content-Type").orElse("").startsWith("text/plain"));
    assertNotNull(out.atEnd, "scraped when the verdict was printed: " + printed);
    assertEquals(200, out.atEnd.statusCode());
    String scrape = out.atEnd.body();

    Matcher committed = COMMITTED.matcher(printed);
    assertTrue(committed.find(), printed);
    long batches = number(committed.group(1));
    long txid = number(committed.group(2));
    long records = number(committed.group(3));
    Matcher replays = REPLAYS.matcher(printed);
    assertTrue(replays.find(), printed);
    long replayed = number(replays.group(1));
    assertTrue(batches > 1 && replayed > 0, () -> "a run with batches and replays: " + printed);

    Map<String, String> pipeline = Map.of("pipeline", "word-count");
    assertEquals(batches, value(scrape, "epochal_batches_committed_total", pipeline));
    assertEquals(records, value(scrape, "epochal_records_in_total", pipeline));
    assertEquals(txid, value(scrape, "epochal_txid_committed", pipeline));
    assertEquals(replayed, value(scrape, "epochal_attempts_failed_total", Map.of("pipeline", "word-count",
        "retryable", "true")), "every failed attempt of the run was replayed");
    assertEquals(batches, value(scrape, "epochal_batch_commit_seconds_count", pipeline));
    for (String phase : new String[] {"emit", "process", "state", "durable"}) {
      assertEquals(batches, value(scrape, "epochal_batch_phase_seconds_count", Map.of("pipeline", "word-count",
          "phase", phase)), phase);
    }

    Map<String, String> commits = Map.of("store", "rocksdb", "op", "commit", "outcome", "ok");
    assertTrue(value(scrape, "epochal_store_requests_seconds_count", commits) >= batches,
        "every committed batch committed a store transaction: " + scrape);
    assertTrue(value(scrape, "epochal_store_rows_total", Map.of("store", "rocksdb", "op", "upsert",
        "table", "word-count/word-counts")) > 0, scrape);

    String url = out.url;
    assertThrows(UncheckedIOException.class, () -> get(url), "the endpoint is closed with the run");
  }

  @Test
  void aBusyPortFailsTheRunWithOneLineBeforeAnythingIsCreated() throws IOException {
    Path state = tmp.resolve("state");
    try (ServerSocket busy = new ServerSocket(0)) {
      MainTest.Result r = MainTest.cli("word-count", "--sentences", "100", "--state-dir", state.toString(),
          "--metrics-port", Integer.toString(busy.getLocalPort()));
      assertEquals(Main.FAILED, r.code(), r::toString);
      assertEquals(1, r.errLines().size(), r::err);
      assertTrue(r.err().contains("--metrics-port " + busy.getLocalPort()), r::err);
      assertFalse(Files.exists(state), "nothing created");
    }
  }

  @Test
  void aBadPortIsAUsageError() {
    for (String bad : new String[] {"-1", "65536", "http"}) {
      MainTest.Result r = MainTest.cli("word-count", "--store", "memory", "--metrics-port", bad);
      assertEquals(Main.USAGE, r.code(), r::toString);
      assertTrue(r.err().contains("--metrics-port"), r::err);
    }
  }
}
