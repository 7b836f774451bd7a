package io.epochal.store.ytsaurus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.epochal.errors.LeaseLostException;
import io.epochal.store.table.ColumnType;
import io.epochal.store.table.CommitHook;
import io.epochal.store.table.Row;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableSchema;
import io.epochal.store.table.TableStore;
import io.epochal.store.ytsaurus.internal.YtAuth;
import io.epochal.store.ytsaurus.internal.YtCommand;
import io.epochal.store.ytsaurus.internal.YtHttpClient.Call;
import io.epochal.store.ytsaurus.internal.YtHttpClient.Phase;
import io.epochal.store.ytsaurus.internal.YtHttpClient;
import io.epochal.store.ytsaurus.internal.YtJson;
import io.epochal.testkit.store.TableStoreContract;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

/**
 * The <b>live suite</b>: the table-store contract in both modes plus every behaviour the research note marks
 * [UNCONFIRMED], against a real YTsaurus cluster. Runs only when {@code YT_PROXY} is set:
 *
 * <pre>
 * YT_PROXY=localhost:8000 YT_TOKEN=... [YT_LIVE_ROOT=//tmp/epochal-live] \
 *   mvn -B -pl store-ytsaurus -am test -Dtest=YtLiveTest -Dsurefire.failIfNoSpecifiedTests=false
 * </pre>
 *
 * Everything is created under {@code YT_LIVE_ROOT} (default {@code //tmp/epochal-live}) in a fresh directory per
 * test; nothing is removed afterwards. Without {@code YT_PROXY}, {@link #liveSuiteNeedsYtProxy()} is skipped with the
 * message {@value #HOW_TO_RUN} and the nested suites are disabled with the same reason.
 */
class YtLiveTest {
  static final String HOW_TO_RUN = "set YT_PROXY=host:port (and YT_TOKEN) to run the live YTsaurus suite";

  private static String proxy() {
    return System.getenv("YT_PROXY");
  }

  private static String freshRoot() {
    String base = System.getenv().getOrDefault("YT_LIVE_ROOT", "//tmp/epochal-live");
    return base + "/" + UUID.randomUUID().toString().replace("-", "");
  }

  private static YtTableStore.Builder builder(String root) {
    return YtTableStore.builder(proxy()).root(root);
  }

  @Test
  void liveSuiteNeedsYtProxy() {
    boolean configured = proxy() != null && !proxy().isBlank();
    if (!configured) {
      System.out.println("[YtLiveTest] skipped: " + HOW_TO_RUN);
    }
    assumeTrue(configured, HOW_TO_RUN);
  }

  /** The contract, pinned mode. */
  @Nested
  @EnabledIfEnvironmentVariable(named = "YT_PROXY", matches = ".+", disabledReason = HOW_TO_RUN)
  class PinnedContract extends TableStoreContract {
    private final String root = freshRoot();

    @Override
    protected TableStore createStore(CommitHook commit, io.epochal.store.table.ReadHook read) {
      return builder(root).commitHook(commit).readHook(read).build();
    }

    @Override
    protected TableStore createStore(CommitHook hook) {
      return createStore(hook, io.epochal.store.table.ReadHook.NONE);
    }

    @Override
    protected boolean storesBytes() {
      return false;
    }
  }

  /** The contract, single-table fallback mode. */
  @Nested
  @EnabledIfEnvironmentVariable(named = "YT_PROXY", matches = ".+", disabledReason = HOW_TO_RUN)
  class SingleTableContract extends TableStoreContract {
    private final String root = freshRoot();

    @Override
    protected TableStore createStore(CommitHook commit, io.epochal.store.table.ReadHook read) {
      return builder(root).mode(YtMode.SINGLE_TABLE).commitHook(commit).readHook(read).build();
    }

    @Override
    protected TableStore createStore(CommitHook hook) {
      return createStore(hook, io.epochal.store.table.ReadHook.NONE);
    }
  }

