package io.epochal.trident.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
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
import io.epochal.trident.RangeGapException;
import io.epochal.trident.StaleBatchException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The ledger of a guarded spout's emissions: per (spout, partition) one row holding the highest txid the partition
 * emitted, the batches in flight of the emitter that emitted it, and the live emissions as {@code [txid, start, end,
 * records]} ({@code start}/{@code end}: the canonical JSON of the metadata the range started from and ended at) for
 * the txids within a window of the current one. {@link #record} checks and writes one batch of one spout task in one
 * store transaction fenced by the task's lease ({@code storm-spout:<table>/<spout>#<task>}).
 *
 * <p>Rules, in order; a refused batch writes nothing unless said:
 * <ol>
 *   <li>a txid more than the batches in flight below the highest one is stale ({@link StaleBatchException}): only a
 *       stale coordinator sends it, and Storm's executor would continue the next batch from its emission;</li>
 *   <li>a range must start where the range of the partition's previous recorded txid ended
 *       ({@link RangeGapException}): otherwise the records between them would be lost or repeated;</li>
 *   <li>a range with records whose start equals that of another live txid's range is refused
 *       ({@link RangeEmittedTwiceException}, STORM-1557); the refusal drops the entries of the refused txid and of
 *       every later one (Storm fails them all and replays them in order), so a replay is not refused by its own stale
 *       entries.</li>
 * </ol>
 * A row written by the first version (a bare list of {@code [txid, start]}) is read as entries without an end (the
 * gap rule skips them) and the highest txid among them. Not thread-safe: one instance per emitter.
 */
public final class RangeLedger {
  /** The suffix of the ledger table, beside the state's {@code __epochal_partitions}. */
  public static final String SUFFIX = "__epochal_spout_ranges";
  private static final String SPOUT = "spout";
  private static final String PARTITION = "partition";
  private static final String EMISSIONS = "emissions";
  private static final ObjectMapper JSON = new ObjectMapper()
      .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS);

  private final TableStore store;
  private final Table table;
  private final String spout;
  private final String leaseName;
  private final String owner;
  private final long inFlight;
  private final long window;
  private Lease lease;

  /**
   * Opens (creating it if needed) the ledger table {@code <stateTable>__epochal_spout_ranges} of one spout task. The
   * task's lease is acquired at the first {@link #record}.
   *
   * @param store the state's table store, which holds the ledger table
   * @param stateTable the state table the ledger sits beside
   * @param spout the guarded spout's name: the ledger's {@code spout} key column
   * @param task the spout task's index; part of the lease's name, so that each task fences its own writes
   * @param owner who holds the lease (topology, spout, task and process), for the lease's record and its errors
   * @param inFlight the batches Storm keeps in flight ({@code topology.max.spout.pending}, at least 1)
   * @throws NullPointerException if {@code store}, {@code spout} or {@code owner} is null
   * @throws IllegalArgumentException if {@code inFlight < 1}
   */
  public RangeLedger(TableStore store, String stateTable, String spout, int task, String owner, long inFlight) {
    this.store = Objects.requireNonNull(store, "store");
    this.spout = Objects.requireNonNull(spout, "spout");
    this.owner = Objects.requireNonNull(owner, "owner");
    if (inFlight < 1) {
      throw new IllegalArgumentException("inFlight must be >= 1, was " + inFlight);
    }
    this.inFlight = inFlight;
    this.window = 2 * inFlight + 2;
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

  /**
   * One partition's emission in a batch.
   *
   * @param partition the spout partition id
   * @param start the canonical JSON of the metadata the range started from
   * @param end the canonical JSON of the metadata it ended at, or empty if the emitter returned none
   * @param hasRecords whether the range moved (its end differs from its start) and the batch sent tuples; only such a
   *     range is refused as emitted twice
   */
  public record Emission(String partition, String start, Optional<String> end, boolean hasRecords) {
    /**
     * Validates an emission.
     *
     * @param partition the spout partition id
     * @param start the canonical JSON of the start metadata
     * @param end the canonical JSON of the end metadata, or empty
     * @param hasRecords whether the range moved and the batch sent tuples
     * @throws NullPointerException if {@code partition}, {@code start} or {@code end} is null
     */
    public Emission {
      Objects.requireNonNull(partition, "partition");
      Objects.requireNonNull(start, "start");
      Objects.requireNonNull(end, "end");
    }
  }

  /** One recorded emission. */
  private record Entry(long txid, String start, String end, boolean records) {
  }

  /** A partition's row: the highest txid emitted, the in-flight of its emitter, the live entries. */
  private record Recorded(long highest, long inFlight, List<Entry> entries) {
    static final Recorded NONE = new Recorded(Long.MIN_VALUE, 0, List.of());

    Optional<Entry> previous(long txid) {
      Entry best = null;
      for (Entry e : entries) {
        if (e.txid() < txid && (best == null || e.txid() > best.txid())) {
          best = e;
        }
      }
      return Optional.ofNullable(best);
    }
  }

  /**
   * The canonical JSON of a metadata value (map keys sorted), for comparing starts.
   *
   * @param metadata a partition's metadata as the wrapped emitter returned it; must be a JSON value
   * @param what names the metadata in the error message (e.g. {@code the start metadata of partition p0})
   * @return the metadata as JSON, with map entries ordered by key
   * @throws EpochalException (not retryable) if the metadata cannot be written as JSON
   */
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
   * @param txid the batch's txid
   * @param emissions the range of every partition the batch emitted; nothing is checked or written if empty
   * @throws StaleBatchException if {@code txid} is more than the batches in flight below a partition's highest txid
   * @throws RangeGapException if a range does not start where the partition's previous txid's range ended
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
      List<Recorded> recorded = new ArrayList<>(emissions.size());
      for (int i = 0; i < emissions.size(); i++) {
        Recorded r = decode(rows.get(i), emissions.get(i).partition(), txid);
        checkContinuity(txid, emissions.get(i), r);
        recorded.add(r);
      }
      Map<TableKey, Recorded> next = new LinkedHashMap<>();
      for (int i = 0; i < emissions.size() && refused == null; i++) {
        Emission e = emissions.get(i);
        Recorded r = recorded.get(i);
        List<Entry> kept = new ArrayList<>(r.entries().size() + 1);
        for (Entry entry : r.entries()) {
          if (entry.txid() != txid && entry.records() && e.hasRecords() && e.start().equals(entry.start())) {
            refused = new RangeEmittedTwiceException(table.path(), spout, e.partition(), txid, entry.txid(),
                e.start());
          }
          if (entry.txid() != txid && entry.txid() > txid - window) {
            kept.add(entry);
          }
        }
        kept.add(new Entry(txid, e.start(), e.end().orElse(null), e.hasRecords()));
        boolean raises = txid >= r.highest();
        next.put(keys.get(i), new Recorded(raises ? txid : r.highest(),
            raises ? inFlight : Math.max(inFlight, r.inFlight()), kept));
      }
      if (refused != null) {
        // Storm fails this txid and every later one: their entries are stale from now on.
        next.clear();
        for (int i = 0; i < emissions.size(); i++) {
          Recorded r = recorded.get(i);
          List<Entry> kept = new ArrayList<>();
          for (Entry entry : r.entries()) {
            if (entry.txid() < txid && entry.txid() > txid - window) {
              kept.add(entry);
            }
          }
          next.put(keys.get(i), new Recorded(r.highest(), r.inFlight(), kept));
        }
      }
      for (Map.Entry<TableKey, Recorded> e : next.entrySet()) {
        tx.upsert(table, Row.builder(e.getKey()).set(EMISSIONS, encode(e.getValue())).build());
      }
      tx.commit();
    }
    if (refused != null) {
      throw refused;
    }
  }

  /** Rules 1 and 2: a stale txid, a range that does not continue the previous one. */
  private void checkContinuity(long txid, Emission e, Recorded r) {
    long allowed = Math.max(inFlight, r.inFlight());
    if (r.highest() != Long.MIN_VALUE && txid <= r.highest() - allowed) {
      throw new StaleBatchException(table.path(), spout, e.partition(), txid, r.highest(), allowed);
    }
    Optional<Entry> previous = r.previous(txid);
    if (previous.isPresent() && previous.get().end() != null && !previous.get().end().equals(e.start())) {
      throw new RangeGapException(table.path(), spout, e.partition(), txid, previous.get().txid(), e.start(),
          previous.get().end());
    }
  }

  private Recorded decode(Optional<Row> row, String partition, long txid) {
    if (row.isEmpty()) {
      return Recorded.NONE;
    }
    String text = row.get().getString(EMISSIONS);
    try {
      JsonNode root = JSON.readTree(Objects.requireNonNull(text, "emissions column is null"));
      if (root.isArray()) {
        // Version 1: [[txid, start], ...], every entry with records, no end recorded.
        List<Entry> entries = new ArrayList<>();
        long highest = Long.MIN_VALUE;
        for (JsonNode n : root) {
          if (n.size() != 2 || !n.get(0).isIntegralNumber() || !n.get(1).isTextual()) {
            throw new IllegalStateException("malformed entry " + n);
          }
          entries.add(new Entry(n.get(0).asLong(), n.get(1).asText(), null, true));
          highest = Math.max(highest, n.get(0).asLong());
        }
        return new Recorded(highest, 0, List.copyOf(entries));
      }
      JsonNode entriesNode = root.get("entries");
      if (!root.isObject() || !root.path("highest").isIntegralNumber() || !root.path("inFlight").isIntegralNumber()
          || entriesNode == null || !entriesNode.isArray()) {
        throw new IllegalStateException("malformed ledger row " + text);
      }
      List<Entry> entries = new ArrayList<>();
      for (JsonNode n : entriesNode) {
        if (n.size() != 4 || !n.get(0).isIntegralNumber() || !n.get(1).isTextual()
            || !(n.get(2).isTextual() || n.get(2).isNull()) || !n.get(3).isBoolean()) {
          throw new IllegalStateException("malformed entry " + n);
        }
        entries.add(new Entry(n.get(0).asLong(), n.get(1).asText(), n.get(2).isNull() ? null : n.get(2).asText(),
            n.get(3).asBoolean()));
      }
      return new Recorded(root.get("highest").asLong(), root.get("inFlight").asLong(), List.copyOf(entries));
    } catch (JsonProcessingException | RuntimeException e) {
      throw new StateCorruptedException(table.path(), spout + "/" + partition, OptionalLong.of(txid), e);
    }
  }

  private static String encode(Recorded r) {
    Map<String, Object> root = new LinkedHashMap<>();
    root.put("highest", r.highest());
    root.put("inFlight", r.inFlight());
    List<List<Object>> entries = new ArrayList<>();
    for (Entry e : r.entries()) {
      entries.add(java.util.Arrays.asList(e.txid(), e.start(), e.end(), e.records()));
    }
    root.put("entries", entries);
    try {
      return JSON.writeValueAsString(root);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write ledger row " + r, e);
    }
  }

  @Override
  public String toString() {
    return "RangeLedger[" + spout + " in " + table.path() + " on " + store.describe() + "]";
  }
}
