package io.epochal.store.rocksdb;

import static io.epochal.store.rocksdb.MetaKeys.MARKER_KEY;
import static io.epochal.store.rocksdb.MetaKeys.longBytes;
import static io.epochal.store.rocksdb.MetaKeys.writtenKey;

import io.epochal.errors.CommitConflictException;
import io.epochal.errors.ErrorContext;
import io.epochal.errors.StoreException;
import io.epochal.store.rocksdb.internal.ByteKey;
import io.epochal.store.rocksdb.internal.Failures;
import io.epochal.store.table.CommitHook;
import io.epochal.store.table.Lease;
import io.epochal.store.table.StagedTransaction;
import io.epochal.store.table.StagedTransaction.StagedWrite;
import io.epochal.store.table.TableKey;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * The commits of a writing store (see <i>Atomicity and durability</i> and <i>Isolation and conflicts</i> of
 * {@link RocksDbTableStore}): numbers them, detects write-write conflicts in memory (the commit number that last
 * wrote each row since open, pruned once no open transaction can conflict with it) and writes each commit as one
 * {@code WriteBatch} with the markers of the tables it writes. Thread-safe: the conflict state is guarded by one
 * lock, only taken inside the directory's commit lock.
 */
final class Commits {
  private static final int PRUNE_EVERY = 1024;

  private final Path dir;
  private final RocksDB db;
  private final ColumnFamilyHandle defaultCf;
  private final WriteOptions writeOptions;
  private final CommitHook hook;
  /** The leases; null when read-only (nothing commits then). */
  private final LeaseKeeper leases;
  private final Durability durability;

  /** Guards the conflict state below; only taken inside the directory's commit lock. */
  private final Object conflicts = new Object();
  private long commitSeq; // guarded by conflicts
  /** The number of the last commit that wrote rows (durable in the markers); guarded by conflicts. */
  private long lastMarker;
  private final HashMap<ByteKey, Long> lastWrite = new HashMap<>(); // guarded by conflicts
  private long commitsSincePrune; // guarded by conflicts
  private int pruneAtSize = 4 * PRUNE_EVERY; // guarded by conflicts
  /** The transactions open now, by the commit number they began after. Guarded by conflicts. */
  private final StagedTransaction.OpenTransactions active = new StagedTransaction.OpenTransactions();

  /**
   * @param defaultCf the default column family of {@code database} (where the markers' copies are kept)
   * @param leases the leases, or null when read-only
   */
  Commits(OpenDatabase database, ColumnFamilyHandle defaultCf, CommitHook hook, LeaseKeeper leases,
      Durability durability) {
    this.dir = database.dir;
    this.db = database.db;
    this.defaultCf = defaultCf;
    this.writeOptions = database.options.writeOptions;
    this.hook = hook;
    this.leases = leases;
    this.durability = durability;
  }

  /** At open: the number of the last commit that wrote rows, as the tables' markers record it. */
  void restoreMarker(long highest) {
    synchronized (conflicts) {
      lastMarker = highest;
    }
  }

  /**
   * Registers a new transaction.
   *
   * @return the commit number it begins after
   */
  long begin() {
    synchronized (conflicts) {
      long begin = commitSeq;
      active.opened(begin);
      return begin;
    }
  }

  /** Unregisters the transaction that began after commit {@code begin}. */
  void finished(long begin) {
    synchronized (conflicts) {
      active.finished(begin);
    }
  }

  /**
   * Commits a transaction: under the directory's lease lock (in this JVM and across processes), checks the lease (if
   * any), the directory and the conflicts, then writes the transaction's rows, each table's marker and the markers'
   * copies in one batch.
   *
   * @param lease the transaction's lease, or null
   * @param writes the staged writes by table path
   * @param tables the open table of each path written
   * @param begin the commit number the transaction began after
   */
  void commit(Lease lease, LinkedHashMap<String, List<StagedWrite<byte[], RocksDbTransaction.Write>>> writes,
      Function<String, TableHandle> tables, long begin) {
    leases.locked(() -> {
      commitLocked(lease, writes, tables, begin);
      return null;
    });
  }

