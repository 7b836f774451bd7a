package io.epochal.store.ytsaurus.internal;

import com.fasterxml.jackson.databind.JsonNode;
import io.epochal.errors.StateCorruptedException;
import io.epochal.store.ytsaurus.YtInspectedRow;
import java.util.function.Consumer;
import io.epochal.store.table.Lease;
import io.epochal.store.table.ReadHook;
import io.epochal.store.table.Row;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableKey;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * What both YTsaurus transaction kinds share: argument checks, the lifecycle (open → over), and the client-side write
 * buffer (per table, in first-written order; per key, the last write wins; a delete is a {@code null} row). Writes are
 * only sent at commit, so the {@link io.epochal.store.table.CommitHook} can run before each table's rows are sent.
 * Every lookup and scan calls the {@link ReadHook}'s {@code beforeRead} with the table's path before its first
 * request, and lets what it throws reach the caller.
 *
 * <p>Thread-safe as {@link StoreTransaction} requires.
 */
public abstract class AbstractYtTransaction implements StoreTransaction {
  private final Object owner;
  private final Lease lease;
  private final BooleanSupplier storeClosed;
  private final ReadHook readHook;
  private final Map<YtTable, LinkedHashMap<TableKey, Row>> writes = new LinkedHashMap<>();
  private volatile boolean over;

  /**
   * Sets up an open transaction with an empty write buffer.
   *
   * @param owner the store (tables of other stores are refused)
   * @param lease the fencing lease, or {@code null}
   * @param storeClosed tells whether the store was closed
   * @param readHook called before every lookup and scan
   */
  protected AbstractYtTransaction(Object owner, Lease lease, BooleanSupplier storeClosed, ReadHook readHook) {
    this.owner = owner;
    this.lease = lease;
    this.storeClosed = storeClosed;
    this.readHook = Objects.requireNonNull(readHook, "readHook");
  }

  /**
   * The store's read hook, which every lookup and scan calls before its first request.
   *
   * @return the read hook of the store
   */
  protected final ReadHook readHook() {
    return readHook;
  }

  @Override
  public final Optional<Lease> lease() {
    return Optional.ofNullable(lease);
  }

  /**
   * Tells whether the transaction was committed or aborted.
   *
   * @return whether commit or abort happened
   */
  protected final boolean isOver() {
    return over;
  }

  private void checkOpen() {
    if (over) {
      throw new IllegalStateException("the transaction is over (committed, failed or aborted)");
    }
  }

  private YtTable table(Table table) {
    Objects.requireNonNull(table, "table");
    if (!(table instanceof YtTable yt) || yt.owner() != owner) {
      throw new IllegalArgumentException("table " + table.path() + " was not opened by this YTsaurus store");
    }
    return yt;
  }

  private static void checkKey(YtTable table, TableKey key) {
    Objects.requireNonNull(key, "key");
    if (!key.schema().equals(table.schema())) {
      throw new IllegalArgumentException("key " + key + " belongs to table " + key.schema().path() + ", not to "
          + table.schema().path());
    }
  }

  @Override
  public final List<Optional<Row>> lookup(Table table, List<TableKey> keys) {
    YtTable t = table(table);
    Objects.requireNonNull(keys, "keys");
    for (TableKey k : keys) {
      checkKey(t, k);
    }
    checkOpen();
    readHook.beforeRead(t.schema().path());
    if (keys.isEmpty()) {
      return List.of();
    }
    List<TableKey> unique = new ArrayList<>(new LinkedHashSet<>(keys));
    List<Optional<Row>> found = doLookup(t, unique);
    Map<TableKey, Optional<Row>> byKey = new HashMap<>();
    for (int i = 0; i < unique.size(); i++) {
      byKey.put(unique.get(i), found.get(i));
    }
    List<Optional<Row>> out = new ArrayList<>(keys.size());
    for (TableKey k : keys) {
      out.add(byKey.get(k));
    }
    return Collections.unmodifiableList(out);
  }

  @Override
  public final List<Row> scan(Table table) {
    YtTable t = table(table);
    checkOpen();
    readHook.beforeRead(t.schema().path());
    List<Row> rows = new ArrayList<>(doScan(t));
    rows.sort((a, b) -> a.key().compareTo(b.key()));
    return Collections.unmodifiableList(rows);
  }

