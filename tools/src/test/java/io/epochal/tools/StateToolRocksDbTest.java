package io.epochal.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.epochal.store.rocksdb.RocksDbTableStore;
import io.epochal.store.table.ColumnType;
import io.epochal.store.table.Row;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableSchema;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code epochal} command over a RocksDB state directory written by a real word count: dump, get, stats and
 * checkpoint show (JSON parsed and compared with a recount), on a read-only copy, beside an open writer, and over a
 * damaged cell, an undecodable value and an unknown codec (reported, skipped, exit 1; or hex with a note).
 */
class StateToolRocksDbTest {
  @TempDir
  Path tmp;
  Path state;
  Map<String, Long> expected;

  @BeforeEach
  void wordCount() {
    state = tmp.resolve("state");
    try (RocksDbTableStore store = RocksDbTableStore.builder(state).build()) {
      WordCountState.run(store);
    }
    expected = WordCountState.expected();
  }

  @Test
  void shouldDumpEveryStateTableWithDecodedValuesAndTxids() {
    ToolRun r = ToolRun.of("state", "dump", "--rocksdb", state.toString(), "--json");
    assertEquals(0, r.code(), r::toString);
    assertEquals(expected, r.counts(WordCountState.COUNTS, "value"));
    assertEquals(expected, r.counts(WordCountState.OPAQUE, "value"));
    JsonNode counts = r.table(WordCountState.COUNTS);
    assertEquals("transactional:v1", counts.get("layout").asText());
    assertEquals("long-be:v1", counts.get("codec").asText());
    assertFalse(counts.has("note"), "every value decoded");
    for (JsonNode row : counts.get("rows")) {
      long txid = row.get("txid").asLong();
      assertTrue(txid >= 1 && txid <= WordCountState.BATCHES, row::toString);
    }
    JsonNode opaque = r.table(WordCountState.OPAQUE);
    assertTrue(opaque.get("codec").asText().startsWith("kryo:v1:"), opaque::toString);
    for (JsonNode row : opaque.get("rows")) {
      assertTrue(row.has("prev_value"), row::toString);
      JsonNode prev = row.get("prev_value");
      assertTrue(prev.isNull() || prev.asLong() < row.get("value").asLong(), row::toString);
    }
    assertEquals(2, r.json().get("tables").size(), "the checkpoint table is no state table: " + r.out());
    ToolRun text = ToolRun.of("state", "dump", "--rocksdb", state.toString(), "--table", WordCountState.COUNTS);
    assertEquals(0, text.code(), text::toString);
    assertTrue(text.out().contains("key=\"the\"  value=" + expected.get("the") + "  txid="), text::out);
  }

  @Test
  void shouldGetOneKeyAndSayWhenItIsMissing() {
    ToolRun r = ToolRun.of("state", "get", "--rocksdb", state.toString(), "--table", WordCountState.COUNTS,
        "--key", "cow", "--json");
    assertEquals(0, r.code(), r::toString);
    assertEquals(Map.of("cow", expected.get("cow")), r.counts(WordCountState.COUNTS, "value"));
    ToolRun missing = ToolRun.of("state", "get", "--rocksdb", state.toString(), "--table", WordCountState.COUNTS,
        "--key", "no-such-word");
    assertEquals(1, missing.code(), missing::toString);
    assertTrue(missing.out().contains("no row with key no-such-word"), missing::out);
    ToolRun noTable = ToolRun.of("state", "get", "--rocksdb", state.toString(), "--table", "nope", "--key", "a");
    assertEquals(2, noTable.code(), noTable::toString);
    assertTrue(noTable.err().contains("no table 'nope'"), noTable::err);
  }

  @Test
  void shouldCountRowsBytesAndTxidsPerTable() {
    ToolRun r = ToolRun.of("state", "stats", "--rocksdb", state.toString(), "--json");
    assertEquals(0, r.code(), r::toString);
    JsonNode counts = r.table(WordCountState.COUNTS);
    assertEquals(expected.size(), counts.get("rows").asInt());
    assertEquals(0, counts.get("unreadable").asInt());
    assertEquals(8L * expected.size(), counts.get("value_bytes").asLong(), "8 bytes per long-be value");
    assertTrue(counts.get("min_txid").asLong() >= 1, counts::toString);
    assertEquals(WordCountState.BATCHES, counts.get("max_txid").asLong(), "some word is in the last batch");
  }

