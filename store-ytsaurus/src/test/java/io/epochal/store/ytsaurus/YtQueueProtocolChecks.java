package io.epochal.store.ytsaurus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.epochal.codec.Codecs;
import io.epochal.pipeline.Aggregators;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.state.transactional.TransactionalTableLayout;
import io.epochal.store.table.KeyCodec;
import io.epochal.store.table.TableCheckpointStore;
import io.epochal.store.table.TableStates;
import io.epochal.store.ytsaurus.internal.QueueReader;
import io.epochal.store.ytsaurus.internal.YtCommand;
import io.epochal.store.ytsaurus.internal.YtCypress;
import io.epochal.store.ytsaurus.internal.YtHttpClient.Call;
import io.epochal.store.ytsaurus.internal.YtHttpClient.Phase;
import io.epochal.store.ytsaurus.internal.YtHttpClient;
import io.epochal.store.ytsaurus.internal.YtJson;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * What the queue spout and the {@link YtProtocolDouble} assume about YTsaurus queues over HTTP (research note §5 and
 * the sources cited in {@code QueueReader} and the double), one test per point that is [UNCONFIRMED] or only
 * [inferred]. Subclassed twice: {@code YtLiveTest.QueueUnconfirmed} runs it against a real cluster (only with
 * {@code YT_PROXY}); {@code YtQueueProtocolDoubleTest} runs it against the double, so the checks are known to run and
 * the double is known to answer what they expect. A failure in the live run means the double (and possibly the spout)
 * models that point wrongly.
 */
abstract class YtQueueProtocolChecks {

  /** @return the entry proxy ({@code host:port}) */
  protected abstract String proxy();

  /** @return a fresh Cypress directory for one test */
  protected abstract String freshRoot();

  /** @return the HTTP client (with the token, if any) */
  protected abstract YtHttpClient client();

  /** @return a store builder over {@code root} on the same cluster */
  protected abstract YtTableStore.Builder store(String root);

  /** @return the token for spouts, empty for none */
  protected abstract java.util.Optional<String> token();

  private String heavyProxy() {
    List<String> heavy = client().discoverHeavyProxies(proxy());
    return heavy.isEmpty() ? proxy() : heavy.get(0);
  }

  private YtCypress cypress() {
    return new YtCypress(client(), proxy(), Duration.ofMinutes(2));
  }

  /** Creates and mounts an ordered dynamic table with a {@code text} string column (and {@code $timestamp}). */
  private String createQueue(String dir, boolean timestamp) {
    String path = dir + "/queue";
    ArrayNode schema = YtJson.array();
    schema.addObject().put("name", "text").put("type", "string");
    if (timestamp) {
      schema.addObject().put("name", "$timestamp").put("type", "uint64");
    }
    cypress().createDynamicTable(path, schema, YtJson.object());
    cypress().mountAndWait(path);
    return path;
  }

  private String createConsumer(String dir) {
    String path = dir + "/consumer";
    ObjectNode p = YtJson.object().put("path", path).put("type", "queue_consumer").put("recursive", true);
    client().execute(Call.setup(YtCommand.CREATE, p, proxy()).asMutation());
    cypress().mountAndWait(path);
    return path;
  }

  private void insert(String queue, int tablet, String... texts) {
    List<JsonNode> rows = new ArrayList<>();
    for (String t : texts) {
      rows.add(YtJson.object().put("$tablet_index", tablet).put("text", YtJson.textToJson(t)));
    }
    client().execute(new Call(YtCommand.INSERT_ROWS, YtJson.object().put("path", queue), rows, proxy(), Phase.SETUP,
        null, false));
  }

  private List<JsonNode> pull(String queue, int tablet, long offset, long rows, long weight) {
    return client().rows(Call.setup(YtCommand.PULL_QUEUE, YtJson.object().put("queue_path", queue)
        .put("partition_index", tablet).put("offset", offset).put("max_row_count", rows)
        .put("max_data_weight", weight), proxy()));
  }

