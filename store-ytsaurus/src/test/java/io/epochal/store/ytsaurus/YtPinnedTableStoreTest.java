package io.epochal.store.ytsaurus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.epochal.errors.LeaseLostException;
import io.epochal.errors.SchemaMismatchException;
import io.epochal.store.table.ColumnType;
import io.epochal.store.table.CommitHook;
import io.epochal.store.table.Lease;
import io.epochal.store.table.ReadHook;
import io.epochal.store.table.Row;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableSchema;
import io.epochal.store.table.TableStore;
import io.epochal.store.ytsaurus.internal.YtJson;
import io.epochal.testkit.store.TableStoreContract;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The {@link TableStoreContract} for {@link YtTableStore} in {@link YtMode#PINNED} mode, run against the
 * {@link YtProtocolDouble} (three heavy proxies behind a round-robin balancer), plus the pinned-mode behaviour the
 * double models: one proxy per tablet transaction, lost proxies, 11000, 1000, 1702, schema checks, pre-sharding.
 */
class YtPinnedTableStoreTest extends TableStoreContract {
  private static YtProtocolDouble yt;
  private final String root = YtDoubleFixture.freshRoot();

  @BeforeAll
  static void startDouble() {
    yt = YtProtocolDouble.start(3);
    yt.requireToken("test-token");
  }

  @AfterAll
  static void stopDouble() {
    yt.close();
  }

  @Override
  protected TableStore createStore(CommitHook commit, ReadHook read) {
    return YtDoubleFixture.builder(yt, root).commitHook(commit).readHook(read).build();
  }

  @Override
  protected TableStore createStore(CommitHook hook) {
    return createStore(hook, ReadHook.NONE);
  }

  /** Pinned mode: YTsaurus keeps typed columns, the store decodes JSON answers; no stored bytes of its own. */
  @Override
  protected boolean storesBytes() {
    return false;
  }

  private YtTableStore store() {
    YtTableStore s = YtDoubleFixture.builder(yt, root).build();
    return s;
  }

  private static TableSchema counts(String name) {
    return TableSchema.builder(name).key("word", ColumnType.STRING).value("count", ColumnType.INT64).build();
  }

  @Test
  void shouldSendEveryCallOfOneTransactionToOneHeavyProxyAndFenceTheCommit() {
    try (YtTableStore store = store()) {
      TableSchema a = counts("a");
      TableSchema b = counts("b");
      Table ta = store.openTable(a);
      Table tb = store.openTable(b);
      Lease lease = store.acquireLease("p", "w");
      yt.clearRequests();
      try (StoreTransaction tx = store.begin(lease)) {
        tx.lookup(ta, List.of(a.key("x"), a.key("y")));
        tx.upsert(ta, Row.of(a.key("x"), 1L));
        tx.upsert(tb, Row.of(b.key("y"), 2L));
        tx.delete(tb, b.key("z"));
        tx.commit();
      }
      List<YtProtocolDouble.Recorded> calls = yt.requests();
      List<String> commands = calls.stream().map(YtProtocolDouble.Recorded::command).toList();
      assertEquals(List.of("start_transaction", "lookup_rows", "insert_rows", "insert_rows", "delete_rows",
          "commit_transaction"), commands);
      Set<Integer> proxies = new HashSet<>();
      calls.forEach(r -> proxies.add(r.proxy()));
      assertEquals(1, proxies.size(), "all calls of the epoch must reach one proxy: " + calls);
      assertEquals("tablet", calls.get(0).parameters().path("type").asText());
      assertTrue(calls.get(1).parameters().path("keep_missing_rows").asBoolean());
      JsonNode commit = calls.get(5).parameters();
      assertEquals(1, commit.path("prerequisite_transaction_ids").size(), "commit must carry the lease: " + commit);
      for (YtProtocolDouble.Recorded r : calls) {
        assertTrue(r.header("X-YT-Correlation-Id") != null, "correlation id missing on " + r.command());
        if (r.command().endsWith("_rows")) {
          assertFalse(new String(r.body(), StandardCharsets.UTF_8).contains("\"hash\""),
              "the computed hash column must never be sent");
        }
      }
    }
  }

  @Test
  void shouldLoseTheTransactionWhenTabletTransactionsGoThroughTheBalancer() {
    try (YtTableStore store = YtDoubleFixture.builder(yt, root).discoverHeavyProxies(false).build()) {
      TableSchema a = counts("a");
      Table ta = store.openTable(a);
      StoreTransaction tx = store.begin();
      // round robin over 3 proxies: the lookup lands on another proxy than start_transaction
      assertThrows(YtTransactionLostException.class, () -> tx.lookup(ta, List.of(a.key("x"))));
      tx.abort();
    }
  }

  @Test
  void shouldReportALostProxyAsALostTransactionAndUseAnotherProxyNext() {
    try (YtTableStore store = store()) {
      TableSchema a = counts("a");
      Table ta = store.openTable(a);
      yt.clearRequests();
      StoreTransaction tx = store.begin();
      int pinned = yt.requests().get(0).proxy();
      tx.upsert(ta, Row.of(a.key("x"), 1L));
      yt.stopProxy(pinned);
      try {
        YtTransactionLostException e = assertThrows(YtTransactionLostException.class, tx::commit);
        assertTrue(e.getMessage().contains("did not commit"), e.getMessage());
        try (StoreTransaction again = store.begin()) {
          again.upsert(ta, Row.of(a.key("x"), 2L));
          again.commit();
        }
        try (StoreTransaction read = store.begin()) {
          assertEquals(2L, read.lookup(ta, List.of(a.key("x"))).get(0).orElseThrow().getLong("count"));
        }
      } finally {
        yt.restartProxy(pinned);
      }
    }
  }

  @Test
  void shouldLoseTheTransactionWhenAProxyRestartsAndItsStickyPoolIsGone() {
    try (YtTableStore store = store()) {
      TableSchema a = counts("a");
      Table ta = store.openTable(a);
      yt.clearRequests();
      StoreTransaction tx = store.begin();
      int pinned = yt.requests().get(0).proxy();
      tx.upsert(ta, Row.of(a.key("x"), 1L));
      yt.restartProxy(pinned);
      YtTransactionLostException e = assertThrows(YtTransactionLostException.class, tx::commit);
      assertTrue(e.hasCode(YtError.NO_SUCH_TRANSACTION), e.getMessage());
      assertEquals(List.of(), yt.rows(store.ytPath("a")));
    }
  }

  @Test
  void shouldLoseTheTransactionWhenAnAnswerComesFromAnotherProxy() {
    try (YtTableStore store = store()) {
      TableSchema a = counts("a");
      Table ta = store.openTable(a);
      StoreTransaction tx = store.begin();
      yt.impersonate("some-other-proxy:80");
      try {
        YtTransactionLostException e = assertThrows(YtTransactionLostException.class,
            () -> tx.lookup(ta, List.of(a.key("x"))));
        assertTrue(e.getMessage().contains("some-other-proxy:80"), e.getMessage());
      } finally {
        yt.impersonate(null);
        tx.abort();
      }
    }
  }

  @Test
  void shouldFenceACommitWhenAnOperatorAbortsTheLeaseTransaction() {
    try (YtTableStore store = store()) {
      TableSchema a = counts("a");
      Table ta = store.openTable(a);
      List<String> before = yt.liveMasterTransactions();
      Lease lease = store.acquireLease("op", "w");
      List<String> after = new java.util.ArrayList<>(yt.liveMasterTransactions());
      after.removeAll(before);
      assertEquals(1, after.size(), "the lease is one master transaction");
      StoreTransaction tx = store.begin(lease);
      tx.upsert(ta, Row.of(a.key("x"), 1L));
      yt.abortMasterTransaction(after.get(0));
      LeaseLostException e = assertThrows(LeaseLostException.class, tx::commit);
      assertInstanceOf(YtException.class, e.getCause());
      assertTrue(((YtException) e.getCause()).hasCode(YtError.PREREQUISITE_CHECK_FAILED));
      assertEquals(List.of(), yt.rows(store.ytPath("a")));
      assertThrows(LeaseLostException.class, () -> store.begin(lease));
    }
  }

  @Test
  void shouldReportAnUnmountedTableAfterRetrying() {
    try (YtTableStore store = store()) {
      TableSchema a = counts("a");
      Table ta = store.openTable(a);
      yt.unmount(store.ytPath("a"));
      StoreTransaction tx = store.begin();
      tx.upsert(ta, Row.of(a.key("x"), 1L));
      YtTabletNotMountedException e = assertThrows(YtTabletNotMountedException.class, tx::commit);
      assertTrue(e.hasCode(YtError.TABLET_NOT_MOUNTED));
      Table again = store.openTable(a); // mounts it again
      try (StoreTransaction tx2 = store.begin()) {
        tx2.upsert(again, Row.of(a.key("x"), 1L));
        tx2.commit();
      }
    }
  }

  @Test
  void shouldRefuseAnExternalTableWithAnotherSchemaShowingExpectedAndActual() {
    String external = root + "/external";
    ArrayNode schema = YtJson.array();
    schema.addObject().put("name", "hash").put("type", "uint64").put("sort_order", "ascending")
        .put("expression", "farm_hash(word)");
    schema.addObject().put("name", "word").put("type", "utf8").put("sort_order", "ascending");
    schema.addObject().put("name", "count").put("type", "double");
    yt.createTable(external, schema);
    try (YtTableStore store = store()) {
      TableSchema expected = TableSchema.builder(external).key("word", ColumnType.STRING)
          .value("count", ColumnType.INT64).build();
      SchemaMismatchException e = assertThrows(SchemaMismatchException.class, () -> store.openTable(expected));
      assertEquals(java.util.Optional.of(external), e.context().table());
      assertFalse(e.retryable());
      // user-facing: the message shows both schemas (the exception has no expected/actual fields)
      assertTrue(e.getMessage().contains("expected " + expected) && e.getMessage().contains("count double"),
          e.getMessage());
      TableSchema matching = TableSchema.builder(external).key("word", ColumnType.STRING)
          .value("count", ColumnType.DOUBLE).build();
      Table t = store.openTable(matching);
      assertEquals("mounted", yt.attribute(external, "tablet_state").asText());
      assertEquals(matching, t.schema());
    }
    String noHash = root + "/no_hash";
    ArrayNode plain = YtJson.array();
    plain.addObject().put("name", "word").put("type", "utf8").put("sort_order", "ascending");
    plain.addObject().put("name", "count").put("type", "int64");
    yt.createTable(noHash, plain);
    try (YtTableStore store = store()) {
      TableSchema expected = TableSchema.builder(noHash).key("word", ColumnType.STRING)
          .value("count", ColumnType.INT64).build();
      SchemaMismatchException e = assertThrows(SchemaMismatchException.class, () -> store.openTable(expected));
      assertEquals(java.util.Optional.of(noHash), e.context().table());
      assertFalse(e.retryable());
      assertTrue(e.getMessage().contains("actual [word utf8 key, count int64]"), e.getMessage());
    }
  }

  @Test
  void shouldPreShardNewTablesUniformly() {
    try (YtTableStore store = YtDoubleFixture.builder(yt, root).tabletCount(4).build()) {
      store.openTable(counts("sharded"));
      String path = store.ytPath("sharded");
      assertEquals(4, yt.attribute(path, "tablet_count").asInt());
      JsonNode pivots = yt.attribute(path, "pivot_keys");
      assertEquals(4, pivots.size());
      assertEquals(BigInteger.ONE.shiftLeft(62), pivots.get(1).get(0).bigIntegerValue());
      assertEquals("mounted", yt.attribute(path, "tablet_state").asText());
    }
  }

  @Test
  void shouldStoreTheServerComputedFarmHashOfThePublishedVectors() {
    try (YtTableStore store = store()) {
      TableSchema s1 = TableSchema.builder("v1").key("k", ColumnType.STRING).value("v", ColumnType.INT64).build();
      TableSchema s2 = TableSchema.builder("v2").key("k", ColumnType.STRING).key("n", ColumnType.UINT64)
          .value("v", ColumnType.INT64).build();
      TableSchema s4 = TableSchema.builder("v4").key("a", ColumnType.INT64).key("b", ColumnType.UINT64)
          .key("c", ColumnType.BOOLEAN).key("d", ColumnType.STRING).value("v", ColumnType.INT64).build();
      TableSchema su = TableSchema.builder("vu").key("u", ColumnType.UINT64).value("v", ColumnType.INT64).build();
      Table t1 = store.openTable(s1);
      Table t2 = store.openTable(s2);
      Table t4 = store.openTable(s4);
      Table tu = store.openTable(su);
      try (StoreTransaction tx = store.begin()) {
        tx.upsert(t1, List.of(Row.of(s1.key("abc"), 1L), Row.of(s1.key(""), 2L), Row.of(s1.key("a\0b"), 3L),
            Row.of(s1.key("msg-17"), 4L)));
        tx.upsert(t2, Row.of(s2.key("alpha", 7L), 5L));
        tx.upsert(t4, Row.of(s4.key(-7L, 11L, true, "xy"), 6L));
        tx.upsert(tu, List.of(Row.of(su.key(456L), 7L), Row.of(su.key(-1L), 8L)));
        tx.commit();
      }
      assertEquals(Set.of(0x7b15151e28709746L, 0xfcc22541f5657d35L, 0x0706e84ffa9edd01L, 0x463ef428a4ff1c4dL),
          serverHashes(store.ytPath("v1")));
      assertEquals(Set.of(0x269c2b99970a5b3dL), serverHashes(store.ytPath("v2")));
      assertEquals(Set.of(0x5f90424776524127L), serverHashes(store.ytPath("v4")));
      assertEquals(Set.of(2044001940267648219L, 0x62f280995c3dea58L), serverHashes(store.ytPath("vu")));
    }
  }

  private static Set<Long> serverHashes(String path) {
    Set<Long> out = new HashSet<>();
    for (JsonNode row : yt.rows(path)) {
      out.add(row.get("hash").bigIntegerValue().longValue());
    }
    return out;
  }

  @Test
  void shouldKeepNonAsciiSchemaAttributes() {
    try (YtTableStore store = store()) {
      TableSchema s = TableSchema.builder("attrs").key("k", ColumnType.STRING).value("v", ColumnType.INT64)
          .attribute("epochal.codec", "kryo:v1:Счётчик").build();
      store.openTable(s);
      assertEquals(s, store.findTable("attrs").orElseThrow().schema());
    }
  }

  @Test
  void shouldRoundTripEveryByteThroughTheStringConvention() {
    try (YtTableStore store = store()) {
      TableSchema s = TableSchema.builder("bytes").key("k", ColumnType.BYTES).value("v", ColumnType.BYTES)
          .value("t", ColumnType.STRING).build();
      Table t = store.openTable(s);
      byte[] all = new byte[256];
      for (int i = 0; i < 256; i++) {
        all[i] = (byte) i;
      }
      Row row = Row.of(s.key(all), all, "\u0000\u00ff \u20ac \ud83d\ude00 \"quoted\" \\ end");
      try (StoreTransaction tx = store.begin()) {
        tx.upsert(t, row);
        tx.commit();
      }
      try (StoreTransaction tx = store.begin()) {
        assertEquals(Optional.of(row), tx.lookup(t, List.of(s.key(all))).get(0));
      }
    }
  }
}
