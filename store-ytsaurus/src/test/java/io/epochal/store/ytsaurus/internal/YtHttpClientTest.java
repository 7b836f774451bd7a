package io.epochal.store.ytsaurus.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpServer;
import io.epochal.errors.CommitConflictException;
import io.epochal.errors.LeaseLostException;
import io.epochal.store.ytsaurus.YtCommitOutcomeUnknownException;
import io.epochal.store.ytsaurus.YtError;
import io.epochal.store.ytsaurus.YtException;
import io.epochal.store.ytsaurus.YtProtocolDouble;
import io.epochal.store.ytsaurus.YtTabletNotMountedException;
import io.epochal.store.ytsaurus.YtTransactionLostException;
import io.epochal.store.ytsaurus.internal.YtHttpClient.Call;
import io.epochal.store.ytsaurus.internal.YtHttpClient.Phase;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Unit tests of {@link YtHttpClient}: where parameters go, headers, error parsing and mapping, and which failures are
 * retried (only before commit). Most run against the {@link YtProtocolDouble}; a few use a tiny stub server to send
 * answers the double never sends.
 */
class YtHttpClientTest {
  private static YtProtocolDouble yt;
  private final List<Duration> sleeps = new ArrayList<>();
  private YtHttpClient client;
  private String proxy;

  @BeforeAll
  static void startDouble() {
    yt = YtProtocolDouble.start(2);
  }

  @AfterAll
  static void stopDouble() {
    yt.close();
  }

  @BeforeEach
  void newClient() {
    client = client(Optional.of("secret"));
    proxy = yt.proxyAddress(0);
    yt.clearRequests();
  }

  private YtHttpClient client(Optional<String> token) {
    return new YtHttpClient(new YtHttpClient.Settings(token, Duration.ofSeconds(2), Duration.ofSeconds(5), 4,
        Duration.ofMillis(10), Duration.ofMillis(40), d -> sleeps.add(d)));
  }

  private String table() {
    String path = "//tmp/client-test/" + System.nanoTime();
    ArrayNode schema = YtJson.array();
    schema.addObject().put("name", "hash").put("type", "uint64").put("sort_order", "ascending")
        .put("expression", "farm_hash(k)");
    schema.addObject().put("name", "k").put("type", "string").put("sort_order", "ascending");
    schema.addObject().put("name", "v").put("type", "int64");
    yt.createTable(path, schema);
    yt.mountPolls(0);
    client.execute(Call.setup(YtCommand.MOUNT_TABLE, YtJson.object().put("path", path), proxy));
    yt.mountPolls(2);
    yt.clearRequests();
    return path;
  }

  private static ObjectNode row(String k, long v) {
    return YtJson.object().put("k", k).put("v", v);
  }

  // ---------------------------------------------------------------- parameter placement and headers

  @Test
  void shouldPutParametersOfCommandsWithInputIntoTheHeaderAndRowsIntoTheBody() {
    String path = table();
    client.execute(new Call(YtCommand.INSERT_ROWS, YtJson.object().put("path", path), List.of(row("a", 1)), proxy,
        Phase.SETUP, null, false));
    YtProtocolDouble.Recorded r = yt.requests().get(0);
    assertEquals("PUT", r.method());
    assertEquals(path, r.headerParameters().path("path").asText());
    assertEquals("json", r.headerParameters().path("input_format").path("$value").asText());
    assertTrue(r.headerParameters().path("input_format").path("$attributes").path("encode_utf8").asBoolean());
    assertEquals(0, r.bodyParameters().size());
    assertEquals("{\"k\":\"a\",\"v\":1}\n", new String(r.body(), StandardCharsets.UTF_8));
  }

  @Test
  void shouldPutParametersOfCommandsWithoutInputIntoThePostBody() {
    client.execute(Call.setup(YtCommand.START_TRANSACTION, YtJson.object().put("type", "master"), proxy));
    YtProtocolDouble.Recorded r = yt.requests().get(0);
    assertEquals("POST", r.method());
    assertNull(r.header("X-YT-Parameters"));
    assertEquals("master", r.bodyParameters().path("type").asText());
    assertEquals("application/json", r.header("Content-Type"));
  }

  @Test
  void shouldPutParametersOfReadCommandsIntoTheHeader() {
    client.json(Call.setup(YtCommand.GET, YtJson.object().put("path", "//tmp"), proxy));
    YtProtocolDouble.Recorded r = yt.requests().get(0);
    assertEquals("GET", r.method());
    assertEquals("//tmp", r.headerParameters().path("path").asText());
  }