  private void advance(String consumer, String queue, int partition, Long oldOffset, long newOffset, String tx,
      String on) {
    ObjectNode p = YtJson.object().put("consumer_path", consumer).put("queue_path", queue)
        .put("partition_index", partition).put("new_offset", newOffset);
    if (oldOffset != null) {
      p.put("old_offset", oldOffset);
    }
    if (tx != null) {
      p.put("transaction_id", tx);
    }
    client().execute(new Call(YtCommand.ADVANCE_QUEUE_CONSUMER, p, null, on,
        tx == null ? Phase.SETUP : Phase.IN_TRANSACTION, null, false));
  }

  private Map<Integer, Long> consumerOffsets(String consumer, String queue) {
    YtQueueSpoutConfig.Builder<YtQueueRow> cfg = YtQueueSpoutConfig.builder("check", proxy(), queue);
    token().ifPresent(cfg::token);
    try (QueueReader reader = new QueueReader(cfg.build())) {
      return new TreeMap<>(reader.consumerOffsets(consumer, 0));
    }
  }

  /** §5 [UNCONFIRMED]: the HTTP create accepts the CLI's {@code queue_consumer} alias and makes a consumer table. */
  @Test
  void createTypeQueueConsumerMakesAConsumerTable() {
    String consumer = createConsumer(freshRoot());
    System.out.println("[queue checks] consumer schema: " + cypress().get(consumer + "/@schema").orElseThrow());
    assertTrue(cypress().get(consumer + "/@treat_as_queue_consumer").orElseThrow().asBoolean());
    List<String> columns = new ArrayList<>();
    JsonNode schema = cypress().get(consumer + "/@schema").orElseThrow();
    (schema.has("$value") ? schema.get("$value") : schema).forEach(c -> columns.add(c.path("name").asText()));
    assertTrue(columns.containsAll(List.of("queue_cluster", "queue_path", "partition_index", "offset")),
        columns.toString());
  }

  /**
   * §5 [UNCONFIRMED/inferred]: pull_queue rows carry {@code $tablet_index}, {@code $row_index} and the columns;
   * {@code $tablet_index} in insert input picks the tablet; a declared {@code $timestamp} column comes along.
   */
  @Test
  void pullQueueRowsCarryTheirIndexesColumnsAndTimestamp() {
    String queue = createQueue(freshRoot(), true);
    insert(queue, 0, "a b", "c");
    List<JsonNode> rows = pull(queue, 0, 0, 10, 1 << 20);
    System.out.println("[queue checks] pull_queue rows: " + rows);
    assertEquals(2, rows.size());
    for (int i = 0; i < 2; i++) {
      assertEquals(i, rows.get(i).get("$row_index").asLong(), rows.toString());
      assertEquals(0, rows.get(i).get("$tablet_index").asLong(), rows.toString());
      assertTrue(rows.get(i).get("$timestamp").isIntegralNumber(), rows.toString());
    }
    assertEquals("a b", YtJson.jsonToText(rows.get(0).get("text").asText()));
    assertEquals(List.of(), pull(queue, 0, 2, 10, 1 << 20), "an offset at the end answers no row");
  }

  /** §5 [inferred from DoPullQueueViaSelectRows]: a pull at a trimmed offset passes over the trimmed rows. */
  @Test
  void pullQueueAtATrimmedOffsetStartsAtTheFirstRowLeft() {
    String queue = createQueue(freshRoot(), false);
    insert(queue, 0, "r0", "r1", "r2", "r3");
    client().execute(Call.setup(YtCommand.TRIM_ROWS, YtJson.object().put("path", queue).put("tablet_index", 0)
        .put("trimmed_row_count", 2), proxy()));
    List<JsonNode> rows = pull(queue, 0, 0, 10, 1 << 20);
    System.out.println("[queue checks] pull_queue at a trimmed offset: " + rows);
    assertFalse(rows.isEmpty());
    assertEquals(2, rows.get(0).get("$row_index").asLong(), rows.toString());
  }

