package io.epochal.testkit.store;

import io.epochal.errors.StateCorruptedException;
import io.epochal.store.table.Lease;
import io.epochal.store.table.ReadHook;
import io.epochal.store.table.Row;
import io.epochal.store.table.StoreCapabilities;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableKey;
import io.epochal.store.table.TableSchema;
import io.epochal.store.table.TableStore;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.zip.CRC32C;

/**
 * A test double of a store that keeps rows as bytes, over an in-memory store (which calls {@code beforeRead}): every
 * row read is turned into bytes ({@code crc32c + row text}), passed through {@link ReadHook#storedBytes}, and then,
 * depending on the {@link Mode}, checked, ignored, or a read failure is read as "absent". The checked mode shows the
 * contract's byte cases can pass; the other modes are the defects they must catch. Thread-safe.
 */
final class ByteKeepingStore implements TableStore {

  /** What the store does with the bytes the hook returns and with read failures. */
  enum Mode {
    /** Checks the checksum and that the bytes decode to the row; damaged bytes are StateCorruptedException. */
    CHECKED,
    /** Passes the bytes through the hook but never looks at what it returns (a store that does not decode). */
    IGNORING_THE_BYTES,
    /** Checks the bytes, but turns any read failure into "absent" (the bug the contract exists to catch). */
    ABSENT_ON_ERROR
  }

  private final TableStore inner;
  private final ReadHook hook;
  private final Mode mode;

  ByteKeepingStore(TableStore inner, ReadHook hook, Mode mode) {
    this.inner = inner;
    this.hook = hook;
    this.mode = mode;
  }

  private static byte[] encode(Row row) {
    byte[] text = row.toString().getBytes(StandardCharsets.UTF_8);
    CRC32C crc = new CRC32C();
    crc.update(text);
    return ByteBuffer.allocate(4 + text.length).putInt((int) crc.getValue()).put(text).array();
  }

  private Row check(String path, Row row) {
    byte[] bytes = hook.storedBytes(path, encode(row));
    if (mode == Mode.IGNORING_THE_BYTES) {
      return row;
    }
    if (bytes.length < 4) {
      throw corrupted(path, row.key(), "only " + bytes.length + " bytes");
    }
    CRC32C crc = new CRC32C();
    crc.update(bytes, 4, bytes.length - 4);
    if (ByteBuffer.wrap(bytes).getInt() != (int) crc.getValue()) {
      throw corrupted(path, row.key(), "checksum mismatch");
    }
    if (!Arrays.equals(bytes, encode(row))) {
      throw corrupted(path, row.key(), "the bytes are not the row's");
    }
    return row;
  }

  private static StateCorruptedException corrupted(String path, TableKey key, String what) {
    return new StateCorruptedException(path, key.describeParts(), OptionalLong.empty(), new IOException(what));
  }

  @Override
  public StoreCapabilities capabilities() {
    return inner.capabilities();
  }

  @Override
  public Table openTable(TableSchema schema) {
    return inner.openTable(schema);
  }

  @Override
  public Optional<Table> findTable(String path) {
    return inner.findTable(path);
  }

  @Override
  public Lease acquireLease(String name, String owner) {
    return inner.acquireLease(name, owner);
  }

  @Override
  public StoreTransaction begin() {
    return new Tx(inner.begin());
  }

  @Override
  public StoreTransaction begin(Lease lease) {
    return new Tx(inner.begin(lease));
  }

  @Override
  public String describe() {
    return "byte-keeping test store (" + mode + ") over " + inner.describe();
  }

  @Override
  public void close() {
    inner.close();
  }

  private final class Tx implements StoreTransaction {
    private final StoreTransaction tx;

    Tx(StoreTransaction tx) {
      this.tx = tx;
    }

    @Override
    public Optional<Lease> lease() {
      return tx.lease();
    }

    @Override
    public List<Optional<Row>> lookup(Table table, List<TableKey> keys) {
      List<Optional<Row>> rows;
      try {
        rows = tx.lookup(table, keys);
      } catch (RuntimeException e) {
        if (mode == Mode.ABSENT_ON_ERROR) {
          return Collections.nCopies(keys.size(), Optional.empty());
        }
        throw e;
      }
      List<Optional<Row>> out = new ArrayList<>(rows.size());
      for (Optional<Row> r : rows) {
        out.add(r.map(row -> check(table.path(), row)));
      }
      return Collections.unmodifiableList(out);
    }

    @Override
    public List<Row> scan(Table table) {
      List<Row> rows;
      try {
        rows = tx.scan(table);
      } catch (RuntimeException e) {
        if (mode == Mode.ABSENT_ON_ERROR) {
          return List.of();
        }
        throw e;
      }
      List<Row> out = new ArrayList<>(rows.size());
      for (Row row : rows) {
        out.add(check(table.path(), row));
      }
      return Collections.unmodifiableList(out);
    }

    @Override
    public void upsert(Table table, Row row) {
      tx.upsert(table, row);
    }

    @Override
    public void delete(Table table, TableKey key) {
      tx.delete(table, key);
    }

    @Override
    public void commit() {
      tx.commit();
    }

    @Override
    public void abort() {
      tx.abort();
    }

    @Override
    public void close() {
      tx.close();
    }
  }
}
