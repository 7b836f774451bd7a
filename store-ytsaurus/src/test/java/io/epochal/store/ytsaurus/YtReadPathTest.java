package io.epochal.store.ytsaurus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.epochal.errors.EpochalException;
import io.epochal.errors.StateCorruptedException;
import io.epochal.errors.StoreException;
import io.epochal.store.Checkpoint;
import io.epochal.store.table.ColumnType;
import io.epochal.store.table.Row;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableCheckpointStore;
import io.epochal.store.table.TableSchema;
import io.epochal.store.table.TableStore;
import io.epochal.store.ytsaurus.internal.YtJson;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every read path of {@link YtTableStore} against answers the {@link YtProtocolDouble} damages: an error reply, a body
 * that is not tabular JSON, cut inside a row or at a line boundary, an error that struck mid-stream, a row that does
 * not fit the schema or belongs to another key, in lookups, scans, checkpoint reads and the Cypress reads of leases,
 * in both modes. Each must fail the read with a named error of the right retryability, never read as "absent".
 */
class YtReadPathTest {
  private static YtProtocolDouble yt;
  private final String root = YtDoubleFixture.freshRoot();

  private static final TableSchema COUNTS = TableSchema.builder("counts").key("word", ColumnType.STRING)
      .value("count", ColumnType.INT64).build();

  @BeforeAll
  static void startDouble() {
    yt = YtProtocolDouble.start(2);
    yt.requireToken("test-token");
  }

  @AfterAll
  static void stopDouble() {
    yt.close();
  }

  private YtTableStore pinned() {
    return YtDoubleFixture.builder(yt, root).build();
  }

  private YtTableStore singleTable() {
    return YtDoubleFixture.builder(yt, root).mode(YtMode.SINGLE_TABLE).build();
  }

  private static Table counts(TableStore store, String... words) {
    Table t = store.openTable(COUNTS);
    try (StoreTransaction tx = store.begin()) {
      long n = 1;
      for (String w : words) {
        tx.upsert(t, Row.of(COUNTS.key(w), n++));
      }
      tx.commit();
    }
    return t;
  }

  private static List<Optional<Row>> lookup(TableStore store, Table t, String... words) {
    try (StoreTransaction tx = store.begin()) {
      return tx.lookup(t, Arrays.stream(words).map(COUNTS::key).toList());
    }
  }

  private static List<Row> scan(TableStore store, Table t) {
    try (StoreTransaction tx = store.begin()) {
      return tx.scan(t);
    }
  }

