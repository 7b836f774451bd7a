package io.epochal.store.ytsaurus.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.epochal.store.ytsaurus.YtError;
import io.epochal.store.ytsaurus.YtException;
import io.epochal.store.ytsaurus.YtQueueException;
import io.epochal.store.ytsaurus.YtQueueRow;
import io.epochal.store.ytsaurus.YtQueueSpoutConfig;
import io.epochal.store.ytsaurus.YtQueueUnavailableException;
import io.epochal.store.ytsaurus.internal.YtHttpClient.Call;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * A queue spout's view of its queue through the HTTP API v4 (research note §5): the tablet count
 * ({@code get <queue>/@tablet_count}), rows ({@code pull_queue}, or {@code pull_queue_consumer} when configured),
 * the consumer's offsets ({@code select_rows} on the consumer table) and the row counts per tablet
 * ({@code get_tablet_infos}, for the lag report).
 *
 * <p><b>Rows.</b> A pull at {@code offset} answers the rows of the tablet from {@code offset} on, at most
 * {@code max_row_count} rows and about {@code max_data_weight} bytes, possibly fewer (only an empty answer means
 * "nothing there"). YTsaurus serves it as {@code select * ... where [$tablet_index] = i and [$row_index] between ...},
 * falling back to {@code [$row_index] >= offset limit n} when that range is empty, so rows trimmed at {@code offset}
 * are passed over silently: the first row then carries a {@code $row_index} above {@code offset} (repo
 * {@code yt/yt/ytlib/api/native/client_dynamic_tables_impl.cpp}, {@code DoPullQueueImpl}, {@code
 * DoPullQueueViaSelectRows}). Each row must therefore carry {@code $row_index} — the queue rowset's start offset is
 * read from it ({@code yt/yt/client/queue_client/queue_rowset.cpp}, {@code GetStartOffset}) — and the reader refuses
 * an answer without it instead of guessing offsets, which would mislabel rows after a trim. [inferred from that code;
 * {@code YtLiveTest} checks the JSON shape on a real cluster.] Rows must be consecutive and belong to the tablet
 * asked for ({@code $tablet_index}, when present).
 *
 * <p>Failures: no answer after the client's retries → {@link YtQueueUnavailableException} (retryable); any other
 * {@link YtException} → {@link YtQueueException} with its retryability; an answer that breaks the rules above → a
 * non-retryable {@link YtQueueException}.
 *
 * <p>Thread-safe (no mutable state besides the thread-safe HTTP client).
 */
public final class QueueReader implements AutoCloseable {
  static final String ROW_INDEX = "$row_index";
  static final String TABLET_INDEX = "$tablet_index";
  static final String TIMESTAMP = "$timestamp";

  private final String spout;
  private final String proxy;
  private final String queue;
  private final YtQueueSpoutConfig<?> config;
  private final YtHttpClient client;

  /**
   * Makes the reader of the spout's queue.
   *
   * @param config the spout's settings
   */
  public QueueReader(YtQueueSpoutConfig<?> config) {
    this.config = config;
    this.spout = config.name();
    this.proxy = config.proxy();
    this.queue = config.queuePath();
    this.client = new YtHttpClient(new YtHttpClient.Settings(
        config.token().isPresent() ? config.token()
            : YtAuth.resolveToken(System.getenv(), Path.of(System.getProperty("user.home", "."))),
        config.connectTimeout(), config.requestTimeout(), config.maxAttempts(), config.initialBackoff(),
        config.maxBackoff(), config.sleeper()));
  }

  private RuntimeException wrap(YtException e, String doing, int partition, long offset, long txid) {
    if (e.httpStatus() == 0 || e.httpStatus() == 503 || e.httpStatus() == 429) {
      return new YtQueueUnavailableException("YTsaurus queue spout '" + spout + "': no answer from " + proxy
          + " while " + doing + " (after " + config.maxAttempts() + " attempts): " + e.getMessage(), e, spout, queue,
          partition, txid);
    }
    String hint = e.hasCode(YtError.RESOLVE_ERROR) ? " (does it exist?)"
        : e.hasCode(YtError.AUTHORIZATION_ERROR) ? " (permission or consumer registration missing?)" : "";
    return new YtQueueException("YTsaurus queue spout '" + spout + "': " + doing + " failed" + hint + ": "
        + e.getMessage(), e, e.retryable(), spout, queue, partition, offset, txid, null);
  }

