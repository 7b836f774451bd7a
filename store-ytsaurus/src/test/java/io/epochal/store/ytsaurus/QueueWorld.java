package io.epochal.store.ytsaurus;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.epochal.codec.Codecs;
import io.epochal.spout.PartitionedMetadata;
import io.epochal.state.opaque.OpaqueTableLayout;
import io.epochal.state.transactional.TransactionalTableLayout;
import io.epochal.store.table.Row;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableStore;
import io.epochal.store.ytsaurus.internal.YtJson;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;

/**
 * A YTsaurus queue on the {@link YtProtocolDouble} (a test double, not YTsaurus) for the queue spout tests: an ordered
 * dynamic table with one string column {@code text} (and {@code $timestamp}), filled with deterministic sentences per
 * tablet, a registered vital consumer, and helpers to count words the way the pipelines do and to read back what a
 * pipeline committed (its counts, its checkpoint's end offsets, the consumer's offsets).
 */
final class QueueWorld {
  private static final JsonNodeFactory N = JsonNodeFactory.instance;

  final YtProtocolDouble yt;
  final String root;
  final String queue;
  final String consumer;

  QueueWorld(YtProtocolDouble yt, int tablets) {
    this.yt = yt;
    this.root = YtDoubleFixture.freshRoot();
    String dir = "//tmp/epochal-queues/" + UUID.randomUUID().toString().replace("-", "");
    this.queue = dir + "/events";
    this.consumer = dir + "/consumer";
    ArrayNode schema = N.arrayNode();
    schema.addObject().put("name", "text").put("type", "string");
    schema.addObject().put("name", "$timestamp").put("type", "uint64");
    yt.createQueue(queue, tablets, schema);
    yt.createConsumer(consumer);
    yt.registerConsumer(queue, consumer, true);
  }

  /** Appends {@code count} sentences to {@code tablet}, numbered from {@code first}. */
  void append(int tablet, int first, int count) {
    List<ObjectNode> rows = new ArrayList<>();
    for (int i = first; i < first + count; i++) {
      rows.add(N.objectNode().put("text", YtJson.textToJson(sentence(tablet, i))));
    }
    yt.appendRows(queue, tablet, rows);
  }

  /** A sentence of 1..4 words over a small vocabulary, so that counts collide across rows and tablets. */
  static String sentence(int tablet, int i) {
    int n = 1 + Math.floorMod(i * 7 + tablet, 4);
    StringBuilder sb = new StringBuilder();
    for (int w = 0; w < n; w++) {
      sb.append(w == 0 ? "" : " ").append("w").append(Math.floorMod(i * 31 + tablet * 17 + w * 5, 23));
    }
    return sb.toString();
  }

  /** The words of every row still in the queue below {@code ends} (all rows when {@code ends} is null). */
  Map<String, Long> recount(Map<Integer, Long> ends, int tablets) {
    Map<String, Long> out = new TreeMap<>();
    for (int t = 0; t < tablets; t++) {
      long end = ends == null ? Long.MAX_VALUE : ends.getOrDefault(t, 0L);
      long first = yt.queueRowCount(queue, t) - yt.queueRows(queue, t).size();
      List<ObjectNode> rows = yt.queueRows(queue, t);
      for (int i = 0; i < rows.size() && first + i < end; i++) {
        for (String w : YtJson.jsonToText(rows.get(i).get("text").asText()).split(" ")) {
          out.merge(w, 1L, Long::sum);
        }
      }
    }
    return out;
  }

  /** A config builder of a spout over this queue through the double's balancer, with fast retries. */
  YtQueueSpoutConfig.Builder<String> spout(String name) {
    return YtQueueSpoutConfig.builder(name, yt.balancerAddress(), queue).token("test-token")
        .decoder(YtRowDecoder.utf8("text")).partitionDiscoveryInterval(Duration.ZERO)
        .retries(3, Duration.ofMillis(1), Duration.ofMillis(5)).requestTimeout(Duration.ofSeconds(10));
  }

  /** A store over the double (pinned mode). */
  YtTableStore.Builder store() {
    return YtDoubleFixture.builder(yt, root);
  }

  static Map<String, Long> counts(TableStore store, String path, boolean transactional) {
    Optional<Table> table = store.findTable(path);
    Map<String, Long> out = new TreeMap<>();
    if (table.isEmpty()) {
      return out;
    }
    TransactionalTableLayout<Long> tx = new TransactionalTableLayout<>(Codecs.longs(), v -> false);
    OpaqueTableLayout<Long> op = new OpaqueTableLayout<>(Codecs.longs(), v -> false);
    try (StoreTransaction t = store.begin()) {
      for (Row row : t.scan(table.get())) {
        out.put(row.getString("word"), transactional ? tx.read(row).value() : op.read(row).curr());
      }
    }
    return out;
  }

  /**
   * The end offset per partition of the last committed batch of {@code pipeline}, read from its checkpoint row (the
   * truth) without taking the pipeline's lease.
   */
  static Map<Integer, Long> committedEnds(TableStore store, String pipeline) {
    Map<Integer, Long> out = new HashMap<>();
    Optional<Table> table = store.findTable("__epochal_checkpoints");
    if (table.isEmpty()) {
      return out;
    }
    Optional<Row> row;
    try (StoreTransaction t = store.begin()) {
      row = t.lookup(table.get(), List.of(table.get().schema().key(pipeline))).get(0);
    }
    if (row.isEmpty() || row.get().getLong("committed_txid") == 0) {
      return out;
    }
    PartitionedMetadata<YtQueueRange> m = PartitionedMetadata.codec(YtQueueRange.codec())
        .decode(row.get().getBytes("metadata"));
    m.partitions().forEach((p, r) -> out.put(Integer.parseInt(p), r.to()));
    return out;
  }

  Map<Integer, Long> consumerOffsets() {
    return yt.consumerOffsets(consumer, queue);
  }
}
