package io.epochal.trident.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.epochal.errors.EpochalException;
import io.epochal.errors.ErrorContext;
import io.epochal.errors.StateCorruptedException;
import io.epochal.store.table.Column;
import io.epochal.store.table.ColumnType;
import io.epochal.store.table.Lease;
import io.epochal.store.table.Row;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableKey;
import io.epochal.store.table.TableSchema;
import io.epochal.store.table.TableStore;
import io.epochal.trident.RangeEmittedTwiceException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The ledger of a guarded spout's emissions: per (spout, partition) one row holding the live emissions that had
 * records, as {@code [txid, start]} pairs ({@code start}: the canonical JSON of the metadata the range started
 * from), for the txids within a window of the current one. {@link #record} checks and writes one batch of one spout
 * task in one store transaction fenced by the task's lease ({@code storm-spout:<table>/<spout>#<task>}).
 *
 * <p>Rule: a range with records whose start equals that of another live txid's range is refused
 * ({@link RangeEmittedTwiceException}); the refusal drops the entries of the refused txid and of every later one
 * (Storm fails them all and replays them in order), so a replay is not refused by its own stale entries. Emissions
 * without records are not recorded (they cannot count anything twice). Not thread-safe: one instance per emitter.
 */
public final class RangeLedger {
  /** The suffix of the ledger table, beside the state's {@code __epochal_partitions}. */
  public static final String SUFFIX = "__epochal_spout_ranges";
  private static final String SPOUT = "spout";
  private static final String PARTITION = "partition";
  private static final String EMISSIONS = "emissions";
  private static final ObjectMapper JSON = new ObjectMapper()
      .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS);
  private static final TypeReference<List<List<Object>>> ENTRIES = new TypeReference<>() {
  };

  private final TableStore store;
  private final Table table;
  private final String spout;
  private final String leaseName;
  private final String owner;
  private final long window;
  private Lease lease;

  /**
   * @param stateTable the state table the ledger sits beside
   * @param window how many txids below the current one an entry stays live (at least the batches in flight)
   */
  public RangeLedger(TableStore store, String stateTable, String spout, int task, String owner, long window) {
    this.store = Objects.requireNonNull(store, "store");
    this.spout = Objects.requireNonNull(spout, "spout");
    this.owner = Objects.requireNonNull(owner, "owner");
    if (window < 1) {
      throw new IllegalArgumentException("window must be >= 1, was " + window);
    }
    this.window = window;
    this.table = store.openTable(schema(stateTable + SUFFIX));
    this.leaseName = "storm-spout:" + stateTable + "/" + spout + "#" + task;
  }

  static TableSchema schema(String path) {
    return TableSchema.builder(path)
        .key(Column.required(SPOUT, ColumnType.STRING))
        .key(Column.required(PARTITION, ColumnType.STRING))
        .value(Column.required(EMISSIONS, ColumnType.STRING))
        .attribute("epochal.layout", "storm-spout-ranges:v1")
        .build();
  }

  /** One partition's emission in a batch. */
  public record Emission(String partition, String start, boolean hasRecords) {
    public Emission {
      Objects.requireNonNull(partition, "partition");
      Objects.requireNonNull(start, "start");
    }
  }

  /** The canonical JSON of a metadata value (map keys sorted), for comparing starts. */
  public static String canonical(Object metadata, String what) {
    try {
      return JSON.writeValueAsString(metadata);
    } catch (JsonProcessingException | RuntimeException e) {
      throw new EpochalException("cannot write " + what + " as JSON to record its range; Storm keeps the same "
          + "metadata in ZooKeeper as JSON, so it must be a JSON value: " + e.getMessage(), e, false,
          ErrorContext.NONE);
    }
  }

  /**
   * Checks and records the emissions of batch {@code txid}.
   *
   * @throws RangeEmittedTwiceException (after recording the refusal) if a range with records starts where another
   *     live txid's range started
   */
  public void record(long txid, List<Emission> emissions) {
    if (emissions.isEmpty()) {
      return;
    }
    if (lease == null) {
      lease = store.acquireLease(leaseName, owner);
    }
    List<TableKey> keys = new ArrayList<>(emissions.size());
    for (Emission e : emissions) {
      keys.add(TableKey.of(table.schema(), spout, e.partition()));
    }
    RangeEmittedTwiceException refused = null;
    try (StoreTransaction tx = store.begin(lease)) {
      List<Optional<Row>> rows = tx.lookup(table, keys);
      Map<TableKey, List<List<Object>>> next = new LinkedHashMap<>();
      for (int i = 0; i < emissions.size() && refused == null; i++) {
        Emission e = emissions.get(i);
        List<List<Object>> live = decode(rows.get(i), e.partition(), txid);
        List<List<Object>> kept = new ArrayList<>(live.size() + 1);
        for (List<Object> entry : live) {
          long t = ((Number) entry.get(0)).longValue();
          if (t != txid && e.hasRecords() && e.start().equals(entry.get(1))) {
            refused = new RangeEmittedTwiceException(table.path(), spout, e.partition(), txid, t, e.start());
          }
          if (t != txid && t > txid - window) {
            kept.add(entry);
          }
        }
        if (e.hasRecords()) {
          kept.add(List.of(txid, e.start()));
        }
        next.put(keys.get(i), kept);
      }
      if (refused != null) {
        // Storm fails this txid and every later one: their entries are stale from now on.
        next.clear();
        for (int i = 0; i < emissions.size(); i++) {
          List<List<Object>> kept = new ArrayList<>();
          for (List<Object> entry : decode(rows.get(i), emissions.get(i).partition(), txid)) {
            long t = ((Number) entry.get(0)).longValue();
            if (t < txid && t > txid - window) {
              kept.add(entry);
            }
          }
          next.put(keys.get(i), kept);
        }
      }
      for (Map.Entry<TableKey, List<List<Object>>> e : next.entrySet()) {
        tx.upsert(table, Row.builder(e.getKey()).set(EMISSIONS, encode(e.getValue())).build());
      }
      tx.commit();
    }
    if (refused != null) {
      throw refused;
    }
  }

  private List<List<Object>> decode(Optional<Row> row, String partition, long txid) {
    if (row.isEmpty()) {
      return List.of();
    }
    String text = row.get().getString(EMISSIONS);
    try {
      List<List<Object>> entries = JSON.readValue(Objects.requireNonNull(text, "emissions column is null"), ENTRIES);
      for (List<Object> entry : entries) {
        if (entry.size() != 2 || !(entry.get(0) instanceof Number) || !(entry.get(1) instanceof String)) {
          throw new IllegalStateException("malformed entry " + entry);
        }
      }
      return entries;
    } catch (JsonProcessingException | RuntimeException e) {
      throw new StateCorruptedException(table.path(), spout + "/" + partition, OptionalLong.of(txid), e);
    }
  }

  private static String encode(List<List<Object>> entries) {
    try {
      return JSON.writeValueAsString(entries);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write ledger entries " + entries, e);
    }
  }

  @Override
  public String toString() {
    return "RangeLedger[" + spout + " in " + table.path() + " on " + store.describe() + "]";
  }
}