  private YtQueueException malformed(String doing, int partition, long offset, long txid, String what) {
    return new YtQueueException("YTsaurus queue spout '" + spout + "': the answer to " + doing + " " + what
        + "; the spout does not guess offsets", null, false, spout, queue, partition, offset, txid, null);
  }

  /**
   * Reads how many tablets the queue has.
   *
   * @param txid the batch being cut, for errors
   * @return the queue's tablet count (its partitions are {@code 0 .. count-1})
   */
  public int tabletCount(long txid) {
    String doing = "reading " + queue + "/@tablet_count";
    JsonNode answer;
    try {
      answer = client.json(Call.setup(YtCommand.GET, YtJson.object().put("path", queue + "/@tablet_count"), proxy));
    } catch (YtException e) {
      throw wrap(e, doing, -1, -1, txid);
    }
    JsonNode value = answer.get("value");
    if (value == null || !value.isIntegralNumber() || value.asLong() < 1 || value.asLong() > Integer.MAX_VALUE) {
      throw malformed(doing, -1, -1, txid, "is not a positive tablet count: " + answer);
    }
    return value.asInt();
  }

  /** The row counts of one tablet: every row ever appended (the end offset) and the rows trimmed from its start. */
  record TabletRows(long total, long trimmed) {
  }

  /**
   * The row counts of tablets {@code 0 .. count-1}: {@code get_tablet_infos} with {@code tablet_indexes}, answering
   * {@code {"tablets": [{"total_row_count": n, "trimmed_row_count": m, ...}, ...]}} in the order asked. [UNCONFIRMED
   * over HTTP: the shape the YTsaurus Java and Python clients read; the protocol double models it so, and
   * {@code YtLiveTest} checks it on a real cluster.]
   *
   * @param count the tablet count
   * @return the counts, by tablet index
   */
  List<TabletRows> tabletRows(int count) {
    String doing = "reading the row counts of the " + count + " tablets of " + queue;
    ObjectNode p = YtJson.object().put("path", queue);
    ArrayNode indexes = p.putArray("tablet_indexes");
    for (int i = 0; i < count; i++) {
      indexes.add(i);
    }
    JsonNode answer;
    try {
      answer = client.json(Call.setup(YtCommand.GET_TABLET_INFOS, p, proxy));
    } catch (YtException e) {
      throw wrap(e, doing, -1, -1, 0);
    }
    JsonNode tablets = answer.get("tablets");
    if (tablets == null || !tablets.isArray() || tablets.size() != count) {
      throw malformed(doing, -1, -1, 0, "does not list " + count + " tablets: " + answer);
    }
    List<TabletRows> out = new ArrayList<>(count);
    for (JsonNode t : tablets) {
      JsonNode total = t.get("total_row_count");
      JsonNode trimmed = t.get("trimmed_row_count");
      if (total == null || !total.isIntegralNumber() || trimmed == null || !trimmed.isIntegralNumber()
          || total.asLong() < trimmed.asLong() || trimmed.asLong() < 0) {
        throw malformed(doing, out.size(), -1, 0, "has no valid total_row_count and trimmed_row_count: " + t);
      }
      out.add(new TabletRows(total.asLong(), trimmed.asLong()));
    }
    return out;
  }

  /**
   * Pulls rows of one partition.
   *
   * @param partition the tablet index
   * @param offset the first offset wanted
   * @param maxRows at most this many rows
   * @param maxBytes about this much data weight
   * @param txid the batch, for errors
   * @return the rows, consecutive, in offset order; the first one's offset may lie above {@code offset} (trimmed)
   */
  public List<YtQueueRow> pull(int partition, long offset, long maxRows, long maxBytes, long txid) {
    ObjectNode p = YtJson.object().put("queue_path", queue).put("partition_index", partition).put("offset", offset)
        .put("max_row_count", maxRows).put("max_data_weight", maxBytes).put("dump_error_into_response", true);
    YtCommand command = YtCommand.PULL_QUEUE;
    if (config.readThroughConsumer()) {
      p.put("consumer_path", config.consumerPath().orElseThrow());
      command = YtCommand.PULL_QUEUE_CONSUMER;
    }
    String doing = command.wireName() + " of partition " + partition + " at offset " + offset;
    List<JsonNode> answer;
    try {
      answer = client.rows(new Call(command, p, null, proxy, YtHttpClient.Phase.SETUP, null, false));
    } catch (YtException e) {
      throw wrap(e, doing, partition, offset, txid);
    }
    if (answer.size() > maxRows) {
      throw malformed(doing, partition, offset, txid, "holds " + answer.size() + " rows, more than the "
          + maxRows + " asked for");
    }
    List<YtQueueRow> rows = new ArrayList<>(answer.size());
    long expected = -1;
    for (JsonNode node : answer) {
      if (node == null || !node.isObject()) {
        throw malformed(doing, partition, offset, txid, "holds a line that is not a row: " + node);
      }
      JsonNode index = node.get(ROW_INDEX);
      if (index == null || !index.isIntegralNumber()) {
        throw malformed(doing, partition, offset, txid, "has a row without an integer " + ROW_INDEX + " column: "
            + node);
      }
      long at = index.asLong();
      if (expected < 0 ? at < offset : at != expected) {
        throw malformed(doing, partition, offset, txid, "has row " + at + " where row "
            + (expected < 0 ? ">= " + offset : Long.toString(expected)) + " was due");
      }
      JsonNode tablet = node.get(TABLET_INDEX);
      if (tablet != null && !tablet.isNull() && tablet.asLong() != partition) {
        throw malformed(doing, partition, offset, txid, "has a row of tablet " + tablet + ": " + node);
      }
      rows.add(toRow(node, partition, at, doing, txid));
      expected = at + 1;
    }
    return rows;
  }