  /** The body with every JSON row line edited ({@code null} lines kept). */
  private static UnaryOperator<byte[]> eachRow(Consumer<ObjectNode> edit) {
    return body -> {
      StringBuilder sb = new StringBuilder();
      for (String line : new String(body, StandardCharsets.UTF_8).split("\n")) {
        if (line.isEmpty()) {
          continue;
        }
        try {
          JsonNode row = YtJson.read(line);
          if (row.isObject()) {
            edit.accept((ObjectNode) row);
          }
          sb.append(YtJson.write(row)).append('\n');
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
      return sb.toString().getBytes(StandardCharsets.UTF_8);
    };
  }

  private static UnaryOperator<byte[]> replacedBy(String text) {
    return body -> text.getBytes(StandardCharsets.UTF_8);
  }

  /** The body without its last line. */
  private static UnaryOperator<byte[]> withoutLastLine() {
    return body -> {
      String text = new String(body, StandardCharsets.UTF_8);
      String trimmed = text.substring(0, text.length() - 1);
      return text.substring(0, trimmed.lastIndexOf('\n') + 1).getBytes(StandardCharsets.UTF_8);
    };
  }

  private static void assertNames(EpochalException e, String table, String key) {
    assertEquals(Optional.of(table), e.context().table(), e.getMessage());
    if (key != null) {
      assertTrue(e.context().key().orElse("").contains(key), e.context() + " " + e.getMessage());
    }
  }

  // ------------------------------------------------------------------ pinned mode: lookups

  @Test
  void shouldFailALookupAnsweredWithAnErrorInsteadOfReportingTheKeysMissing() {
    try (YtTableStore store = pinned()) {
      Table t = counts(store, "apple");
      yt.failNext("lookup_rows", 1, 400, YtError.of(1, "Error looking up", YtError.of(1, "chunk unreadable")));
      YtException e = assertThrows(YtException.class, () -> lookup(store, t, "apple", "never"));
      assertEquals("lookup_rows", e.command());
      assertTrue(e.retryable(), "a server-side read error may pass: " + e);
      assertEquals(Optional.of(Row.of(COUNTS.key("apple"), 1L)), lookup(store, t, "apple").get(0));
    }
  }

  @Test
  void shouldFailALookupWhoseAnswerIsNotTabularJson() {
    try (YtTableStore store = pinned()) {
      Table t = counts(store, "apple");
      yt.rewriteNextAnswer("lookup_rows", replacedBy("<html>proxy error</html>"));
      YtException e = assertThrows(YtException.class, () -> lookup(store, t, "apple"));
      assertEquals("lookup_rows", e.command(), e::toString);
      assertTrue(e.getMessage().contains("not tabular JSON"), e.getMessage()); // no field says what was wrong
      assertTrue(e.retryable(), "an answer damaged in transit may come whole next time");
    }
  }

  @Test
  void shouldFailALookupWhoseAnswerWasCutInsideARow() {
    try (YtTableStore store = pinned()) {
      Table t = counts(store, "apple", "banana");
      yt.rewriteNextAnswer("lookup_rows", body -> Arrays.copyOf(body, body.length - 7));
      YtException e = assertThrows(YtException.class, () -> lookup(store, t, "apple", "banana"));
      assertTrue(e.retryable());
    }
  }

  @Test
  void shouldFailALookupWhoseAnswerLostRowsAtALineBoundary() {
    try (YtTableStore store = pinned()) {
      Table t = counts(store, "apple", "banana");
      yt.rewriteNextAnswer("lookup_rows", withoutLastLine());
      StoreException cut = assertThrows(StoreException.class, () -> lookup(store, t, "apple", "never", "banana"));
      assertTrue(cut.getMessage().contains("answered 2 rows for 3 keys"), cut.getMessage());
      assertNames(cut, "counts", null);
      assertTrue(cut.retryable());
      yt.rewriteNextAnswer("lookup_rows", replacedBy(""));
      StoreException empty = assertThrows(StoreException.class, () -> lookup(store, t, "apple"));
      assertTrue(empty.getMessage().contains("answered 0 rows for 1 keys"), empty.getMessage());
    }
  }

  @Test
  void shouldFailAReadWhoseErrorStruckAfterTheRowsBeganToStream() {
    try (YtTableStore store = pinned()) {
      Table t = counts(store, "apple", "banana", "cherry", "date");
      yt.clearRequests();
      yt.failNextMidStream("lookup_rows", YtError.of(1, "Error looking up", YtError.of(1735, "not preloaded")));
      YtException lookup = assertThrows(YtException.class,
          () -> lookup(store, t, "apple", "banana", "cherry", "date"));
      assertTrue(lookup.hasCode(1735), lookup.getMessage());
      yt.failNextMidStream("select_rows", YtError.of(1, "Error reading", YtError.of(1735, "not preloaded")));
      YtException scan = assertThrows(YtException.class, () -> scan(store, t),
          "a scan cut short by an error must not return the rows before it");
      assertTrue(scan.hasCode(1735), scan.getMessage());
      for (YtProtocolDouble.Recorded r : yt.requests()) {
        if (r.command().equals("lookup_rows") || r.command().equals("select_rows")) {
          assertTrue(r.parameters().path("dump_error_into_response").asBoolean(), r.command()
              + " must ask for the error in the body: an error in an HTTP trailer cannot be read");
        }
      }
    }
  }

  @Test
  void shouldReportAMistypedRowAsCorruptionNamingTableAndKey() {
    try (YtTableStore store = pinned()) {
      Table t = counts(store, "apple");
      yt.rewriteNextAnswer("lookup_rows", eachRow(r -> r.put("count", "seventeen")));
      StateCorruptedException e = assertThrows(StateCorruptedException.class, () -> lookup(store, t, "apple"));
      assertNames(e, "counts", "apple");
      assertFalse(e.retryable());
      yt.rewriteNextAnswer("lookup_rows", replacedBy("42\n"));
      StateCorruptedException notARow = assertThrows(StateCorruptedException.class,
          () -> lookup(store, t, "apple"));
      assertNames(notARow, "counts", "apple");
      yt.rewriteNextAnswer("lookup_rows", eachRow(r -> r.remove("word")));
      assertNames(assertThrows(StateCorruptedException.class, () -> lookup(store, t, "apple")), "counts", "apple");
    }
  }

  @Test
  void shouldRefuseARowOfAnotherKeyThanAsked() {
    try (YtTableStore store = pinned()) {
      Table t = counts(store, "apple");
      yt.rewriteNextAnswer("lookup_rows", eachRow(r -> r.put("word", "pear")));
      StoreException hash = assertThrows(StoreException.class, () -> lookup(store, t, "apple"));
      assertTrue(hash.getMessage().contains("farm_hash"), hash.getMessage());
      assertFalse(hash.retryable());
      yt.rewriteNextAnswer("lookup_rows", eachRow(r -> {
        r.remove("hash");
        r.put("word", "pear");
      }));
      StoreException key = assertThrows(StoreException.class, () -> lookup(store, t, "apple"));
      assertNames(key, "counts", "apple");
      assertFalse(key.retryable());
    }
  }

  @Test
  void shouldFailAOneOffLookupOfAMissingTableWithoutRetryOrAbsence() {
    try (YtTableStore store = pinned()) {
      Table t = counts(store, "apple");
      yt.failNext("lookup_rows", 1, 400, YtError.of(YtError.RESOLVE_ERROR, "Node " + store.ytPath("counts")
          + " does not exist"));
      YtException e = assertThrows(YtException.class, () -> store.lookup(t, List.of(COUNTS.key("apple"))));
      assertFalse(e.retryable(), "a removed table stays removed");
    }
  }

  // ------------------------------------------------------------------ pinned mode: scans

  @Test
  void shouldFailAScanAnsweredWithAnErrorOrGarbageOrAMistypedRow() {
    try (YtTableStore store = pinned()) {
      Table t = counts(store, "apple", "banana");
      yt.failNext("select_rows", 1, 400, YtError.of(1, "Error reading"));
      assertThrows(YtException.class, () -> scan(store, t));
      yt.rewriteNextAnswer("select_rows", replacedBy("{\"word\":"));
      assertThrows(YtException.class, () -> scan(store, t));
      yt.rewriteNextAnswer("select_rows", eachRow(r -> r.put("count", true)));
      StateCorruptedException e = assertThrows(StateCorruptedException.class, () -> scan(store, t));
      assertNames(e, "counts", null);
      assertEquals(2, scan(store, t).size());
    }
  }

  // ------------------------------------------------------------------ checkpoints

  @Test
  void shouldNeverReadAnUnreadableCheckpointAsNoCheckpoint() {
    try (YtTableStore first = pinned()) {
      TableCheckpointStore checkpoints = TableCheckpointStore.on(first);
      checkpoints.load("wc");
      checkpoints.commit("wc", 1, new byte[] {1});
      checkpoints.commit("wc", 2, new byte[] {2});
    }
    try (YtTableStore store = pinned()) {
      yt.failNext("lookup_rows", 1, 400, YtError.of(1, "Error looking up"));
      assertThrows(YtException.class, () -> TableCheckpointStore.on(store).load("wc"));
      yt.rewriteNextAnswer("lookup_rows", replacedBy(""));
      assertThrows(StoreException.class, () -> TableCheckpointStore.on(store).load("wc"));
      yt.rewriteNextAnswer("lookup_rows", eachRow(r -> r.put("committed_txid", "two")));
      StateCorruptedException e = assertThrows(StateCorruptedException.class,
          () -> TableCheckpointStore.on(store).load("wc"));
      assertNames(e, "__epochal_checkpoints", "wc");
      Checkpoint healed = TableCheckpointStore.on(store).load("wc");
      assertEquals(2, healed.committedTxid());
    }
  }

  // ------------------------------------------------------------------ retryability

  @Test
  void shouldNotRetryRefusedCredentialsButRetryALostProxy() {
    try (YtTableStore wrong = YtTableStore.builder(yt.balancerAddress()).root(root).token("wrong-token")
        .retries(3, java.time.Duration.ofMillis(1), java.time.Duration.ofMillis(5)).build()) {
      YtException e = assertThrows(YtException.class, () -> wrong.openTable(COUNTS));
      assertEquals(401, e.httpStatus());
      assertFalse(e.retryable(), "no replay fixes refused credentials: " + e);
      assertFalse(EpochalException.isRetryable(e));
    }
    try (YtTableStore store = pinned()) {
      Table t = counts(store, "apple");
      yt.clearRequests();
      StoreTransaction tx = store.begin();
      int pinnedProxy = yt.requests().get(0).proxy();
      yt.stopProxy(pinnedProxy);
      try {
        YtTransactionLostException e = assertThrows(YtTransactionLostException.class,
            () -> tx.lookup(t, List.of(COUNTS.key("apple"))));
        assertTrue(e.retryable(), "a lost proxy is replayed on another one");
      } finally {
        yt.restartProxy(pinnedProxy);
        tx.abort();
      }
    }
  }

  // ------------------------------------------------------------------ single-table mode

  @Test
  void shouldNotReadAMalformedSingleTableRowAsAMissingOne() {
    try (YtTableStore store = singleTable()) {
      Table t = counts(store, "apple");
      yt.rewriteNextAnswer("lookup_rows", eachRow(r -> r.putNull("row")));
      StateCorruptedException noValues = assertThrows(StateCorruptedException.class,
          () -> lookup(store, t, "apple"));
      assertNames(noValues, "counts", "apple");
      assertFalse(noValues.retryable());
      yt.rewriteNextAnswer("lookup_rows", eachRow(r -> r.remove("deleted")));
      assertNames(assertThrows(StateCorruptedException.class, () -> lookup(store, t, "apple")), "counts", "apple");
      yt.rewriteNextAnswer("lookup_rows", eachRow(r -> r.put("row", "xyz")));
      StateCorruptedException format = assertThrows(StateCorruptedException.class,
          () -> lookup(store, t, "apple"));
      assertEquals(java.util.Optional.of("apple"), format.context().key(), format::toString);
      assertTrue(format.context().table().isPresent(), format::toString);
      assertFalse(format.retryable());
      yt.rewriteNextAnswer("select_rows", eachRow(r -> r.put("row", YtJson.bytesToJson(new byte[] {(byte) 0xE1}))));
      assertNames(assertThrows(StateCorruptedException.class, () -> scan(store, t)), "counts", null);
      yt.rewriteNextAnswer("lookup_rows", withoutLastLine());
      assertThrows(StoreException.class, () -> lookup(store, t, "apple", "never"));
      assertEquals(Optional.of(Row.of(COUNTS.key("apple"), 1L)), lookup(store, t, "apple").get(0));
    }
  }

  @Test
  void shouldStillReadSingleTableRowsWrittenBeforeTheChecksum() {
    try (YtTableStore store = singleTable()) {
      Table t = counts(store, "apple");
      yt.rewriteNextAnswer("lookup_rows", eachRow(r -> r.put("row", "[41]")));
      assertEquals(Optional.of(Row.of(COUNTS.key("apple"), 41L)), lookup(store, t, "apple").get(0));
      yt.rewriteNextAnswer("lookup_rows", eachRow(r -> r.put("row", "[\"41\"]")));
      assertNames(assertThrows(StateCorruptedException.class, () -> lookup(store, t, "apple")), "counts", "apple");
    }
  }

  @Test
  void shouldRefuseToBeginOrCommitOverAnUnreadableTimestampOrVersion() {
    try (YtTableStore store = singleTable()) {
      Table t = counts(store, "apple");
      yt.rewriteNextAnswer("generate_timestamp", replacedBy("{}"));
      StoreException begin = assertThrows(StoreException.class, store::begin);
      assertFalse(begin.retryable(), begin.getMessage());
      StoreTransaction tx = store.begin();
      tx.upsert(t, Row.of(COUNTS.key("apple"), 2L));
      yt.rewriteNextAnswer("lookup_rows", eachRow(r -> r.put("version", "late")));
      StoreException commit = assertThrows(StoreException.class, tx::commit);
      assertFalse(commit.retryable(), commit.getMessage());
      assertNames(commit, "counts", null);
      assertEquals(Optional.of(Row.of(COUNTS.key("apple"), 1L)), lookup(store, t, "apple").get(0),
          "a refused commit wrote");
    }
  }

  // ------------------------------------------------------------------ leases

  @Test
  void shouldNotRestartFencingFromAnUnreadableLeaseGeneration() {
    try (YtTableStore store = pinned()) {
      assertEquals(1, store.acquireLease("p", "w1").generation());
      String node = root + "/_epochal/lease_generations/p";
      yt.setAttribute(node, "epochal_generation", YtJson.NODES.textNode("garbage"));
      StoreException e = assertThrows(StoreException.class, () -> store.acquireLease("p", "w2"));
      assertFalse(e.retryable());
      assertTrue(e.getMessage().contains("garbage"), e.getMessage());
      yt.setAttribute(node, "epochal_generation", YtJson.NODES.numberNode(1));
      assertEquals(2, store.acquireLease("p", "w3").generation());
      yt.rewriteNextAnswer("get", replacedBy("{}"));
      StoreException noValue = assertThrows(StoreException.class, () -> store.acquireLease("p", "w4"));
      assertFalse(noValue.retryable());
      assertTrue(noValue.getMessage().contains("no value"), noValue.getMessage());
      yt.rewriteNextAnswer("get", replacedBy("<html>bad gateway</html>"));
      YtException notJson = assertThrows(YtException.class, () -> store.acquireLease("p", "w5"),
          "an answer that is not JSON is a named store failure");
      assertTrue(notJson.retryable(), "an answer damaged in transit may come whole next time");
      assertEquals(3, store.acquireLease("p", "w6").generation());
    }
  }
}
