package io.epochal.examples;

import io.epochal.codec.Codec;
import io.epochal.codec.Codecs;
import io.epochal.state.MapState;
import io.epochal.state.StateFactory;
import io.epochal.state.opaque.OpaqueTableLayout;
import io.epochal.state.transactional.TransactionalTableLayout;
import io.epochal.store.Checkpoint;
import io.epochal.store.CheckpointStore;
import io.epochal.store.table.KeyCodec;
import io.epochal.store.table.Row;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableCheckpointStore;
import io.epochal.store.table.TableStates;
import io.epochal.store.table.TableStore;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Example states on a table store (in-memory tables, RocksDB or YTsaurus): rows {@code (hash, key, value, txid)} or
 * {@code (hash, key, value, prev_value, txid)} committed with the checkpoint by the epoch protocol when the store is
 * atomic.
 */
final class TableExampleStore implements ExampleStore {
  private static final Codec<Long> LONGS = Codecs.longs();
  private static final Codec<String> STRINGS = Codecs.strings();

  private final TableStore store;
  private final String description;
  private final TableCheckpointStore checkpoints;
  private final String pipeline;

  TableExampleStore(TableStore store, String description, String pipeline) {
    this.store = store;
    this.description = description;
    this.pipeline = pipeline;
    try {
      this.checkpoints = TableCheckpointStore.on(store);
    } catch (RuntimeException e) {
      store.close(); // the store was opened for this example store: release it (and its directory)
      throw e;
    }
  }

  @Override
  public CheckpointStore checkpoints(RandomFaults faults) {
    return faults.wrap(checkpoints);
  }

  @Override
  public StateFactory<MapState<String, Long>> counts(String name, String kind, RandomFaults faults) {
    return factory(TableStates.builder(KeyCodec.strings(), LONGS).emptyValue(0L), kind, faults);
  }

  @Override
  public StateFactory<MapState<String, String>> strings(String name, String kind, RandomFaults faults) {
    return factory(TableStates.builder(KeyCodec.strings(), STRINGS), kind, faults);
  }

  private static <V> StateFactory<MapState<String, V>> factory(TableStates.Builder<String, V> builder, String kind,
      RandomFaults faults) {
    builder.layer(faults::wrap);
    return kind.equals("opaque") ? OpaqueTableLayout.factory(builder) : TransactionalTableLayout.factory(builder);
  }

  @Override
  public Map<String, Object> read(String name) {
    Map<String, Object> out = new LinkedHashMap<>();
    for (Row row : rows(pipeline + "/" + name)) {
      out.put(row.key().get("key").toString(), LONGS.decode(row.getBytes("value")));
    }
    return out;
  }

  /** Every row of table {@code path}, in key order. */
  List<Row> rows(String path) {
    Optional<Table> table = store.findTable(path);
    if (table.isEmpty()) {
      return List.of();
    }
    try (StoreTransaction tx = store.begin()) {
      List<Row> rows = tx.scan(table.get());
      tx.abort();
      return rows;
    }
  }

  @Override
  public String describe() {
    return description + ", " + checkpoints.protocol() + " protocol";
  }

  @Override
  public Checkpoint checkpoint(String pipeline) {
    return checkpoints.load(pipeline);
  }

  /** The table checkpoint store itself, without the run's faults (Flow states and timers bind to it). */
  TableCheckpointStore tableCheckpoints() {
    return checkpoints;
  }

  long committedTxid() {
    return checkpoints.load(pipeline).committedTxid();
  }

  @Override
  public void close() {
    store.close();
  }
}