  /**
   * The queue points the queue spout and the protocol double rely on (§5), each asserting what the double assumes; the
   * same checks run against the double in {@code YtQueueProtocolDoubleTest}.
   */
  @Nested
  @EnabledIfEnvironmentVariable(named = "YT_PROXY", matches = ".+", disabledReason = HOW_TO_RUN)
  class QueueUnconfirmed extends YtQueueProtocolChecks {
    private final YtHttpClient client = new YtHttpClient(new YtHttpClient.Settings(token(),
        java.time.Duration.ofSeconds(5), java.time.Duration.ofSeconds(60), 3, java.time.Duration.ofMillis(100),
        java.time.Duration.ofSeconds(1), io.epochal.pipeline.Sleeper.system()));

    @Override
    protected String proxy() {
      return YtLiveTest.proxy();
    }

    @Override
    protected String freshRoot() {
      return YtLiveTest.freshRoot();
    }

    @Override
    protected YtHttpClient client() {
      return client;
    }

    @Override
    protected YtTableStore.Builder store(String root) {
      return builder(root);
    }

    @Override
    protected java.util.Optional<String> token() {
      return YtAuth.resolveToken(System.getenv(), Path.of(System.getProperty("user.home")));
    }
  }

  /** One test per [UNCONFIRMED] item of {@code ytsaurus-http-api.md} that this module relies on. */
  @Nested
  @EnabledIfEnvironmentVariable(named = "YT_PROXY", matches = ".+", disabledReason = HOW_TO_RUN)
  class Unconfirmed {
    private final String root = freshRoot();
    private final YtHttpClient client = new YtHttpClient(new YtHttpClient.Settings(
        YtAuth.resolveToken(System.getenv(), Path.of(System.getProperty("user.home"))),
        java.time.Duration.ofSeconds(5), java.time.Duration.ofSeconds(60), 3, java.time.Duration.ofMillis(100),
        java.time.Duration.ofSeconds(1), io.epochal.pipeline.Sleeper.system()));

    private final TableSchema schema = TableSchema.builder("words").key("word", ColumnType.STRING)
        .value("count", ColumnType.INT64).build();

    private String heavyProxy() {
      List<String> heavy = client.discoverHeavyProxies(proxy());
      return heavy.isEmpty() ? proxy() : heavy.get(0);
    }

    private String table(YtTableStore store) {
      store.openTable(schema);
      return store.ytPath("words");
    }

    private String startTablet(String on) {
      return client.json(Call.setup(YtCommand.START_TRANSACTION, YtJson.object().put("type", "tablet")
          .put("sticky", true).put("timeout", 30_000), on)).path("transaction_id").asText();
    }

    private String startMaster() {
      return client.json(Call.setup(YtCommand.START_TRANSACTION, YtJson.object().put("type", "master")
          .put("timeout", 30_000), proxy())).path("transaction_id").asText();
    }

    /** §1.3: the JSON line of a missing row under keep_missing_rows=true. */
    @Test
    void missingRowOfKeepMissingRowsIsANullLine() {
      try (YtTableStore store = builder(root).build()) {
        String path = table(store);
        List<JsonNode> rows = client.rows(new Call(YtCommand.LOOKUP_ROWS, YtJson.object().put("path", path)
            .put("keep_missing_rows", true), List.of(YtJson.object().put("word", "nope")), proxy(), Phase.SETUP,
            null, false));
        System.out.println("[YtLiveTest] missing row of keep_missing_rows arrives as: " + rows);
        assertEquals(1, rows.size());
        assertTrue(rows.get(0).isNull() || rows.get(0).isEmpty(), "client accepts null or {}: " + rows.get(0));
      }
    }

    /**
     * {@code YtTableStore.lookup} sends {@code lookup_rows} without a transaction: it must see a row the moment its
     * tablet transaction committed (a read at the latest committed timestamp, as the double answers).
     */
    @Test
    void lookupWithoutATransactionSeesTheLatestCommit() {
      try (YtTableStore store = builder(root).build()) {
        Table t = store.openTable(schema);
        for (long n = 1; n <= 5; n++) {
          try (StoreTransaction tx = store.begin()) {
            tx.upsert(t, Row.of(schema.key("apple"), n));
            tx.commit();
          }
          assertEquals(List.of(n), store.lookup(t, List.of(schema.key("apple"))).get(0).orElseThrow().values(),
              "the commit of " + n + " is seen by the next transaction-less lookup");
        }
      }
    }