  @Test
  void shouldShowTheCheckpointWithMetadataDecodedOnlyWhenTheCodecIsGiven() {
    ToolRun raw = ToolRun.of("checkpoint", "show", "--rocksdb", state.toString(), "--json");
    assertEquals(0, raw.code(), raw::toString);
    JsonNode p = raw.json().get("pipelines").get(0);
    assertEquals(WordCountState.PIPELINE, p.get("pipeline").asText());
    assertEquals(WordCountState.BATCHES, p.get("committed_txid").asLong());
    assertEquals(0, p.get("pending").size());
    assertTrue(p.get("committed_metadata").has("raw_hex"), p::toString);
    assertTrue(raw.json().get("note").asText().contains("--metadata-codec"), raw::out);
    ToolRun decoded = ToolRun.of("checkpoint", "show", "--rocksdb", state.toString(), "--pipeline", "wc",
        "--metadata-codec", "range:v1", "--json");
    assertEquals(0, decoded.code(), decoded::toString);
    JsonNode range = decoded.json().get("pipelines").get(0).get("committed_metadata");
    assertEquals(WordCountState.SENTENCES - WordCountState.BATCH, range.get("start").asLong(), range::toString);
    assertEquals(WordCountState.SENTENCES, range.get("end").asLong(), range::toString);
    ToolRun text = ToolRun.of("checkpoint", "show", "--rocksdb", state.toString());
    assertTrue(text.out().contains("pipeline wc: committed txid " + WordCountState.BATCHES), text::out);
    ToolRun other = ToolRun.of("checkpoint", "show", "--rocksdb", state.toString(), "--pipeline", "other");
    assertEquals(1, other.code(), other::toString);
    ToolRun wrongCodec = ToolRun.of("checkpoint", "show", "--rocksdb", state.toString(), "--metadata-codec",
        "long-be:v1");
    assertEquals(1, wrongCodec.code(), "16 bytes of a range are no long: reported, not guessed " + wrongCodec);
    assertEquals(1, wrongCodec.cellErrors().size(), wrongCodec::err);
  }

  @Test
  void shouldReadAReadOnlyCopyWithoutWritingToIt() throws Exception {
    Path copy = tmp.resolve("copy");
    Files.walkFileTree(state, new CopyTree(state, copy));
    Map<String, String> before = CopyTree.snapshot(copy);
    boolean root = "root".equals(System.getProperty("user.name"));
    CopyTree.setWritable(copy, false);
    try {
      for (String command : new String[] {"dump", "stats"}) {
        ToolRun r = ToolRun.of("state", command, "--rocksdb", copy.toString(), "--json");
        assertEquals(0, r.code(), r::toString);
      }
      ToolRun dump = ToolRun.of("state", "dump", "--rocksdb", copy.toString(), "--json");
      assertEquals(expected, dump.counts(WordCountState.COUNTS, "value"));
      ToolRun cp = ToolRun.of("checkpoint", "show", "--rocksdb", copy.toString());
      assertEquals(0, cp.code(), cp::toString);
    } finally {
      CopyTree.setWritable(copy, true);
    }
    // as root the permissions do not stop writes: the files being unchanged is what shows the read-only open
    assertEquals(before, CopyTree.snapshot(copy), "nothing written (running as root: " + root + ")");
  }

  @Test
  void shouldReadBesideAnOpenWriter() {
    try (RocksDbTableStore writer = RocksDbTableStore.builder(state).build()) {
      Table t = writer.findTable(WordCountState.COUNTS).orElseThrow();
      ToolRun r = ToolRun.of("state", "dump", "--rocksdb", state.toString(), "--json");
      assertEquals(0, r.code(), r::toString);
      assertEquals(expected, r.counts(WordCountState.COUNTS, "value"));
      try (StoreTransaction tx = writer.begin()) {
        tx.upsert(t, Row.builder(t.schema().key("zebra")).set("value", new byte[8]).set("txid", 99L).build());
        tx.commit();
      }
      ToolRun after = ToolRun.of("state", "get", "--rocksdb", state.toString(), "--table", WordCountState.COUNTS,
          "--key", "zebra", "--json");
      assertEquals(0, after.code(), "a new reader sees the writer's commit: " + after);
    }
  }