  private YtQueueRow toRow(JsonNode node, int partition, long at, String doing, long txid) {
    OptionalLong timestamp = OptionalLong.empty();
    JsonNode ts = node.get(TIMESTAMP);
    if (ts != null && ts.isIntegralNumber()) {
      timestamp = OptionalLong.of(ts.bigIntegerValue().longValue());
    }
    LinkedHashMap<String, Object> columns = new LinkedHashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      if (e.getKey().startsWith("$")) {
        continue;
      }
      JsonNode v = e.getValue();
      Object value;
      if (v.isNull()) {
        value = null;
      } else if (v.isTextual()) {
        try {
          value = YtJson.jsonToBytes(v.asText());
        } catch (IllegalArgumentException bad) {
          throw malformed(doing, partition, at, txid, "has column " + e.getKey() + " of row " + at
              + " that is not a byte string: " + bad.getMessage());
        }
      } else if (v.isIntegralNumber()) {
        value = v.bigIntegerValue().longValue();
      } else if (v.isNumber()) {
        value = v.asDouble();
      } else if (v.isBoolean()) {
        value = v.asBoolean();
      } else {
        value = new YtQueueRow.Composite(YtJson.write(v));
      }
      columns.put(e.getKey(), value);
    }
    return YtQueueRow.of(partition, at, timestamp, columns);
  }

  /**
   * The consumer's offsets of this queue: {@code select_rows "* FROM [consumer] WHERE [queue_path] = queue"}, one row
   * per partition it ever advanced ({@code partition_index}, {@code offset}; a null offset reads 0). [UNCONFIRMED:
   * that the consumer row's {@code queue_path} is the queue path as given to {@code advance_queue_consumer};
   * {@code YtLiveTest} checks it.]
   *
   * @param consumer the consumer's path
   * @param txid the batch, for errors
   * @return offset per partition; a partition without a row is absent (its offset is 0)
   */
  public Map<Integer, Long> consumerOffsets(String consumer, long txid) {
    String query = "* FROM [" + consumer + "] WHERE [queue_path] = \"" + queue + "\"";
    ObjectNode p = YtJson.object().put("query", query).put("fail_on_incomplete_result", true)
        .put("dump_error_into_response", true);
    String doing = "reading the offsets of consumer " + consumer;
    List<JsonNode> rows;
    try {
      rows = client.rows(new Call(YtCommand.SELECT_ROWS, p, null, proxy, YtHttpClient.Phase.SETUP, null, false));
    } catch (YtException e) {
      throw wrap(e, doing, -1, -1, txid);
    }
    Map<Integer, Long> out = new HashMap<>();
    for (JsonNode row : rows) {
      JsonNode partition = row == null ? null : row.get("partition_index");
      JsonNode offset = row == null ? null : row.get("offset");
      if (partition == null || !partition.isIntegralNumber() || offset == null
          || !(offset.isNull() || offset.isIntegralNumber())) {
        throw malformed(doing, -1, -1, txid, "has a row without integer partition_index and offset: " + row);
      }
      out.put(partition.asInt(), offset.isNull() ? 0L : offset.asLong());
    }
    return out;
  }

  @Override
  public void close() {
    client.close();
  }
}
