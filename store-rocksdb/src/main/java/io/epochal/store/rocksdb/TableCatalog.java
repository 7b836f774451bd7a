package io.epochal.store.rocksdb;

import static io.epochal.store.rocksdb.MetaKeys.MARKER_KEY;
import static io.epochal.store.rocksdb.MetaKeys.SCHEMA_KEY_PREFIX;
import static io.epochal.store.rocksdb.MetaKeys.bytesLong;
import static io.epochal.store.rocksdb.MetaKeys.cfName;
import static io.epochal.store.rocksdb.MetaKeys.schemaKey;
import static io.epochal.store.rocksdb.MetaKeys.startsWith;
import static io.epochal.store.rocksdb.MetaKeys.writtenKey;

import io.epochal.errors.ErrorContext;
import io.epochal.errors.SchemaMismatchException;
import io.epochal.errors.StoreException;
import io.epochal.store.rocksdb.internal.Failures;
import io.epochal.store.rocksdb.internal.SchemaText;
import io.epochal.store.table.TableSchema;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.FlushOptions;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteOptions;

/**
 * The tables of an open database: one column family per table and its schema row in the default column family.
 * Registers the tables at open with the checks that none lost its schema row, its column family or rows of its
 * commits, creates new tables, and closes every column family handle. Thread-safe (guarded by one lock).
 */
final class TableCatalog {
  private final RocksDbTableStore owner;
  private final Path dir;
  private final RocksDB db;
  private final ColumnFamilyHandle defaultCf;
  private final NativeOptions options;
  private final ReadOptions readOptions;
  private final WriteOptions metaWriteOptions;
  /** Whether cells of the unchecked format-1 encoding may be read. */
  private final boolean legacyCells;

  private final Object tablesLock = new Object();
  /** Every column family handle, the default one first; closed by {@link #closeAll()}. Guarded by tablesLock. */
  private final List<ColumnFamilyHandle> handles = new ArrayList<>();
  private final Map<String, TableHandle> tables = new HashMap<>(); // guarded by tablesLock
  /** Column families of tables whose schema row is missing (a crash between creating both); all empty. */
  private final Map<String, ColumnFamilyHandle> unregistered = new HashMap<>(); // guarded by tablesLock

  TableCatalog(RocksDbTableStore owner, OpenDatabase database) {
    this.owner = owner;
    this.dir = database.dir;
    this.db = database.db;
    this.options = database.options;
    this.readOptions = options.readOptions;
    this.metaWriteOptions = options.metaWriteOptions;
    this.legacyCells = database.opened.legacyCells();
    this.handles.addAll(database.opened.handles());
    this.unregistered.putAll(database.opened.unregistered());
    this.defaultCf = handles.get(0);
  }

  /** @return the default column family (metadata rows) */
  ColumnFamilyHandle defaultCf() {
    return defaultCf;
  }

  /**
   * {@link RocksDbTableStore#openTable}: the open table, or a new one (its column family, and its schema row,
   * fsynced).
   */
  TableHandle open(TableSchema schema, boolean readOnly) {
    try {
      synchronized (tablesLock) {
        TableHandle existing = tables.get(schema.path());
        if (existing != null) {
          if (!existing.schema.equals(schema)) {
            throw new SchemaMismatchException(schema.path() + " in RocksDB state directory " + dir,
                schema + " (fingerprint " + SchemaText.fingerprint(schema) + ")",
                existing.schema + " (fingerprint " + SchemaText.fingerprint(existing.schema) + ")");
          }
          return existing;
        }
        if (readOnly) {
          throw new StoreException("table " + schema.path() + " does not exist in RocksDB state directory " + dir
              + ", opened read-only: it cannot be created", null, false, ErrorContext.NONE.withTable(schema.path()));
        }
        ColumnFamilyHandle cf = unregistered.remove(schema.path());
        if (cf == null) {
          cf = db.createColumnFamily(new ColumnFamilyDescriptor(cfName(schema.path()), options.cfOptions));
          handles.add(cf);
        }
        db.put(defaultCf, metaWriteOptions, schemaKey(schema.path()),
            SchemaText.write(schema).getBytes(StandardCharsets.UTF_8));
        TableHandle h = new TableHandle(owner, dir, legacyCells, schema, cf);
        tables.put(schema.path(), h);
        return h;
      }
    } catch (RocksDBException e) {
      throw Failures.rocks("cannot create table " + schema.path() + " in RocksDB state directory " + dir, e);
    }
  }

  Optional<TableHandle> find(String path) {
    synchronized (tablesLock) {
      return Optional.ofNullable(tables.get(path));
    }
  }