  /**
   * [UNCONFIRMED over HTTP] {@code get_tablet_infos} answers {@code {"tablets": [...]}} in the order of
   * {@code tablet_indexes}, each with {@code total_row_count} (rows ever appended: the end offset the lag report uses)
   * and {@code trimmed_row_count}.
   */
  @Test
  void getTabletInfosCountsTheRowsEverAppendedAndTrimmed() {
    String queue = createQueue(freshRoot(), false);
    insert(queue, 0, "r0", "r1", "r2");
    client().execute(Call.setup(YtCommand.TRIM_ROWS, YtJson.object().put("path", queue).put("tablet_index", 0)
        .put("trimmed_row_count", 1), proxy()));
    ObjectNode p = YtJson.object().put("path", queue);
    p.putArray("tablet_indexes").add(0);
    JsonNode answer = client().json(Call.setup(YtCommand.GET_TABLET_INFOS, p, proxy()));
    System.out.println("[queue checks] get_tablet_infos: " + answer);
    assertEquals(3, answer.path("tablets").path(0).path("total_row_count").asLong(-1), answer.toString());
    assertEquals(1, answer.path("tablets").path(0).path("trimmed_row_count").asLong(-1), answer.toString());
  }

  /** §5: max_row_count and max_data_weight cut the answer (at least one row). */
  @Test
  void pullQueueHonoursTheCaps() {
    String queue = createQueue(freshRoot(), false);
    insert(queue, 0, "one", "two", "three", "four");
    assertEquals(2, pull(queue, 0, 0, 2, 1 << 20).size());
    List<JsonNode> one = pull(queue, 0, 1, 10, 1);
    assertEquals(1, one.size(), "max_data_weight below one row still answers one row: " + one);
    assertEquals(1, one.get(0).get("$row_index").asLong());
  }

  /**
   * §5/§2.4 [UNCONFIRMED]: advance_queue_consumer inside a sticky tablet transaction over HTTP is not visible before
   * the commit, commits with the transaction's other writes, and is dropped with an aborted transaction.
   */
  @Test
  void advanceQueueConsumerCommitsWithItsTabletTransaction() {
    String dir = freshRoot();
    String queue = createQueue(dir, false);
    String consumer = createConsumer(dir);
    insert(queue, 0, "x", "y", "z");
    String heavy = heavyProxy();
    String aborted = startTablet(heavy);
    advance(consumer, queue, 0, 0L, 1, aborted, heavy);
    client().execute(new Call(YtCommand.ABORT_TRANSACTION, YtJson.object().put("transaction_id", aborted), null,
        heavy, Phase.IN_TRANSACTION, null, false));
    assertEquals(Map.of(), consumerOffsets(consumer, queue), "an aborted advance is not visible");
    String tx = startTablet(heavy);
    advance(consumer, queue, 0, 0L, 3, tx, heavy);
    assertEquals(Map.of(), consumerOffsets(consumer, queue), "an uncommitted advance is not visible");
    client().execute(new Call(YtCommand.COMMIT_TRANSACTION, YtJson.object().put("transaction_id", tx), null, heavy,
        Phase.COMMIT, null, false));
    assertEquals(Map.of(0, 3L), consumerOffsets(consumer, queue),
        "the committed advance is found by select_rows on queue_path");
  }

  /** §5 [source: consumer_client.cpp]: a wrong old_offset fails with 3100 carrying current_offset. */
  @Test
  void advanceQueueConsumerWithAWrongOldOffsetFailsWith3100() {
    String dir = freshRoot();
    String queue = createQueue(dir, false);
    String consumer = createConsumer(dir);
    insert(queue, 0, "x", "y", "z");
    advance(consumer, queue, 0, 0L, 2, null, proxy());
    YtException e = assertThrows(YtException.class, () -> advance(consumer, queue, 0, 1L, 3, null, proxy()));
    System.out.println("[queue checks] old-offset mismatch: " + e.getMessage());
    assertTrue(e.hasCode(YtError.CONSUMER_OFFSET_CONFLICT), e.toString());
    Object current = e.error().orElseThrow().find(YtError.CONSUMER_OFFSET_CONFLICT).orElseThrow().attributes()
        .get("current_offset");
    assertEquals(2L, ((Number) current).longValue());
    assertEquals(Map.of(0, 2L), consumerOffsets(consumer, queue));
  }

