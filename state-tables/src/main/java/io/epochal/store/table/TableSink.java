package io.epochal.store.table;

import io.epochal.api.Evolving;
import io.epochal.codec.Codec;
import io.epochal.errors.EpochalException;
import io.epochal.errors.ErrorContext;
import io.epochal.errors.InvalidRecordException;
import io.epochal.errors.StagingUnavailableException;
import io.epochal.sink.Sink;
import io.epochal.sink.SinkContext;
import io.epochal.state.Epoch;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * An output into a table of the pipeline's own table store, committed <b>inside the epoch</b>: each batch's records
 * are upserted as rows {@code (key…, value, txid)} into the epoch's {@link EpochBuffer}, so they become durable in the
 * same store transaction as the state rows, every source's metadata and the txid, and a failed attempt leaves
 * nothing. Exactly-once without an outbox: a replayed batch stages its rows again into a new epoch.
 *
 * <pre>{@code
 * counts.newValuesStream().to("latest", TableSink.upserts("wc/latest", KeyCodec.strings("word"), KeyValue::key,
 *     Codecs.longs(), KeyValue::value));
 * }</pre>
 *
 * <p>Within a batch the last record of a key wins (records are staged once per batch, in stream order). The table
 * holds the key columns of the key codec, {@code value} (the value codec's bytes) and {@code txid} (the batch that
 * wrote the row); its layout and codec ids are recorded in its attributes, so reopening it with another codec is
 * refused. The table is claimed for this sink in the checkpoint store's claim registry at the first batch, so a state
 * or another sink writing it fails loudly. The pipeline's checkpoint store must offer an atomic {@link EpochBuffer}
 * (a {@link TableCheckpointStore} on a store with atomic multi-table commits): otherwise the first batch fails with
 * {@link StagingUnavailableException}, or a non-retryable error under the per-key protocol, never writing through.
 *
 * <p>Thread-safe: the engine stages one batch at a time.
 *
 * @param <T> the record type
 * @since 0.4.0
 */
@Evolving
public final class TableSink<T> implements Sink<T> {
  private static final String VALUE = "value";
  private static final String TXID = "txid";

  private final String path;
  private final KeyCodec<Object> keys;
  private final Function<? super T, ?> keyFn;
  private final Codec<Object> values;
  private final Function<? super T, ?> valueFn;
  private volatile String name = "?";
  private Table table;

  @SuppressWarnings("unchecked")
  private TableSink(String path, KeyCodec<?> keys, Function<? super T, ?> keyFn, Codec<?> values,
      Function<? super T, ?> valueFn) {
    this.path = Objects.requireNonNull(path, "path");
    if (path.isBlank()) {
      throw new IllegalArgumentException("table path must not be blank");
    }
    this.keys = (KeyCodec<Object>) Objects.requireNonNull(keys, "keys");
    this.keyFn = Objects.requireNonNull(keyFn, "keyFn");
    this.values = (Codec<Object>) Objects.requireNonNull(values, "values");
    this.valueFn = Objects.requireNonNull(valueFn, "valueFn");
  }

  /**
   * A sink upserting {@code valueFn(record)} under {@code keyFn(record)} into table {@code path}.
   *
   * @param <T> the record type
   * @param <K> the key type
   * @param <V> the value type
   * @param path the table's path in the pipeline's table store, used as given (no table prefix is added)
   * @param keys maps the keys to the table's key columns; its id is recorded as attribute {@code epochal.key}
   * @param keyFn the key of a record; a null key fails the batch with {@link InvalidRecordException}
   * @param values encodes the values into the {@code value} column; its id is recorded as attribute
   *     {@code epochal.codec}
   * @param valueFn the value of a record; a null value fails the batch with
   *     {@link InvalidRecordException}
   * @return the sink, to pass to {@code stream.to(name, sink)}
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code path} is blank
   */
  public static <T, K, V> TableSink<T> upserts(String path, KeyCodec<K> keys, Function<? super T, ? extends K> keyFn,
      Codec<V> values, Function<? super T, ? extends V> valueFn) {
    return new TableSink<>(path, keys, keyFn, values, valueFn);
  }

  /**
   * The schema of the sink's table, which the first batch opens (creating the table if missing).
   *
   * @return the schema: the key codec's columns, then required {@code value bytes} and {@code txid int64}, and the
   *     layout, key and codec ids as attributes
   */
  public TableSchema schema() {
    TableSchema.Builder b = TableSchema.builder(path);
    for (Column c : keys.columns()) {
      b.key(c);
    }
    return b.value(Column.required(VALUE, ColumnType.BYTES)).value(Column.required(TXID, ColumnType.INT64))
        .attribute("epochal.layout", "table-sink:v1").attribute("epochal.key", keys.id())
        .attribute("epochal.codec", values.id()).build();
  }

  @Override
  public void open(SinkContext context) {
    name = context.sink();
  }

  @Override
  public synchronized void stage(Epoch epoch, List<T> records) {
    EpochBuffer buffer = epoch.staging(EpochBuffer.class).orElseThrow(() -> new StagingUnavailableException(
        epoch.pipeline(), path, EpochBuffer.class.getSimpleName(), "the pipeline's checkpoint store"));
    if (!buffer.atomic()) {
      throw new EpochalException("Pipeline '" + epoch.pipeline() + "': table sink '" + name + "' writes table "
          + path + " inside the epoch, but the pipeline's checkpoint store runs the " + buffer.protocol()
          + " protocol on " + buffer.store().describe() + ", which would write each batch's rows on their own. Use a "
          + "store with atomic multi-table commits (RocksDB, PostgreSQL, YTsaurus pinned proxy, in-memory).", null,
          false, ErrorContext.of(path, null).withPipeline(epoch.pipeline()).withTxid(epoch.txid()));
    }
    if (table == null) {
      buffer.claim(path, "sink '" + name + "' of pipeline '" + epoch.pipeline() + "'"); // before touching the table
      table = buffer.store().openTable(schema());
    }
    Map<TableKey, Row> rows = new LinkedHashMap<>();
    for (T record : records) {
      Object key = keyFn.apply(record);
      Object value = valueFn.apply(record);
      if (key == null || value == null) {
        throw new InvalidRecordException("table sink '" + name + "' of pipeline '" + epoch.pipeline() + "' got a null "
            + (key == null ? "key" : "value") + " for record " + record + " (txid " + epoch.txid() + ")", null,
            ErrorContext.of(path, key).withPipeline(epoch.pipeline()).withTxid(epoch.txid()));
      }
      TableKey k = keys.toKey(table.schema(), key);
      rows.remove(k); // the last record of a key wins, in its own position
      rows.put(k, Row.builder(k).set(VALUE, values.encode(value)).set(TXID, epoch.txid()).build());
    }
    if (!rows.isEmpty()) {
      buffer.write(table, new ArrayList<>(rows.values()), List.of());
    }
  }

  @Override
  public String describe() {
    return "table sink into " + path;
  }

  @Override
  public String toString() {
    return "TableSink[" + path + "]";
  }
}
