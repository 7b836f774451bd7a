package io.epochal.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.epochal.store.table.Row;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import io.epochal.store.ytsaurus.YtProtocolDouble;
import io.epochal.store.ytsaurus.YtTableStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The {@code epochal} command over a YTsaurus store, against store-ytsaurus' protocol double (from its test jar; not
 * a real cluster): a real word count, then dump, get, stats and checkpoint show (of named tables, and of every table
 * listed under the root) compared with a recount, with no write request from the tool; a value that does not decode
 * is reported and skipped, exit 1.
 */
class StateToolYtsaurusTest {
  private static final Set<String> WRITES = Set.of("create", "set", "remove", "lock", "insert_rows", "delete_rows",
      "mount_table", "reshard_table", "commit_transaction");
  private static YtProtocolDouble yt;
  private String root;
  private Map<String, Long> expected;

  @BeforeAll
  static void startDouble() {
    yt = YtProtocolDouble.start(2);
  }

  @AfterAll
  static void stopDouble() {
    yt.close();
  }

  private YtTableStore writer() {
    return YtTableStore.builder(yt.balancerAddress()).root(root).token("test-token")
        .retries(3, Duration.ofMillis(1), Duration.ofMillis(5)).requestTimeout(Duration.ofSeconds(10))
        .mountTimeout(Duration.ofSeconds(10)).build();
  }

  private String[] args(String... command) {
    List<String> all = new ArrayList<>(List.of(command));
    all.addAll(List.of("--yt-proxy", yt.balancerAddress(), "--yt-root", root, "--yt-token", "test-token"));
    return all.toArray(new String[0]);
  }

  @BeforeEach
  void wordCount() {
    root = "//tmp/epochal-tool/" + UUID.randomUUID().toString().replace("-", "");
    try (YtTableStore store = writer()) {
      WordCountState.run(store);
    }
    expected = WordCountState.expected();
  }

  @Test
  void shouldDumpGetStatsAndShowTheCheckpointWithoutWriting() {
    yt.clearRequests();
    ToolRun dump = ToolRun.of(args("state", "dump", "--table", WordCountState.COUNTS, "--json"));
    assertEquals(0, dump.code(), dump::toString);
    assertEquals(expected, dump.counts(WordCountState.COUNTS, "value"));
    ToolRun opaque = ToolRun.of(args("state", "dump", "--table", WordCountState.OPAQUE, "--json"));
    assertEquals(expected, opaque.counts(WordCountState.OPAQUE, "value"));
    ToolRun get = ToolRun.of(args("state", "get", "--table", WordCountState.COUNTS, "--key", "store", "--json"));
    assertEquals(0, get.code(), get::toString);
    assertEquals(Map.of("store", expected.get("store")), get.counts(WordCountState.COUNTS, "value"));
    ToolRun stats = ToolRun.of(args("state", "stats", "--table", WordCountState.COUNTS, "--json"));
    assertEquals(expected.size(), stats.table(WordCountState.COUNTS).get("rows").asInt(), stats::toString);
    ToolRun cp = ToolRun.of(args("checkpoint", "show", "--metadata-codec", "range:v1", "--json"));
    assertEquals(0, cp.code(), cp::toString);
    JsonNode p = cp.json().get("pipelines").get(0);
    assertEquals(WordCountState.BATCHES, p.get("committed_txid").asLong());
    assertEquals(WordCountState.SENTENCES, p.get("committed_metadata").get("end").asLong());
    List<String> writes = yt.requests().stream().map(YtProtocolDouble.Recorded::command).filter(WRITES::contains)
        .toList();
    assertEquals(List.of(), writes, "the tool sends no write request");
  }

  @Test
  void shouldListTheStateTablesUnderTheRootWithoutWriting() {
    yt.clearRequests();
    ToolRun r = ToolRun.of(args("state", "dump", "--json"));
    assertEquals(0, r.code(), r::toString);
    assertEquals(2, r.json().get("tables").size(), "both state tables, not the checkpoint table: " + r.out());
    assertEquals(expected, r.counts(WordCountState.COUNTS, "value"));
    assertEquals(expected, r.counts(WordCountState.OPAQUE, "value"));
    ToolRun stats = ToolRun.of(args("state", "stats"));
    assertEquals(0, stats.code(), stats::toString);
    assertTrue(stats.out().contains("table " + WordCountState.OPAQUE + ": " + expected.size() + " rows"),
        stats::out);
    assertEquals(List.of(), yt.requests().stream().map(YtProtocolDouble.Recorded::command)
        .filter(WRITES::contains).toList(), "the tool sends no write request");
  }

  @Test
  void shouldReportARowThatDoesNotFitItsSchemaWithItsKeyAndDumpTheRest() {
    // The scan's answer carries a txid that is no int64 for key 'moon' (a row the store cannot decode): the tool
    // reports that row with its key and still shows every other row, as on RocksDB and PostgreSQL.
    yt.rewriteNextAnswer("select_rows", body -> {
      String text = new String(body, java.nio.charset.StandardCharsets.UTF_8);
      List<String> lines = new ArrayList<>();
      for (String line : text.split("\n", -1)) {
        lines.add(line.contains("\"moon\"") ? line.replaceFirst("\"txid\":[0-9]+", "\"txid\":\"broken\"") : line);
      }
      String rewritten = String.join("\n", lines);
      assertEquals(1, lines.stream().filter(l -> l.contains("\"txid\":\"broken\"")).count(),
          () -> "one row of moon with a txid in: " + text);
      return rewritten.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    });
    ToolRun r = ToolRun.of(args("state", "dump", "--table", WordCountState.COUNTS, "--json"));
    assertEquals(1, r.code(), r::toString);
    assertEquals(1, r.cellErrors().size(), r::err);
    assertTrue(r.cellErrors().get(0).contains("moon") && r.cellErrors().get(0).contains("txid"), r::err);
    Map<String, Long> others = new java.util.TreeMap<>(expected);
    others.remove("moon");
    assertEquals(others, r.counts(WordCountState.COUNTS, "value"), "every other row is shown");
  }

  @Test
  void shouldReportAValueThatDoesNotDecodeAndDumpTheRest() {
    try (YtTableStore store = writer()) {
      Table t = store.findTable(WordCountState.COUNTS).orElseThrow();
      try (StoreTransaction tx = store.begin()) {
        tx.upsert(t, Row.builder(t.schema().key("moon")).set("value", new byte[5]).set("txid", 3L).build());
        tx.commit();
      }
    }
    ToolRun r = ToolRun.of(args("state", "dump", "--table", WordCountState.COUNTS, "--json"));
    assertEquals(1, r.code(), r::toString);
    assertEquals(1, r.cellErrors().size(), r::err);
    assertTrue(r.cellErrors().get(0).contains("moon"), r::err);
    Map<String, Long> others = new java.util.TreeMap<>(expected);
    others.remove("moon");
    assertEquals(others, r.counts(WordCountState.COUNTS, "value"));
  }
}
