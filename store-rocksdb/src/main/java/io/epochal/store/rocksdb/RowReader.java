package io.epochal.store.rocksdb;

import static io.epochal.store.rocksdb.MetaKeys.FIRST_ROW_KEY;

import io.epochal.errors.ErrorContext;
import io.epochal.errors.StateCorruptedException;
import io.epochal.errors.StoreException;
import io.epochal.store.rocksdb.internal.Failures;
import io.epochal.store.table.ReadHook;
import io.epochal.store.table.Row;
import io.epochal.store.table.TableKey;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;

/**
 * Lookups and scans of committed rows (see <i>Reading: missing is not unreadable</i> of {@link RocksDbTableStore}):
 * every read checked and decoded, a damaged block reported as {@link StateCorruptedException} naming table and key,
 * an I/O error as a {@link StoreException}, never as an absent row; and the row-by-row inspection of a table.
 * Thread-safe (each read holds the store's life lock while it uses native handles).
 */
final class RowReader {
  private final Path dir;
  private final RocksDB db;
  private final ReadOptions readOptions;
  private final ReadHook readHook;
  private final StoreLife life;

  RowReader(OpenDatabase database, ReadHook readHook, StoreLife life) {
    this.dir = database.dir;
    this.db = database.db;
    this.readOptions = database.options.readOptions;
    this.readHook = readHook;
    this.life = life;
  }

  /**
   * Reads the rows of {@code keys} (checked and encoded as {@code encoded}): {@code MultiGet}, then {@code Get} for
   * every key it reports missing, so that an unreadable row is never reported as absent.
   */
  List<Optional<Row>> lookup(TableHandle h, List<TableKey> keys, List<byte[]> encoded) {
    String path = h.schema.path();
    readHook.beforeRead(path);
    List<byte[]> values;
    life.readLock().lock();
    try {
      life.checkOpen();
      try {
        values = new ArrayList<>(db.multiGetAsList(readOptions, Collections.nCopies(encoded.size(), h.cf),
            encoded));
      } catch (RocksDBException e) {
        throw lookupFailed(h, keys, 0, e);
      }
      // MultiGet reports an unreadable key as null (facebook/rocksdb#12741): Get tells missing from unreadable.
      for (int i = 0; i < values.size(); i++) {
        if (values.get(i) == null) {
          try {
            values.set(i, db.get(h.cf, readOptions, encoded.get(i)));
          } catch (RocksDBException e) {
            throw lookupFailed(h, keys, i, e);
          }
        }
      }
    } finally {
      life.readLock().unlock();
    }
    List<Optional<Row>> out = new ArrayList<>(keys.size());
    for (int i = 0; i < keys.size(); i++) {
      byte[] v = values.get(i);
      out.add(v == null ? Optional.empty()
          : Optional.of(h.decodeRow(keys.get(i), encoded.get(i), readHook.storedBytes(path, v))));
    }
    return Collections.unmodifiableList(out);
  }

  private RuntimeException lookupFailed(TableHandle h, List<TableKey> keys, int i, RocksDBException e) {
    if (Failures.isCorruption(e)) {
      return h.unreadable(keys.get(i).describeParts(), e);
    }
    StoreException s = Failures.rocks("RocksDB lookup of " + keys.size() + " key(s) of table " + h.schema.path()
        + " (at " + keys.get(i) + ") in state directory " + dir + " failed", e);
    return new StoreException(s.getMessage(), e, s.retryable(), ErrorContext.of(h.schema.path(),
        keys.get(i).describeParts()));
  }

  /** Reads every row of {@code h} in key order, from one consistent view. */
  List<Row> scan(TableHandle h) {
    String path = h.schema.path();
    readHook.beforeRead(path);
    List<Row> out = new ArrayList<>();
    life.readLock().lock();
    try (RocksIterator it = db.newIterator(h.cf, readOptions)) {
      life.checkOpen();
      for (it.seek(FIRST_ROW_KEY); it.isValid(); it.next()) {
        byte[] keyBytes = it.key();
        TableKey key = h.decodeKey(keyBytes);
        out.add(h.decodeRow(key, keyBytes, readHook.storedBytes(path, it.value())));
      }
      try {
        it.status();
      } catch (RocksDBException e) {
        if (Failures.isCorruption(e)) {
          throw h.unreadable(out.isEmpty() ? "(before the first row)"
              : "(after " + out.get(out.size() - 1).key().describeParts() + ")", e);
        }
        StoreException s = Failures.rocks("RocksDB scan of table " + path + " in state directory " + dir
            + " failed", e);
        throw new StoreException(s.getMessage(), e, s.retryable(), ErrorContext.NONE.withTable(path));
      }
    } finally {
      life.readLock().unlock();
    }
    return Collections.unmodifiableList(out);
  }

  /** {@link RocksDbTableStore#inspect}: every stored row of {@code h}, each one readable or not. */
  void inspect(TableHandle h, Consumer<InspectedRow> sink) {
    String path = h.schema.path();
    readHook.beforeRead(path);
    life.readLock().lock();
    try (RocksIterator it = db.newIterator(h.cf, readOptions)) {
      life.checkOpen();
      String last = null;
      for (it.seek(FIRST_ROW_KEY); it.isValid(); it.next()) {
        byte[] keyBytes = it.key();
        TableKey key;
        try {
          key = h.decodeKey(keyBytes);
        } catch (StateCorruptedException e) {
          last = "0x" + HexFormat.of().formatHex(keyBytes);
          sink.accept(new InspectedRow(last, Optional.empty(), Optional.of(e)));
          continue;
        }
        last = key.describeParts();
        try {
          sink.accept(new InspectedRow(last, Optional.of(h.decodeRow(key, keyBytes,
              readHook.storedBytes(path, it.value()))), Optional.empty()));
        } catch (StateCorruptedException e) {
          sink.accept(new InspectedRow(last, Optional.empty(), Optional.of(e)));
        }
      }
      try {
        it.status();
      } catch (RocksDBException e) {
        if (!Failures.isCorruption(e)) {
          throw Failures.rocks("RocksDB scan of table " + path + " in state directory " + dir + " failed", e);
        }
        String where = last == null ? "(before the first row)" : "(after " + last + ")";
        sink.accept(new InspectedRow(where, Optional.empty(), Optional.of(h.unreadable(where, e))));
      }
    } finally {
      life.readLock().unlock();
    }
  }
}
