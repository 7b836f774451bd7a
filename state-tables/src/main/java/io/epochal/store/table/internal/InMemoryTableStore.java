package io.epochal.store.table.internal;

import io.epochal.errors.CommitConflictException;
import io.epochal.errors.LeaseLostException;
import io.epochal.errors.SchemaMismatchException;
import io.epochal.store.table.CommitHook;
import io.epochal.store.table.Lease;
import io.epochal.store.table.ReadHook;
import io.epochal.store.table.Row;
import io.epochal.store.table.StagedTransaction;
import io.epochal.store.table.StoreCapabilities;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableKey;
import io.epochal.store.table.TableSchema;
import io.epochal.store.table.TableStore;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * The in-memory {@link TableStore}: tables as hash maps of rows by key (point lookups and commits cost one hash probe
 * per key; a scan sorts the rows into key order), MVCC-lite conflict detection (each row keeps the commit timestamp
 * of its last write, deletes leave timestamped tombstones; a transaction conflicts when a row it writes has a commit
 * timestamp after its start), and lease generations for fencing. Lookups read the latest committed rows.
 *
 * <p>With {@code atomicMultiTableCommit} the commit stages every table (calling the {@link CommitHook} for each)
 * before applying any; without it, each table is applied right after its hook, so a failure mid-commit leaves the
 * tables before it written (the model of a store with only per-call atomicity). With {@code fencing} off, leases are
 * issued but not checked.
 *
 * <p>Every lookup and scan calls the {@link ReadHook}'s {@code beforeRead} with the table's path before reading, and
 * lets what it throws reach the caller. Rows are kept as objects, not bytes: the hook's {@code storedBytes} is never
 * called.
 *
 * <p>Thread-safe: a read-write lock guards the tables; commits are serialized. Internal: use
 * {@code TableStores.inMemory()}.
 */
public final class InMemoryTableStore implements TableStore {
  private static final int PRUNE_EVERY = 1024;

  private final String name;
  private final StoreCapabilities capabilities;
  private final CommitHook hook;
  private final ReadHook readHook;
  private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
  private final Map<String, MemTable> tables = new HashMap<>();
  private final Map<String, Lease> leases = new HashMap<>();
  /** Start timestamps of open transactions (for tombstone pruning). Guarded by {@code activeLock}. */
  private final StagedTransaction.OpenTransactions active = new StagedTransaction.OpenTransactions();
  private final Object activeLock = new Object();
  private long clock;
  private long commitsSincePrune;
  private volatile boolean closed;

  /**
   * @param name the name shown in descriptions
   * @param capabilities the declared capabilities, which this store then honours
   * @param hook the commit fault-injection hook
   * @param readHook the read fault-injection hook (only {@code beforeRead} is called)
   */
  public InMemoryTableStore(String name, StoreCapabilities capabilities, CommitHook hook, ReadHook readHook) {
    this.name = Objects.requireNonNull(name, "name");
    this.capabilities = Objects.requireNonNull(capabilities, "capabilities");
    this.hook = Objects.requireNonNull(hook, "hook");
    this.readHook = Objects.requireNonNull(readHook, "readHook");
  }

  /**
   * The latest version of a row: the row, or null for a tombstone, and the commit timestamp that wrote it. Updated in
   * place by a commit (one hash probe per written key), read by lookups; guarded by the store's lock.
   */
  private static final class Version {
    Row row;
    long ts;

    Version(Row row, long ts) {
      this.row = row;
      this.ts = ts;
    }
  }

  private static final class MemTable {
    final TableSchema schema;
    /** By key; unordered (a scan sorts). */
    final HashMap<TableKey, Version> rows = new HashMap<>();

    MemTable(TableSchema schema) {
      this.schema = schema;
    }
  }

  private record Handle(InMemoryTableStore owner, TableSchema schema) implements Table {
    @Override
    public String toString() {
      return "Table[" + schema.path() + "]";
    }
  }

  @Override
  public StoreCapabilities capabilities() {
    return capabilities;
  }

  @Override
  public Table openTable(TableSchema schema) {
    Objects.requireNonNull(schema, "schema");
    lock.writeLock().lock();
    try {
      checkOpen();
      MemTable existing = tables.get(schema.path());
      if (existing == null) {
        tables.put(schema.path(), new MemTable(schema));
      } else if (!existing.schema.equals(schema)) {
        throw new SchemaMismatchException(schema.path(), schema, existing.schema);
      }
      return new Handle(this, schema);
    } finally {
      lock.writeLock().unlock();
    }
  }

  @Override
  public Optional<Table> findTable(String path) {
    Objects.requireNonNull(path, "path");
    lock.readLock().lock();
    try {
      checkOpen();
      MemTable t = tables.get(path);
      return t == null ? Optional.empty() : Optional.of(new Handle(this, t.schema));
    } finally {
      lock.readLock().unlock();
    }
  }

