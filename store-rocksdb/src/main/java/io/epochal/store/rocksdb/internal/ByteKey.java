package io.epochal.store.rocksdb.internal;

import java.util.Arrays;

/**
 * An encoded row key of one table, compared by content: the key of the store's conflict map and of a transaction's
 * write set. Immutable (the array is never modified after construction) and thread-safe.
 */
public final class ByteKey {
  private final String table;
  private final byte[] bytes;
  private final int hash;

  /**
   * Wraps an encoded key of a table.
   *
   * @param table the table's path
   * @param bytes the encoded key; not copied, must not be modified afterwards
   */
  public ByteKey(String table, byte[] bytes) {
    this.table = table;
    this.bytes = bytes;
    this.hash = table.hashCode() * 31 + Arrays.hashCode(bytes);
  }

  /**
   * Names the table the key belongs to.
   *
   * @return the table's path
   */
  public String table() {
    return table;
  }

  /**
   * Gives the key's bytes, as {@link KeyEncoding#encode} wrote them.
   *
   * @return the encoded key, not copied: do not modify
   */
  public byte[] bytes() {
    return bytes;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ByteKey other && other.hash == hash && Arrays.equals(other.bytes, bytes)
        && other.table.equals(table);
  }

  @Override
  public int hashCode() {
    return hash;
  }

  @Override
  public String toString() {
    return table + ":" + java.util.HexFormat.of().formatHex(bytes);
  }
}
