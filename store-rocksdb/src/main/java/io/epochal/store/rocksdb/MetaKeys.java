package io.epochal.store.rocksdb;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The layout of the database's own rows: the column family name of each table, the keys of the default column
 * family's metadata rows (schemas, leases, database id, markers' copies) and of each table's commit marker, and the
 * 8-byte encoding of commit numbers. Stateless and thread-safe.
 */
final class MetaKeys {
  static final String TABLE_CF_PREFIX = "t:";
  static final String SCHEMA_KEY_PREFIX = "schema/";
  static final String LEASE_KEY_PREFIX = "lease/";
  static final byte[] DATABASE_ID_KEY = "meta/database-id".getBytes(StandardCharsets.UTF_8);
  /** Written once format.properties exists: a database with it but no format file lost that file. */
  static final byte[] INITIALISED_KEY = "meta/initialised".getBytes(StandardCharsets.UTF_8);
  /**
   * The key of each table's commit marker, in the table's column family: the number of the last commit that wrote
   * the table. It sorts before every row key (those start with a type tag, 0x02 or more).
   */
  static final byte[] MARKER_KEY = {0x00};
  /** Where scans of a table's rows start: after its marker. */
  static final byte[] FIRST_ROW_KEY = {0x01};
  /** The default column family's copy of each table's marker: {@code written/<path>}. */
  static final String WRITTEN_KEY_PREFIX = "written/";

  private MetaKeys() {
  }

  static byte[] cfName(String path) {
    return (TABLE_CF_PREFIX + path).getBytes(StandardCharsets.UTF_8);
  }

  static byte[] writtenKey(String path) {
    return (WRITTEN_KEY_PREFIX + path).getBytes(StandardCharsets.UTF_8);
  }

  static byte[] schemaKey(String path) {
    return (SCHEMA_KEY_PREFIX + path).getBytes(StandardCharsets.UTF_8);
  }

  static byte[] leaseKey(String name) {
    return (LEASE_KEY_PREFIX + name).getBytes(StandardCharsets.UTF_8);
  }

  static byte[] longBytes(long v) {
    return ByteBuffer.allocate(8).putLong(v).array();
  }

  static long bytesLong(byte[] b) {
    if (b.length != 8) {
      throw new IllegalArgumentException(b.length + " bytes, not 8");
    }
    return ByteBuffer.wrap(b).getLong();
  }

  static boolean startsWith(byte[] b, byte[] prefix) {
    return b.length >= prefix.length && Arrays.equals(b, 0, prefix.length, prefix, 0, prefix.length);
  }
}