  @Test
  void shouldReportADamagedCellSkipItDumpTheRestAndExitNonZero() throws Exception {
    int rows = CopyTree.damageOneCell(state, "t:" + WordCountState.COUNTS);
    ToolRun r = ToolRun.of("state", "dump", "--rocksdb", state.toString(), "--json");
    assertEquals(1, r.code(), r::toString);
    assertEquals(1, r.cellErrors().size(), r::err);
    assertTrue(r.cellErrors().get(0).contains(WordCountState.COUNTS), r::err);
    assertEquals(rows - 1, r.table(WordCountState.COUNTS).get("rows").size(), "every other row dumped");
    assertEquals(expected, r.counts(WordCountState.OPAQUE, "value"), "the other tables dumped whole");
    assertEquals(1, r.json().get("errors").size(), r::out);
    ToolRun stats = ToolRun.of("state", "stats", "--rocksdb", state.toString(), "--json");
    assertEquals(1, stats.code(), stats::toString);
    assertEquals(1, stats.table(WordCountState.COUNTS).get("unreadable").asInt());
  }

  @Test
  void shouldReportAValueThatDoesNotDecodeWithTheRecordedCodecAndShowUnknownCodecsAsHex() {
    try (RocksDbTableStore writer = RocksDbTableStore.builder(state).build()) {
      Table t = writer.findTable(WordCountState.COUNTS).orElseThrow();
      TableSchema foreign = TableSchema.builder("foreign").key("key", ColumnType.STRING)
          .requiredValue("value", ColumnType.BYTES).requiredValue("txid", ColumnType.INT64)
          .attribute("epochal.layout", "transactional:v1").attribute("epochal.key", "string:key")
          .attribute("epochal.codec", "kryo:v1:com.example.NotOnTheClassPath").build();
      Table f = writer.openTable(foreign);
      try (StoreTransaction tx = writer.begin()) {
        tx.upsert(t, Row.builder(t.schema().key("short")).set("value", new byte[3]).set("txid", 5L).build());
        tx.upsert(f, Row.builder(foreign.key("x")).set("value", new byte[] {1, 2}).set("txid", 5L).build());
        tx.commit();
      }
    }
    ToolRun r = ToolRun.of("state", "dump", "--rocksdb", state.toString(), "--json");
    assertEquals(1, r.code(), r::toString);
    assertEquals(1, r.cellErrors().size(), r::err);
    assertTrue(r.cellErrors().get(0).contains("short") && r.cellErrors().get(0).contains("long-be:v1"), r::err);
    assertEquals(expected, r.counts(WordCountState.COUNTS, "value"), "the good rows are all there");
    JsonNode f = r.table("foreign");
    assertTrue(f.get("note").asText().contains("com.example.NotOnTheClassPath"), f::toString);
    assertEquals("0x0102", f.get("rows").get(0).get("value").get("raw_hex").asText(), f::toString);
  }

  @Test
  void shouldRefuseAMissingDirectoryAndBadUsage() {
    ToolRun r = ToolRun.of("state", "dump", "--rocksdb", tmp.resolve("nope").toString());
    assertEquals(2, r.code(), r::toString);
    ToolRun none = ToolRun.of("state", "dump");
    assertEquals(2, none.code(), none::toString);
    ToolRun both = ToolRun.of("state", "dump", "--rocksdb", "a", "--yt-proxy", "b");
    assertEquals(2, both.code(), both::toString);
    ToolRun empty = ToolRun.of("state", "dump", "--rocksdb", Files.isDirectory(tmp) ? tmp.toString() : "x");
    assertEquals(3, empty.code(), "not a state directory: " + empty);
    assertTrue(ToolRun.of("--help").out().contains("checkpoint"));
  }
}
