package io.epochal.stormcluster;

import io.epochal.state.opaque.OpaqueTableLayout;
import io.epochal.state.opaque.OpaqueValue;
import io.epochal.store.table.Row;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableKey;
import io.epochal.store.table.TableStore;
import io.epochal.trident.EpochalTrident;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A shared store the cluster tests start outside the Storm processes, reachable by every worker JVM: the workers open
 * it through {@link #workerStore()} (serializable, run in each worker), the test reads what the topology committed
 * through {@link #reader()}. Closing stops it. Not thread-safe.
 */
interface ClusterStore extends AutoCloseable {
  /** The store each worker opens (one per worker JVM and store name). */
  EpochalTrident.SerializableSupplier<TableStore> workerStore();

  /** The test's own connection to the store. */
  TableStore reader();

  @Override
  void close() throws IOException;

  /** The committed count of each of {@code words} present in the table (empty before the first commit). */
  default Map<String, Long> counts(List<String> words) {
    Optional<Table> table = reader().findTable(WordCountTopology.TABLE);
    Map<String, Long> out = new TreeMap<>();
    if (table.isEmpty()) {
      return out;
    }
    List<TableKey> keys = new ArrayList<>();
    for (String w : words) {
      keys.add(EpochalTrident.keyCodec().toKey(table.get().schema(), List.of(w)));
    }
    OpaqueTableLayout<Object> layout = new OpaqueTableLayout<>(EpochalTrident.jsonValueCodec(), v -> false);
    List<Optional<Row>> rows = reader().lookup(table.get(), keys);
    for (int i = 0; i < words.size(); i++) {
      if (rows.get(i).isPresent()) {
        out.put(words.get(i), ((Number) read(layout, words.get(i), rows.get(i).get()).curr()).longValue());
      }
    }
    return out;
  }

  /**
   * One committed cell; a cell that does not decode fails with its raw bytes (one run once failed here inside
   * jackson-core, not reproduced since: the bytes tell a torn or foreign value from a parser fault).
   */
  private static OpaqueValue<Object> read(OpaqueTableLayout<Object> layout, String word, Row row) {
    try {
      return layout.read(row);
    } catch (RuntimeException e) {
      throw new AssertionError("the committed cell of word " + word + " does not decode (thread "
          + Thread.currentThread().getName() + "): value " + hex(row.getBytes("value")) + ", prev_value "
          + hex(row.getBytes("prev_value")) + ", txid " + row.getLong("txid"), e);
    }
  }

  private static String hex(byte[] bytes) {
    return bytes == null ? "null" : java.util.HexFormat.of().formatHex(bytes) + " ("
        + new String(bytes, java.nio.charset.StandardCharsets.UTF_8) + ")";
  }

  /**
   * For failure messages: the state partitions' markers (committed txid, undo size) and the spout's range ledger,
   * read through the store.
   */
  default String progress(int statePartitions, int spoutPartitions) {
    StringBuilder b = new StringBuilder();
    try {
      Optional<Table> markers = reader().findTable(WordCountTopology.TABLE + "__epochal_partitions");
      if (markers.isPresent()) {
        List<TableKey> keys = new ArrayList<>();
        for (long p = 0; p < statePartitions; p++) {
          keys.add(TableKey.of(markers.get().schema(), p));
        }
        List<Optional<Row>> rows = reader().lookup(markers.get(), keys);
        for (int p = 0; p < statePartitions; p++) {
          b.append("  state partition ").append(p).append(": ").append(rows.get(p).map(r -> "txid "
              + r.getLong("txid") + ", undo " + r.getBytes("undo").length + " bytes").orElse("no marker"))
              .append('\n');
        }
      }
      Optional<Table> ranges = reader().findTable(WordCountTopology.TABLE + "__epochal_spout_ranges");
      if (ranges.isPresent()) {
        for (int p = 0; p < spoutPartitions; p++) {
          Optional<Row> r = reader().lookup(ranges.get(), List.of(TableKey.of(ranges.get().schema(), "sentences",
              "sentences-" + p))).get(0);
          b.append("  spout partition ").append(p).append(" ranges: ")
              .append(r.map(x -> x.getString("emissions")).orElse("none")).append('\n');
        }
      }
    } catch (RuntimeException e) {
      b.append("  (cannot read the markers or ranges: ").append(e).append(")\n");
    }
    return b.toString();
  }
}