    /** §2.1/§2.2: a sticky tablet transaction works when every call goes to one heavy proxy. */
    @Test
    void stickyTabletTransactionWorksPinnedToOneHeavyProxy() {
      try (YtTableStore store = builder(root).build()) {
        String path = table(store);
        String heavy = heavyProxy();
        YtHttpClient.Response start = client.execute(Call.setup(YtCommand.START_TRANSACTION,
            YtJson.object().put("type", "tablet").put("sticky", true), heavy));
        String tx = start.json().path("transaction_id").asText();
        String served = start.servedBy();
        System.out.println("[YtLiveTest] tablet transaction " + tx + " on " + heavy + ", X-YT-Proxy " + served);
        client.execute(new Call(YtCommand.INSERT_ROWS, YtJson.object().put("path", path).put("transaction_id", tx),
            List.of(YtJson.object().put("word", "pinned").put("count", 1)), heavy, Phase.IN_TRANSACTION, served,
            false));
        client.execute(new Call(YtCommand.COMMIT_TRANSACTION, YtJson.object().put("transaction_id", tx), null, heavy,
            Phase.COMMIT, served, false));
        try (StoreTransaction read = store.begin()) {
          assertEquals(1L, read.lookup(store.openTable(schema), List.of(schema.key("pinned"))).get(0).orElseThrow()
              .getLong("count"));
        }
      }
    }

    /** §2.1: naming the tablet transaction on another proxy gives 11000 (needs two heavy proxies). */
    @Test
    void stickyTabletTransactionOnAnotherProxyFailsWith11000() {
      List<String> heavy = client.discoverHeavyProxies(proxy());
      assumeTrue(heavy.size() >= 2, "needs at least two heavy proxies, found " + heavy);
      String tx = startTablet(heavy.get(0));
      YtTransactionLostException e = assertThrows(YtTransactionLostException.class, () -> client.execute(
          Call.setup(YtCommand.PING_TRANSACTION, YtJson.object().put("transaction_id", tx), heavy.get(1))));
      System.out.println("[YtLiveTest] other proxy answered: " + e.getMessage());
      assertTrue(e.hasCode(YtError.NO_SUCH_TRANSACTION));
    }

    /** §3.1: a tablet commit whose prerequisite master transaction was aborted fails with 1000. */
    @Test
    void tabletCommitWithAbortedPrerequisiteFailsWith1000() {
      try (YtTableStore store = builder(root).build()) {
        String path = table(store);
        String heavy = heavyProxy();
        String lease = startMaster();
        client.execute(Call.setup(YtCommand.ABORT_TRANSACTION, YtJson.object().put("transaction_id", lease),
            proxy()));
        String tx = startTablet(heavy);
        client.execute(new Call(YtCommand.INSERT_ROWS, YtJson.object().put("path", path).put("transaction_id", tx),
            List.of(YtJson.object().put("word", "fenced").put("count", 1)), heavy, Phase.IN_TRANSACTION, null,
            false));
        ObjectNode commit = YtJson.object().put("transaction_id", tx);
        commit.putArray("prerequisite_transaction_ids").add(lease);
        LeaseLostException e = assertThrows(LeaseLostException.class, () -> client.execute(new Call(
            YtCommand.COMMIT_TRANSACTION, commit, null, heavy, Phase.COMMIT, null, false)));
        System.out.println("[YtLiveTest] fenced commit: " + e.getMessage());
        try (StoreTransaction read = store.begin()) {
          assertTrue(read.lookup(store.openTable(schema), List.of(schema.key("fenced"))).get(0).isEmpty());
        }
      }
    }