  @Test
  void shouldSplitLongParameterHeadersIntoBase64Parts() {
    ObjectNode params = YtJson.object().put("path", "//tmp").put("padding", "x".repeat(20_000));
    client.json(Call.setup(YtCommand.GET, params, proxy));
    YtProtocolDouble.Recorded r = yt.requests().get(0);
    assertNull(r.header("X-YT-Parameters"));
    assertTrue(r.header("X-YT-Parameters0") != null && r.header("X-YT-Parameters5") != null);
    assertEquals(20_000, r.headerParameters().path("padding").asText().length(), "the double reassembled them");
  }

  @Test
  void shouldSendCorrelationIdTokenAndJsonHeaderFormatOnEveryRequest() {
    client.json(Call.setup(YtCommand.GET, YtJson.object().put("path", "//tmp"), proxy));
    client.execute(Call.setup(YtCommand.CREATE, YtJson.object().put("path", "//tmp/x" + System.nanoTime())
        .put("type", "map_node"), proxy).asMutation());
    for (YtProtocolDouble.Recorded r : yt.requests()) {
      assertTrue(r.header("X-YT-Correlation-Id").matches("[0-9a-f-]{36}"), r.header("X-YT-Correlation-Id"));
      assertEquals("OAuth secret", r.header("Authorization"));
      assertEquals("json", r.header("X-YT-Header-Format"));
      assertEquals("json", r.parameters().path("output_format").path("$value").asText());
    }
    ObjectNode create = yt.requests().get(1).parameters();
    assertFalse(create.path("retry").asBoolean(), "first attempt of a mutation has retry=false");
    assertTrue(create.path("mutation_id").asText().matches("[0-9a-f]+-[0-9a-f]+-[0-9a-f]+-[0-9a-f]+"));
  }

  @Test
  void shouldSendNoAuthorizationWithoutAToken() {
    client(Optional.empty()).json(Call.setup(YtCommand.GET, YtJson.object().put("path", "//tmp"), proxy));
    assertNull(yt.requests().get(0).header("Authorization"));
  }

  @Test
  void shouldReturnTheServingProxy() {
    YtHttpClient.Response r = client.execute(Call.setup(YtCommand.GENERATE_TIMESTAMP, YtJson.object(), proxy));
    assertTrue(r.servedBy().startsWith("yt-double-proxy-0"), r.servedBy());
    assertTrue(r.json().path("timestamp").asLong() > 0);
  }

  @Test
  void shouldDiscoverHeavyProxiesFromHosts() {
    assertEquals(yt.proxyAddresses(), client.discoverHeavyProxies(yt.balancerAddress()));
  }

  // ---------------------------------------------------------------- errors

  @Test
  void shouldParseErrorsFromTheHeaderAndSearchInnerErrorsRecursively() {
    YtError nested = YtError.of(1, "Error committing transaction",
        YtError.of(1, "Error preparing", YtError.of(YtError.TRANSACTION_LOCK_CONFLICT, "Row lock conflict")));
    yt.failNext("get", 1, 400, nested);
    CommitConflictException e = assertThrows(CommitConflictException.class,
        () -> client.json(Call.setup(YtCommand.GET, YtJson.object().put("path", "//tmp"), proxy)));
    YtException cause = assertInstanceOf(YtException.class, e.getCause());
    assertEquals(nested, cause.error().orElseThrow());
    assertEquals(List.of(1, 1, 1700), cause.error().orElseThrow().allCodes());
  }

  @Test
  void shouldMapPrerequisiteFailureBeforeItsInnerNoSuchTransaction() {
    yt.failNext("get", 1, 400, YtError.of(YtError.PREREQUISITE_CHECK_FAILED, "Prerequisite check failed",
        YtError.of(YtError.NO_SUCH_TRANSACTION, "No such transaction 1-2-3-4")));
    assertThrows(LeaseLostException.class,
        () -> client.json(Call.setup(YtCommand.GET, YtJson.object().put("path", "//tmp"), proxy)));
  }

  @Test
  void shouldMapNoSuchTransactionAndTabletNotMounted() {
    yt.failNext("get", 1, 400, YtError.of(YtError.NO_SUCH_TRANSACTION, "Sticky transaction is not found"));
    assertThrows(YtTransactionLostException.class,
        () -> client.json(Call.setup(YtCommand.GET, YtJson.object().put("path", "//tmp"), proxy)));
    yt.failNext("get", 4, 400, YtError.of(1, "outer", YtError.of(YtError.TABLET_NOT_MOUNTED, "not mounted")));
    assertThrows(YtTabletNotMountedException.class,
        () -> client.json(Call.setup(YtCommand.GET, YtJson.object().put("path", "//tmp"), proxy)));
    assertEquals(3, sleeps.size(), "1702 is retryable: 4 attempts, 3 backoffs");
  }