  @Override
  public Lease acquireLease(String leaseName, String owner) {
    Objects.requireNonNull(leaseName, "name");
    Objects.requireNonNull(owner, "owner");
    lock.writeLock().lock();
    try {
      checkOpen();
      Lease previous = leases.get(leaseName);
      Lease lease = new Lease(leaseName, owner, previous == null ? 1 : previous.generation() + 1);
      leases.put(leaseName, lease);
      return lease;
    } finally {
      lock.writeLock().unlock();
    }
  }

  @Override
  public StoreTransaction begin() {
    return start(null);
  }

  @Override
  public StoreTransaction begin(Lease lease) {
    Objects.requireNonNull(lease, "lease");
    return start(lease);
  }

  private StoreTransaction start(Lease lease) {
    lock.readLock().lock();
    try {
      checkOpen();
      if (lease != null) {
        Lease current = leases.get(lease.name());
        if (current == null || lease.generation() > current.generation()) {
          throw new IllegalArgumentException(lease + " was not issued by " + describe());
        }
      }
      long start = clock;
      synchronized (activeLock) {
        active.opened(start);
      }
      return new Tx(start, lease);
    } finally {
      lock.readLock().unlock();
    }
  }

  @Override
  public String describe() {
    return "in-memory table store '" + name + "' (" + (capabilities.atomicMultiTableCommit()
        ? "atomic multi-table commit" : "per-table commit") + (capabilities.fencing() ? ", fencing" : ", no fencing")
        + ")";
  }

  @Override
  public void close() {
    closed = true;
  }