  /** The commit critical section: runs under the directory's lease lock. */
  private void commitLocked(Lease lease,
      LinkedHashMap<String, List<StagedWrite<byte[], RocksDbTransaction.Write>>> writes,
      Function<String, TableHandle> tables, long begin) {
    if (lease != null) {
      leases.checkCurrent(lease, "Commit refused");
    }
    if (!writes.isEmpty()) {
      durability.checkNotReplaced("commit to " + writes.keySet());
    }
    synchronized (conflicts) {
      // Shortcut: a commit can only conflict with a row written by a commit after this transaction began; if no
      // commit happened since, there is nothing to check (the usual case of one writer: each epoch's transaction).
      if (commitSeq != begin) {
        for (Map.Entry<String, List<StagedWrite<byte[], RocksDbTransaction.Write>>> e : writes.entrySet()) {
          String path = e.getKey();
          for (StagedWrite<byte[], RocksDbTransaction.Write> w : e.getValue()) {
            Long seq = lastWrite.get(new ByteKey(path, w.key()));
            if (seq != null && seq > begin) {
              TableKey key = w.write().key();
              throw new CommitConflictException("Commit conflict on table " + path + " key "
                  + key.describeParts() + " (" + key + ") in RocksDB state directory " + dir + ": the row was "
                  + "written by commit #" + seq + ", after this transaction began (at commit #" + begin
                  + "); nothing of this transaction was applied");
            }
          }
        }
      }
      if (writes.isEmpty()) {
        return;
      }
      int rows = 0;
      long marker = lastMarker + 1;
      byte[] markerBytes = longBytes(marker);
      try (WriteBatch batch = new WriteBatch()) {
        for (Map.Entry<String, List<StagedWrite<byte[], RocksDbTransaction.Write>>> e : writes.entrySet()) {
          hook.beforeTableWrite(e.getKey());
          ColumnFamilyHandle cf = tables.apply(e.getKey()).cf;
          batch.put(cf, MARKER_KEY, markerBytes);
          batch.put(defaultCf, writtenKey(e.getKey()), markerBytes);
          for (StagedWrite<byte[], RocksDbTransaction.Write> w : e.getValue()) {
            if (w.write().value() == null) {
              batch.delete(cf, w.key());
            } else {
              batch.put(cf, w.key(), w.write().value());
            }
            rows++;
          }
        }
        db.write(writeOptions, batch);
      } catch (RocksDBException e) {
        lastMarker = marker; // the outcome is unknown: never reuse the number
        recordWrites(writes); // the outcome is unknown: treat the rows as written, for conflict detection
        StoreException s = Failures.rocks("RocksDB commit of " + rows + " row(s) to table(s) " + writes.keySet()
            + " in state directory " + dir + " failed; the outcome is unknown (the write is atomic: all or "
            + "nothing), re-read to find out", e);
        throw new StoreException(s.getMessage(), e, s.retryable(),
            ErrorContext.NONE.withTable(String.join(", ", writes.keySet())));
      }
      lastMarker = marker;
      recordWrites(writes);
    }
  }

  /**
   * Numbers the commit and remembers the rows it wrote, for the conflict checks of the transactions open now (a
   * transaction that begins later begins after this commit's number and cannot conflict with it). Shortcut: when no
   * other transaction is open, nothing needs remembering, and the map is emptied (every entry is then at or before
   * the horizon). Called under {@code conflicts}, by the committing transaction, which is still registered.
   */
  private void recordWrites(LinkedHashMap<String, List<StagedWrite<byte[], RocksDbTransaction.Write>>> writes) {
    long seq = ++commitSeq;
    if (active.count() <= 1) {
      if (!lastWrite.isEmpty()) {
        lastWrite.clear();
      }
      return;
    }
    for (Map.Entry<String, List<StagedWrite<byte[], RocksDbTransaction.Write>>> e : writes.entrySet()) {
      String path = e.getKey();
      for (StagedWrite<byte[], RocksDbTransaction.Write> w : e.getValue()) {
        lastWrite.put(new ByteKey(path, w.key()), seq);
      }
    }
    maybePrune();
  }

  /**
   * Drops conflict entries that no open or future transaction can conflict with: those written at or before the
   * beginning of the oldest open transaction. Runs every {@value #PRUNE_EVERY} commits, or when the map doubled since
   * the last pruning (so a long-open transaction cannot make every commit scan the map). Called under
   * {@code conflicts}.
   */
  private void maybePrune() {
    if (++commitsSincePrune < PRUNE_EVERY && lastWrite.size() < pruneAtSize) {
      return;
    }
    commitsSincePrune = 0;
    long horizon = active.horizon(commitSeq);
    lastWrite.values().removeIf(seq -> seq <= horizon);
    pruneAtSize = Math.max(4 * PRUNE_EVERY, 2 * lastWrite.size());
  }
}