  /** @return the paths of every table, sorted */
  List<String> paths() {
    synchronized (tablesLock) {
      return List.copyOf(new TreeSet<>(tables.keySet()));
    }
  }

  /** Flushes every column family to SST files. */
  void flush() {
    try (FlushOptions fo = new FlushOptions().setWaitForFlush(true)) {
      synchronized (tablesLock) {
        db.flush(fo, new ArrayList<>(handles));
      }
    } catch (RocksDBException e) {
      throw Failures.rocks("flush of " + dir + " failed", e);
    }
  }

  /** Closes every column family handle and forgets the tables (before the database is closed). */
  void closeAll() {
    synchronized (tablesLock) {
      for (ColumnFamilyHandle h : handles) {
        h.close();
      }
      handles.clear();
      unregistered.clear();
      tables.clear();
    }
  }

  /**
   * Registers every table of the database, checking that none lost its schema row or its column family (either
   * means files of the database are missing or damaged), nor that a table's rows disagree with its commit marker.
   *
   * @return the number of the last commit that wrote rows (durable in the markers)
   */
  long load() {
    try (RocksIterator it = db.newIterator(defaultCf, readOptions)) {
      byte[] prefix = SCHEMA_KEY_PREFIX.getBytes(StandardCharsets.UTF_8);
      synchronized (tablesLock) {
        for (it.seek(prefix); it.isValid(); it.next()) {
          byte[] key = it.key();
          if (!startsWith(key, prefix)) {
            break;
          }
          String path = new String(key, prefix.length, key.length - prefix.length, StandardCharsets.UTF_8);
          TableSchema schema;
          try {
            schema = SchemaText.read(new String(it.value(), StandardCharsets.UTF_8));
          } catch (RuntimeException e) {
            throw new StoreException("RocksDB state directory " + dir + ": the stored schema of table " + path
                + " cannot be read (" + e.getMessage() + "); the directory was written by another format or is "
                + "damaged", e, false, ErrorContext.NONE.withTable(path));
          }
          ColumnFamilyHandle cf = unregistered.remove(path);
          if (cf == null) {
            throw lost("table " + path + " has a schema but no column family: its rows are lost (files of the "
                + "database are missing or damaged)", null);
          }
          tables.put(path, new TableHandle(owner, dir, legacyCells, schema, cf));
        }
        it.status();
        long highest = checkMarkers();
        for (Map.Entry<String, ColumnFamilyHandle> e : unregistered.entrySet()) {
          try (RocksIterator rows = db.newIterator(e.getValue(), readOptions)) {
            rows.seekToFirst();
            if (rows.isValid()) {
              throw lost("table " + e.getKey() + " holds rows but lost its schema row (files of the database are "
                  + "missing or damaged)", null);
            }
            rows.status();
          }
        }
        return highest;
      }
    } catch (RocksDBException e) {
      throw Failures.rocks("cannot read the table schemas of RocksDB state directory " + dir, e);
    }
  }

  /**
   * Every commit writes, in one batch with its rows, its number into each table it writes (the marker) and into the
   * default column family's copy; so after any crash both agree. A table whose marker differs from the copy lost
   * (or kept from elsewhere) rows that the database's metadata no longer or not yet references: files of the
   * database are missing, truncated or damaged (e.g. a truncated MANIFEST that dropped a table's SST files). Called
   * under tablesLock.
   *
   * @return the highest marker
   */
  private long checkMarkers() throws RocksDBException {
    long highest = 0;
    for (TableHandle h : tables.values()) {
      String path = h.schema.path();
      byte[] copy = db.get(defaultCf, readOptions, writtenKey(path));
      byte[] marker;
      try {
        marker = db.get(h.cf, readOptions, MARKER_KEY);
      } catch (RocksDBException e) {
        if (Failures.isCorruption(e)) {
          throw h.unreadable("(the table's commit marker, in its first block)", e);
        }
        throw e;
      }
      long expected;
      long found;
      try {
        expected = copy == null ? 0 : bytesLong(copy);
        found = marker == null ? 0 : bytesLong(marker);
      } catch (IllegalArgumentException e) {
        throw lost("the commit marker of table " + path + " is damaged (" + e.getMessage() + ")", e);
      }
      if (expected != found) {
        throw lost("table " + path + " does not hold the rows of the commits that wrote it: the database records "
            + "commit #" + expected + " as the table's last write, the table holds "
            + (found == 0 ? "no commit" : "commit #" + found) + " (its rows were lost: files of the database are "
            + "missing, truncated or damaged)", null);
      }
      highest = Math.max(highest, expected);
    }
    return highest;
  }

  private StoreException lost(String what, Throwable cause) {
    return DatabaseOpener.lost(dir, what, cause);
  }
}