  @Test
  void shouldParseAnErrorSentOnlyInTheBodyAndOneDumpedAfterTheSeparator() throws IOException {
    AtomicInteger mode = new AtomicInteger();
    HttpServer stub = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 4);
    stub.createContext("/", ex -> {
      ex.getRequestBody().readAllBytes();
      byte[] body;
      int status;
      if (mode.get() == 0) {
        status = 400;
        body = YtJson.write(YtJson.errorToJson(YtError.of(500, "Node //x has no child", YtError.of(
            YtError.RESOLVE_ERROR, "inner")))).getBytes(StandardCharsets.UTF_8);
      } else {
        status = 200;
        body = ("{\"k\":\"a\"}\n" + "=".repeat(80) + "\n" + YtJson.write(YtJson.errorToJson(YtError.of(1,
            "failed mid-stream", YtError.of(YtError.TABLET_NOT_MOUNTED, "gone")))) + "\n" + "=".repeat(80) + "\n")
            .getBytes(StandardCharsets.UTF_8);
      }
      ex.sendResponseHeaders(status, body.length);
      try (OutputStream out = ex.getResponseBody()) {
        out.write(body);
      }
    });
    stub.start();
    String stubProxy = "127.0.0.1:" + stub.getAddress().getPort();
    try {
      YtException e = assertThrows(YtException.class,
          () -> client.json(Call.setup(YtCommand.GET, YtJson.object().put("path", "//x"), stubProxy)));
      assertTrue(e.hasCode(YtError.RESOLVE_ERROR));
      assertEquals(400, e.httpStatus());
      assertTrue(sleeps.isEmpty(), "a resolve error is final");
      mode.set(1);
      assertThrows(YtTabletNotMountedException.class, () -> client.rows(new Call(YtCommand.LOOKUP_ROWS,
          YtJson.object().put("path", "//x"), List.of(row("a", 1)), stubProxy, Phase.IN_TRANSACTION, null,
          false)));
    } finally {
      stub.stop(0);
    }
  }

  // ---------------------------------------------------------------- retries

  @Test
  void shouldRetryRetryableErrorsBeforeCommitWithTheSameCorrelationIdAndBackoff() {
    yt.failNext("generate_timestamp", 2, 503, YtError.of(YtError.UNAVAILABLE, "unavailable"));
    client.execute(Call.setup(YtCommand.GENERATE_TIMESTAMP, YtJson.object(), proxy));
    List<YtProtocolDouble.Recorded> r = yt.requests();
    assertEquals(3, r.size());
    assertEquals(r.get(0).header("X-YT-Correlation-Id"), r.get(2).header("X-YT-Correlation-Id"));
    assertEquals(2, sleeps.size());
    assertTrue(sleeps.get(0).toMillis() <= 10 && sleeps.get(1).toMillis() <= 20, sleeps.toString());
  }

  @Test
  void shouldMarkRetriesOfMutationsWithTheSameMutationId() {
    yt.failNext("create", 1, 503, YtError.of(YtError.UNAVAILABLE, "unavailable"));
    client.execute(Call.setup(YtCommand.CREATE, YtJson.object().put("path", "//tmp/m" + System.nanoTime())
        .put("type", "map_node"), proxy).asMutation());
    List<YtProtocolDouble.Recorded> r = yt.requests();
    assertEquals(2, r.size());
    assertEquals(r.get(0).parameters().path("mutation_id"), r.get(1).parameters().path("mutation_id"));
    assertFalse(r.get(0).parameters().path("retry").asBoolean());
    assertTrue(r.get(1).parameters().path("retry").asBoolean());
  }

  @Test
  void shouldNeverRetryACommit() {
    yt.failNext("commit_transaction", 1, 503, YtError.of(YtError.UNAVAILABLE, "unavailable"));
    YtException e = assertThrows(YtException.class, () -> client.execute(new Call(YtCommand.COMMIT_TRANSACTION,
        YtJson.object().put("transaction_id", "1-2-3-4"), null, proxy, Phase.COMMIT, null, false)));
    assertTrue(e.hasCode(YtError.UNAVAILABLE));
    assertEquals(1, yt.requests().size());
    assertTrue(sleeps.isEmpty());
  }

  @Test
  void shouldReportALostCommitAnswerAsUnknownOutcome() {
    String tx = client.json(Call.setup(YtCommand.START_TRANSACTION, YtJson.object().put("type", "tablet"), proxy))
        .path("transaction_id").asText();
    yt.dropNext("commit_transaction", true);
    assertThrows(YtCommitOutcomeUnknownException.class, () -> client.execute(new Call(YtCommand.COMMIT_TRANSACTION,
        YtJson.object().put("transaction_id", tx), null, proxy, Phase.COMMIT, null, false)));
    assertEquals(2, yt.requests().size());
  }

  @Test
  void shouldReportATransportFailureInsideATransactionAsLostWithoutRetry() {
    yt.dropNext("lookup_rows", false);
    assertThrows(YtTransactionLostException.class, () -> client.rows(new Call(YtCommand.LOOKUP_ROWS,
        YtJson.object().put("path", "//tmp/none"), List.of(row("a", 1)), proxy, Phase.IN_TRANSACTION, null,
        false)));
    assertEquals(1, yt.requests().size());
    assertTrue(sleeps.isEmpty());
  }

  @Test
  void shouldRetryATransportFailureOutsideTransactions() {
    yt.dropNext("get", false);
    client.json(Call.setup(YtCommand.GET, YtJson.object().put("path", "//tmp"), proxy));
    assertEquals(2, yt.requests().size());
  }

  @Test
  void shouldNotRetryWhenAFinalCodeAccompaniesARetryableOne() {
    YtError mixed = YtError.of(1, "outer", YtError.of(YtError.UNAVAILABLE, "unavailable"),
        YtError.of(YtError.TRANSACTION_LOCK_CONFLICT, "conflict"));
    assertFalse(YtHttpClient.isRetryable(mixed));
    assertTrue(YtHttpClient.isRetryable(YtError.of(1, "x", YtError.of(YtError.ROW_IS_BLOCKED, "blocked"))));
    yt.failNext("get", 1, 400, mixed);
    assertThrows(CommitConflictException.class,
        () -> client.json(Call.setup(YtCommand.GET, YtJson.object().put("path", "//tmp"), proxy)));
    assertEquals(1, yt.requests().size());
  }

  @Test
  void shouldCheckTheServingProxyInsideATransaction() {
    yt.impersonate("elsewhere:80");
    try {
      YtTransactionLostException e = assertThrows(YtTransactionLostException.class, () -> client.execute(new Call(
          YtCommand.GENERATE_TIMESTAMP, YtJson.object(), null, proxy, Phase.IN_TRANSACTION, "pinned:80", false)));
      assertTrue(e.getMessage().contains("elsewhere:80") && e.getMessage().contains("pinned:80"), e.getMessage());
    } finally {
      yt.impersonate(null);
    }
  }

  // ---------------------------------------------------------------- protocol facts the double models

  @Test
  void shouldSeeUnknownParametersSilentlyIgnored() {
    String path = table();
    String lease = client.json(Call.setup(YtCommand.START_TRANSACTION, YtJson.object().put("type", "master"), proxy))
        .path("transaction_id").asText();
    yt.abortMasterTransaction(lease);
    ObjectNode params = YtJson.object().put("path", path).put("no_such_parameter", 1);
    params.putArray("prerequisite_transaction_ids").add(lease);
    client.execute(new Call(YtCommand.INSERT_ROWS, params, List.of(row("a", 1)), proxy, Phase.SETUP, null, false));
    assertEquals(1, yt.rows(path).size(), "insert_rows ignores prerequisite_transaction_ids: no fencing there");
  }

  @Test
  void shouldReturnNullSlotsForMissingKeys() {
    String path = table();
    client.execute(new Call(YtCommand.INSERT_ROWS, YtJson.object().put("path", path), List.of(row("b", 2)), proxy,
        Phase.SETUP, null, false));
    List<JsonNode> rows = client.rows(new Call(YtCommand.LOOKUP_ROWS, YtJson.object().put("path", path)
        .put("keep_missing_rows", true), List.of(YtJson.object().put("k", "a"), YtJson.object().put("k", "b")),
        proxy, Phase.SETUP, null, false));
    assertEquals(2, rows.size());
    assertTrue(rows.get(0).isNull());
    assertEquals(2, rows.get(1).path("v").asLong());
  }

  @Test
  void shouldGetElevenThousandForAStickyTransactionUsedThroughAnotherProxy() {
    String tx = client.json(Call.setup(YtCommand.START_TRANSACTION, YtJson.object().put("type", "tablet"), proxy))
        .path("transaction_id").asText();
    YtTransactionLostException e = assertThrows(YtTransactionLostException.class, () -> client.execute(
        Call.setup(YtCommand.ABORT_TRANSACTION, YtJson.object().put("transaction_id", tx), yt.proxyAddress(1))));
    assertTrue(e.error().orElseThrow().message().contains("Sticky transaction"), e.getMessage());
    assertEquals(1, yt.stickyPoolSize(0));
    client.execute(Call.setup(YtCommand.ABORT_TRANSACTION, YtJson.object().put("transaction_id", tx), proxy));
    assertEquals(0, yt.stickyPoolSize(0));
  }

  @Test
  void shouldNormalizeProxyAddresses() {
    assertEquals("http://h:80/", YtHttpClient.baseUri("h:80").toString());
    assertEquals("https://h/", YtHttpClient.baseUri("https://h/").toString());
  }
}
