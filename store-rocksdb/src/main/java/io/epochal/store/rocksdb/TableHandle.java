package io.epochal.store.rocksdb;

import io.epochal.errors.StateCorruptedException;
import io.epochal.store.rocksdb.internal.KeyEncoding;
import io.epochal.store.rocksdb.internal.SchemaText;
import io.epochal.store.rocksdb.internal.ValueEncoding;
import io.epochal.store.table.Column;
import io.epochal.store.table.ColumnType;
import io.epochal.store.table.Row;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableKey;
import io.epochal.store.table.TableSchema;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.OptionalLong;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDBException;

/**
 * An open table of a {@link RocksDbTableStore}: its schema and column family, and the encoding and checking of its
 * keys and rows. Immutable and thread-safe (the column family handle is closed by the store).
 */
final class TableHandle implements Table {
  final RocksDbTableStore owner;
  final TableSchema schema;
  final ColumnFamilyHandle cf;
  final List<KeyEncoding.Kind> keyKinds;
  final List<KeyEncoding.Kind> valueKinds;
  final byte[] pathBytes;
  /** Index of the value column holding the row's txid (an int64 named txid or *_txid), or -1. */
  final int txidColumn;
  /** The state directory, for messages. */
  private final Path dir;
  /** Whether cells of the unchecked format-1 encoding may be read. */
  private final boolean legacyCells;

  TableHandle(RocksDbTableStore owner, Path dir, boolean legacyCells, TableSchema schema, ColumnFamilyHandle cf) {
    this.owner = owner;
    this.dir = dir;
    this.legacyCells = legacyCells;
    this.schema = schema;
    this.cf = cf;
    this.keyKinds = SchemaText.kinds(schema.keyColumns());
    this.valueKinds = SchemaText.kinds(schema.valueColumns());
    this.pathBytes = schema.path().getBytes(StandardCharsets.UTF_8);
    int t = -1;
    List<Column> values = schema.valueColumns();
    for (int i = 0; i < values.size() && t < 0; i++) {
      Column c = values.get(i);
      if (c.type() == ColumnType.INT64 && (c.name().equals("txid") || c.name().endsWith("_txid"))) {
        t = i;
      }
    }
    this.txidColumn = t;
  }

  @Override
  public TableSchema schema() {
    return schema;
  }

  byte[] encodeKey(TableKey key) {
    return KeyEncoding.encode(keyKinds, key);
  }

  byte[] encodeValue(byte[] keyBytes, List<Object> values) {
    return ValueEncoding.encode(valueKinds, values, pathBytes, keyBytes);
  }

  Row decodeRow(TableKey key, byte[] keyBytes, byte[] value) {
    try {
      return Row.of(key, ValueEncoding.decode(valueKinds, value, pathBytes, keyBytes, legacyCells));
    } catch (IllegalArgumentException | NullPointerException e) {
      throw new StateCorruptedException(schema.path(), key.describeParts(), claimedTxid(value), e);
    }
  }

  /** The txid the (damaged) cell claims, if it decodes at all: for the error message. */
  private OptionalLong claimedTxid(byte[] value) {
    if (txidColumn < 0) {
      return OptionalLong.empty();
    }
    return ValueEncoding.decodeUnverified(valueKinds, value)
        .filter(v -> v[txidColumn] instanceof Long)
        .map(v -> OptionalLong.of((Long) v[txidColumn]))
        .orElse(OptionalLong.empty());
  }

  /** The error for a row RocksDB could not read (a damaged block): named by its key, no txid readable. */
  StateCorruptedException unreadable(String key, RocksDBException e) {
    return new StateCorruptedException(schema.path(), key, OptionalLong.empty(),
        new IllegalStateException("RocksDB cannot read it from state directory " + dir + ": "
            + e.getMessage(), e));
  }

  TableKey decodeKey(byte[] bytes) {
    try {
      Object[] values = KeyEncoding.decode(keyKinds, bytes);
      TableKey key = TableKey.of(schema, Arrays.copyOfRange(values, 1, values.length));
      if (key.hash() != (Long) values[0]) {
        throw new IllegalArgumentException("stored hash " + Long.toUnsignedString((Long) values[0])
            + " is not farm_hash of the key, " + Long.toUnsignedString(key.hash()));
      }
      return key;
    } catch (RuntimeException e) {
      throw new StateCorruptedException(schema.path(), "0x" + HexFormat.of().formatHex(bytes),
          OptionalLong.empty(), e);
    }
  }

  @Override
  public String toString() {
    return "Table[" + schema.path() + "]";
  }
}