    /**
     * §4: sending the computed column is refused, as the store models it (the client never sends it): the insert
     * fails with a {@link YtException} naming the command, and nothing is written.
     */
    @Test
    void sendingTheComputedColumnIsReported() {
      try (YtTableStore store = builder(root).build()) {
        String path = table(store);
        ObjectNode row = YtJson.object().put("hash", 1).put("word", "with-hash").put("count", 1);
        YtException refused = assertThrows(YtException.class, () -> client.execute(new Call(YtCommand.INSERT_ROWS,
            YtJson.object().put("path", path), List.of(row), proxy(), Phase.SETUP, null, false)),
            "the documented outcome (README, 'sending the computed column is refused'): refused");
        assertEquals(YtCommand.INSERT_ROWS.wireName(), refused.command(), refused::toString);
        assertTrue(refused.error().isPresent(), () -> "the server's error is kept: " + refused);
        try (StoreTransaction read = store.begin()) {
          assertTrue(read.lookup(store.openTable(schema), List.of(schema.key("with-hash"))).get(0).isEmpty(),
              "the refused row was not written");
          read.scan(store.openTable(schema)); // hashes read back are verified against FarmHash by the codec
        }
      }
    }

    /** §7: the server's farm_hash equals the published vectors (and so the client's FarmHash). */
    @Test
    void serverFarmHashMatchesThePublishedVectors() {
      try (YtTableStore store = builder(root).build()) {
        TableSchema s = TableSchema.builder("vectors").key("k", ColumnType.BYTES).value("v", ColumnType.INT64)
            .build();
        Table t = store.openTable(s);
        try (StoreTransaction tx = store.begin()) {
          for (String k : List.of("abc", "", "a\0b", "msg-17")) {
            tx.upsert(t, Row.of(s.key(k.getBytes(StandardCharsets.UTF_8)), 1L));
          }
          tx.commit();
        }
        List<JsonNode> rows = client.rows(Call.setup(YtCommand.SELECT_ROWS, YtJson.object().put("query",
            "hash FROM [" + store.ytPath("vectors") + "]"), proxy()));
        Set<Long> hashes = new HashSet<>();
        rows.forEach(r -> hashes.add(r.get("hash").bigIntegerValue().longValue()));
        assertEquals(Set.of(0x7b15151e28709746L, 0xfcc22541f5657d35L, 0x0706e84ffa9edd01L, 0x463ef428a4ff1c4dL),
            hashes);
      }
    }

    /** §1.1: unknown parameters are ignored (so prerequisites on insert_rows give no fencing). */
    @Test
    void unknownParametersAreIgnored() {
      try (YtTableStore store = builder(root).build()) {
        String path = table(store);
        String dead = startMaster();
        client.execute(Call.setup(YtCommand.ABORT_TRANSACTION, YtJson.object().put("transaction_id", dead),
            proxy()));
        ObjectNode params = YtJson.object().put("path", path).put("epochal_no_such_parameter", 1);
        params.putArray("prerequisite_transaction_ids").add(dead);
        client.execute(new Call(YtCommand.INSERT_ROWS, params, List.of(YtJson.object().put("word", "unfenced")
            .put("count", 1)), proxy(), Phase.SETUP, null, false));
        try (StoreTransaction read = store.begin()) {
          assertTrue(read.lookup(store.openTable(schema), List.of(schema.key("unfenced"))).get(0).isPresent());
        }
      }
    }

    /** §1.4: errors arrive in X-YT-Error with the interesting code nested (a row conflict at commit). */
    @Test
    void rowConflictArrivesAsNested1700() {
      try (YtTableStore store = builder(root).build()) {
        Table t = store.openTable(schema);
        StoreTransaction a = store.begin();
        StoreTransaction b = store.begin();
        a.upsert(t, Row.of(schema.key("c"), 1L));
        b.upsert(t, Row.of(schema.key("c"), 2L));
        a.commit();
        io.epochal.errors.CommitConflictException e = assertThrows(io.epochal.errors.CommitConflictException.class,
            b::commit);
        System.out.println("[YtLiveTest] conflict: " + e.getMessage());
        List<Integer> codes = new ArrayList<>(((YtException) e.getCause()).error().orElseThrow().allCodes());
        assertTrue(codes.contains(YtError.TRANSACTION_LOCK_CONFLICT), codes.toString());
      }
    }
  }
}