  /** §5: pull_queue_consumer needs a registration; after it, it answers like pull_queue. */
  @Test
  void pullQueueConsumerNeedsARegistration() throws InterruptedException {
    String dir = freshRoot();
    String queue = createQueue(dir, false);
    String consumer = createConsumer(dir);
    insert(queue, 0, "p", "q");
    ObjectNode pull = YtJson.object().put("consumer_path", consumer).put("queue_path", queue)
        .put("partition_index", 0).put("offset", 0).put("max_row_count", 10).put("max_data_weight", 1 << 20);
    YtException refused = assertThrows(YtException.class,
        () -> client().rows(Call.setup(YtCommand.PULL_QUEUE_CONSUMER, pull, proxy())));
    System.out.println("[queue checks] unregistered pull_queue_consumer: " + refused.getMessage());
    client().execute(Call.setup(YtCommand.REGISTER_QUEUE_CONSUMER, YtJson.object().put("queue_path", queue)
        .put("consumer_path", consumer).put("vital", false), proxy()).asMutation());
    List<JsonNode> rows = null;
    for (int i = 0; i < 60 && rows == null; i++) { // a real cluster caches registrations for a while
      try {
        rows = client().rows(Call.setup(YtCommand.PULL_QUEUE_CONSUMER, pull, proxy()));
      } catch (YtException e) {
        Thread.sleep(500);
      }
    }
    assertEquals(pull(queue, 0, 0, 10, 1 << 20), rows);
  }

  /** §4/§5 [UNCONFIRMED]: an ordered table resharded to more tablets keeps its rows and gains empty tablets. */
  @Test
  void reshardingAnOrderedTableAddsTablets() {
    String queue = createQueue(freshRoot(), false);
    insert(queue, 0, "kept");
    client().execute(Call.setup(YtCommand.UNMOUNT_TABLE, YtJson.object().put("path", queue), proxy()).asMutation());
    for (int i = 0; i < 240 && !cypress().get(queue + "/@tablet_state").orElseThrow().asText().equals("unmounted");
        i++) {
      sleep();
    }
    client().execute(Call.setup(YtCommand.RESHARD_TABLE, YtJson.object().put("path", queue).put("tablet_count", 3),
        proxy()).asMutation());
    cypress().mountAndWait(queue);
    assertEquals(3, cypress().get(queue + "/@tablet_count").orElseThrow().asInt());
    assertEquals(1, pull(queue, 0, 0, 10, 1 << 20).size());
    assertEquals(List.of(), pull(queue, 2, 0, 10, 1 << 20));
  }

  /** End to end: a word count with the consumer advanced in every epoch commit. */
  @Test
  void theSpoutCountsExactlyAndAdvancesTheConsumerInTheEpoch() {
    String dir = freshRoot();
    String queue = createQueue(dir, false);
    String consumer = createConsumer(dir);
    insert(queue, 0, "a b", "b c", "c c");
    try (YtTableStore store = store(dir + "/state").build()) {
      TableCheckpointStore checkpoints = TableCheckpointStore.on(store);
      YtQueueSpoutConfig.Builder<String> cfg = YtQueueSpoutConfig.builder("events", proxy(), queue)
          .decoder(YtRowDecoder.utf8("text")).maxRowsPerPartition(2).consumer(consumer)
          .advanceConsumerIn(store, "live-wc");
      token().ifPresent(cfg::token);
      PipelineBuilder b = Pipeline.newBuilder("live-wc").checkpointStore(checkpoints);
      b.source(YtQueueSpouts.transactional(cfg.build())).flatMap(s -> Arrays.asList(s.split(" "))).groupBy(x -> x)
          .persistentAggregate("counts", TransactionalTableLayout.factory(TableStates.builder(KeyCodec.strings("word"), Codecs.longs())), Aggregators.count());
      try (Pipeline p = b.build()) {
        p.runUntilIdle();
      }
      assertEquals(Map.of("a", 1L, "b", 2L, "c", 3L), QueueWorld.counts(store, "live-wc/counts", true));
      assertEquals(Map.of(0, 3L), consumerOffsets(consumer, queue));
    }
  }

  private String startTablet(String on) {
    return client().json(Call.setup(YtCommand.START_TRANSACTION, YtJson.object().put("type", "tablet")
        .put("sticky", true).put("timeout", 30_000), on)).path("transaction_id").asText();
  }

  private static void sleep() {
    try {
      Thread.sleep(250);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