  /**
   * Reads every committed row of {@code table} with the same one request as {@link #scan}, but decodes each answered
   * row on its own: a row that does not fit the table's schema reaches {@code sink} as its error, naming its key
   * where the key columns decode, and the rows after it still arrive. Readable rows in key order, then the
   * unreadable ones in answer order. For inspection tools; an answer that is no tabular JSON at all (cut short, an
   * error in the body) still fails the whole read.
   *
   * @param table a table of this store
   * @param sink gets one {@link YtInspectedRow} per answered row of {@code table}
   * @throws io.epochal.errors.StoreException if the table cannot be read at all
   */
  public final void inspect(Table table, Consumer<YtInspectedRow> sink) {
    YtTable t = table(table);
    checkOpen();
    readHook.beforeRead(t.schema().path());
    List<Row> rows = new ArrayList<>();
    List<YtInspectedRow> bad = new ArrayList<>();
    for (JsonNode json : scanAnswer(t)) {
      try {
        Row row = decodeScanned(t, json);
        if (row != null) {
          rows.add(row);
        }
      } catch (StateCorruptedException e) {
        bad.add(new YtInspectedRow(e.context().key().orElse("(unknown key)"), Optional.empty(), Optional.of(e)));
      }
    }
    rows.sort((a, b) -> a.key().compareTo(b.key()));
    rows.forEach(r -> sink.accept(new YtInspectedRow(r.key().toString(), Optional.of(r), Optional.empty())));
    bad.forEach(sink);
  }

  @Override
  public final void upsert(Table table, Row row) {
    YtTable t = table(table);
    Objects.requireNonNull(row, "row");
    checkKey(t, row.key());
    synchronized (writes) {
      checkOpen();
      writes.computeIfAbsent(t, x -> new LinkedHashMap<>()).put(row.key(), row);
    }
  }

  @Override
  public final void delete(Table table, TableKey key) {
    YtTable t = table(table);
    checkKey(t, key);
    synchronized (writes) {
      checkOpen();
      writes.computeIfAbsent(t, x -> new LinkedHashMap<>()).put(key, null);
    }
  }

  @Override
  public final void commit() {
    Map<YtTable, LinkedHashMap<TableKey, Row>> snapshot;
    synchronized (writes) {
      checkOpen();
      over = true;
      snapshot = new LinkedHashMap<>(writes);
      writes.clear();
    }
    if (storeClosed.getAsBoolean()) {
      doAbort();
      throw new IllegalStateException("the YTsaurus store was closed; this transaction cannot commit");
    }
    doCommit(snapshot);
  }

  @Override
  public final void abort() {
    synchronized (writes) {
      if (over) {
        return;
      }
      over = true;
      writes.clear();
    }
    doAbort();
  }

  @Override
  public final void close() {
    abort();
  }

  /**
   * Reads the committed rows of distinct keys of a table (the subclass's lookup).
   *
   * @param table the table
   * @param uniqueKeys distinct keys
   * @return one element per key, in order
   */
  protected abstract List<Optional<Row>> doLookup(YtTable table, List<TableKey> uniqueKeys);

  /**
   * Reads every committed row of a table.
   *
   * @param table the table
   * @return its committed rows, any order
   * @throws StateCorruptedException if a row does not fit the schema
   */
  protected List<Row> doScan(YtTable table) {
    List<Row> out = new ArrayList<>();
    for (JsonNode json : scanAnswer(table)) {
      Row row = decodeScanned(table, json);
      if (row != null) {
        out.add(row);
      }
    }
    return out;
  }

  /**
   * Runs the subclass's scan query over a table.
   *
   * @param table the table
   * @return the answered JSON rows of one {@code select_rows} over the table's committed rows, any order
   */
  protected abstract List<JsonNode> scanAnswer(YtTable table);

  /**
   * Decodes one row of {@link #scanAnswer}.
   *
   * @param table the table
   * @param json one row of {@link #scanAnswer}
   * @return the row decoded, or {@code null} if the answered row is not one of {@code table}'s
   * @throws StateCorruptedException if the row does not fit the schema
   */
  protected abstract Row decodeScanned(YtTable table, JsonNode json);

  /**
   * Sends the writes and commits. The transaction is already marked over.
   *
   * @param writes per table in first-written order; per key the final row, {@code null} for a delete
   */
  protected abstract void doCommit(Map<YtTable, LinkedHashMap<TableKey, Row>> writes);

  /** Releases server-side resources of an aborted transaction; must not throw. */
  protected abstract void doAbort();

  /**
   * Describes buffered writes for conflict messages.
   *
   * @param writes the writes
   * @return a bounded description of the written tables and keys, for conflict messages
   */
  protected static String describeWrites(Map<YtTable, LinkedHashMap<TableKey, Row>> writes) {
    StringBuilder sb = new StringBuilder();
    for (Map.Entry<YtTable, LinkedHashMap<TableKey, Row>> e : writes.entrySet()) {
      sb.append(sb.length() == 0 ? "" : "; ").append("table ").append(e.getKey().schema().path()).append(" keys ");
      int n = 0;
      for (TableKey k : e.getValue().keySet()) {
        if (n++ == 10) {
          sb.append(", ... (").append(e.getValue().size()).append(" in all)");
          break;
        }
        sb.append(n == 1 ? "" : ", ").append(k.describeParts());
      }
    }
    return sb.toString();
  }
}