  @Override
  public String toString() {
    return describe();
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException(describe() + " is closed");
    }
  }

  private MemTable tableOf(Table table) {
    Objects.requireNonNull(table, "table");
    if (!(table instanceof Handle h) || h.owner != this) {
      throw new IllegalArgumentException(table + " does not belong to " + describe());
    }
    MemTable t = tables.get(h.schema.path());
    if (t == null || !t.schema.equals(h.schema)) {
      throw new IllegalArgumentException(table + " is not open in " + describe());
    }
    return t;
  }

  private void finished(long start) {
    synchronized (activeLock) {
      active.finished(start);
    }
  }

  /** Drops tombstones no open or future transaction can conflict with. Call under the write lock. */
  private void maybePrune() {
    if (++commitsSincePrune < PRUNE_EVERY) {
      return;
    }
    commitsSincePrune = 0;
    long horizon;
    synchronized (activeLock) {
      horizon = active.horizon(clock);
    }
    for (MemTable t : tables.values()) {
      for (Iterator<Version> it = t.rows.values().iterator(); it.hasNext();) {
        Version v = it.next();
        if (v.row == null && v.ts <= horizon) {
          it.remove();
        }
      }
    }
  }

  /** Staged writes: the rows to upsert, a null row for a delete. */

  /**
   * {@inheritDoc}
   *
   * <p>Reads the latest committed rows, as a transaction's lookup does, without beginning a transaction (nothing is
   * registered as open).
   */
  @Override
  public List<Optional<Row>> lookup(Table table, List<TableKey> keys) {
    Objects.requireNonNull(keys, "keys");
    return committed(table, keys);
  }

  /** The latest committed rows of {@code keys}, under the read lock. */
  private List<Optional<Row>> committed(Table table, List<TableKey> keys) {
    lock.readLock().lock();
    try {
      checkOpen();
      MemTable t = tableOf(table);
      for (TableKey key : keys) {
        Objects.requireNonNull(key, "key");
        if (!key.schema().equals(t.schema)) {
          throw new IllegalArgumentException("key " + key + " does not match the schema of table " + t.schema.path());
        }
      }
      readHook.beforeRead(t.schema.path());
      List<Optional<Row>> out = new ArrayList<>(keys.size());
      for (TableKey key : keys) {
        Version v = t.rows.get(key);
        out.add(v == null || v.row == null ? Optional.empty() : Optional.of(v.row));
      }
      return Collections.unmodifiableList(out);
    } finally {
      lock.readLock().unlock();
    }
  }

  private final class Tx extends StagedTransaction<Handle, TableKey, Row> {
    private final long start;

    Tx(long start, Lease lease) {
      super(lease);
      this.start = start;
    }

    @Override
    public List<Optional<Row>> lookup(Table table, List<TableKey> keys) {
      Objects.requireNonNull(keys, "keys");
      checkNotOver();
      return committed(table, keys);
    }

    @Override
    public List<Row> scan(Table table) {
      checkNotOver();
      lock.readLock().lock();
      try {
        checkOpen();
        MemTable t = tableOf(table);
        readHook.beforeRead(t.schema.path());
        List<Row> out = new ArrayList<>(t.rows.size());
        for (Version v : t.rows.values()) {
          if (v.row != null) {
            out.add(v.row);
          }
        }
        out.sort((a, b) -> a.key().compareTo(b.key()));
        return Collections.unmodifiableList(out);
      } finally {
        lock.readLock().unlock();
      }
    }

    @Override
    public void upsert(Table table, Row row) {
      Objects.requireNonNull(row, "row");
      write(table, row.key(), row);
    }

    @Override
    public void delete(Table table, TableKey key) {
      Objects.requireNonNull(key, "key");
      write(table, key, null);
    }

    private void write(Table table, TableKey key, Row row) {
      Objects.requireNonNull(table, "table");
      if (!(table instanceof Handle h) || h.owner != InMemoryTableStore.this) {
        throw new IllegalArgumentException(table + " does not belong to " + describe());
      }
      if (!key.schema().equals(h.schema)) {
        throw new IllegalArgumentException((row == null ? "key " + key : "row " + row) + " does not match the schema "
            + "of table " + h.schema.path());
      }
      stage(h.schema.path(), h, key, row);
    }

    @Override
    public void commit() {
      endForCommit();
      Lease lease = leaseOrNull();
      // the staged lists, applied in order: a key written twice is checked twice and its last write wins
      Map<String, List<StagedWrite<TableKey, Row>>> writes = writeLists();
      lock.writeLock().lock();
      try {
        checkOpen();
        if (lease != null && capabilities.fencing()) {
          Lease current = leases.get(lease.name());
          if (current.generation() != lease.generation()) {
            throw new LeaseLostException("Commit refused: " + lease + " was taken over by " + current
                + "; this writer is fenced off and nothing it wrote was applied (" + describe() + ")");
          }
        }
        if (writes.isEmpty()) {
          return;
        }
        MemTable[] targets = new MemTable[writes.size()];
        Version[][] found = new Version[writes.size()][];
        int at = 0;
        for (Map.Entry<String, List<StagedWrite<TableKey, Row>>> e : writes.entrySet()) {
          MemTable t = tableOf(table(e.getKey()));
          targets[at] = t;
          List<StagedWrite<TableKey, Row>> rows = e.getValue();
          Version[] versions = new Version[rows.size()];
          found[at++] = versions;
          for (int i = 0; i < versions.length; i++) {
            TableKey key = rows.get(i).key();
            Version v = t.rows.get(key);
            versions[i] = v;
            if (v != null && v.ts > start) {
              throw new CommitConflictException("Commit conflict on table " + e.getKey() + " key "
                  + key.describeParts() + " (" + key + "): the row was written by a transaction that committed at "
                  + "timestamp " + v.ts + ", after this transaction began at " + start
                  + "; nothing of this transaction was applied");
            }
          }
        }
        long ts = ++clock;
        if (capabilities.atomicMultiTableCommit()) {
          for (String path : writes.keySet()) {
            hook.beforeTableWrite(path);
          }
          at = 0;
          for (List<StagedWrite<TableKey, Row>> rows : writes.values()) {
            apply(targets[at], rows, found[at], ts);
            at++;
          }
        } else {
          at = 0;
          for (Map.Entry<String, List<StagedWrite<TableKey, Row>>> e : writes.entrySet()) {
            hook.beforeTableWrite(e.getKey());
            apply(targets[at], e.getValue(), found[at], ts);
            at++;
          }
        }
        maybePrune();
      } finally {
        lock.writeLock().unlock();
        finished();
      }
    }

    /**
     * Writes {@code rows} in order, whose versions before this commit (null: none) the conflict check found, in the
     * same order. A key staged twice had the same version (or none) both times: its last write wins.
     */
    private void apply(MemTable t, List<StagedWrite<TableKey, Row>> rows, Version[] current, long ts) {
      for (int i = 0; i < current.length; i++) {
        StagedWrite<TableKey, Row> w = rows.get(i);
        Version v = current[i];
        if (v == null) {
          Version added = new Version(w.write(), ts);
          Version before = t.rows.putIfAbsent(w.key(), added);
          if (before != null) { // staged twice, absent before this commit: the first write added it
            before.row = w.write();
            before.ts = ts;
          }
        } else {
          v.row = w.write();
          v.ts = ts;
        }
      }
    }

    @Override
    protected void finished() {
      InMemoryTableStore.this.finished(start);
    }

    @Override
    public String toString() {
      Lease lease = leaseOrNull();
      return "in-memory transaction started at " + start + (lease == null ? "" : " under " + lease);
    }
  }
}
