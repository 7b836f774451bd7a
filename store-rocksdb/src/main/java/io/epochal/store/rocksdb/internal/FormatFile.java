package io.epochal.store.rocksdb.internal;

import io.epochal.errors.StoreException;
import java.io.IOException;
import java.io.StringReader;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;

/**
 * {@value #NAME}: the on-disk format of a RocksDB state directory, written once when the directory is created and
 * checked on every open. It records the format version and the key, value and schema encodings; the schema (with its
 * fingerprint and the codec ids carried in its attributes) of each table is stored inside the database, in the
 * default column family, and checked when the table is opened.
 */
public final class FormatFile {
  /** The file's name in the state directory. */
  public static final String NAME = "format.properties";
  /** The format version this library writes and reads. */
  public static final int VERSION = 1;

  /** The entries a directory of this format has, in order. */
  public static final Map<String, String> EXPECTED;

  static {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("format.version", Integer.toString(VERSION));
    m.put("key.encoding", "ytsaurus-order-v1");
    m.put("value.encoding", "tagged-v1");
    m.put("schema.encoding", "schema-text-v1");
    m.put("layout", "column-family-per-table-v1");
    EXPECTED = java.util.Collections.unmodifiableMap(m);
  }

  private FormatFile() {
  }

  /**
   * Checks the format of the state directory {@code dir}, or writes it if the directory holds no database yet.
   *
   * @param dir the state directory, which exists
   * @param dbDir the RocksDB directory inside it
   * @throws StoreException if the directory was written in another format (naming the directory, the expected and
   *     the found values), or holds a database without a format file, or cannot be read or written
   */
  public static void checkOrCreate(Path dir, Path dbDir) {
    Path file = dir.resolve(NAME);
    if (!Files.exists(file)) {
      if (Files.exists(dbDir.resolve("CURRENT"))) {
        throw new StoreException("RocksDB state directory " + dir + " holds a database but no " + NAME
            + ": it was not written by epochal-store-rocksdb, or the file was removed. Expected " + NAME + " with "
            + EXPECTED + ".");
      }
      write(dir, file);
      return;
    }
    Properties found = new Properties();
    try {
      found.load(new StringReader(Files.readString(file, StandardCharsets.UTF_8)));
    } catch (IOException e) {
      throw new StoreException("cannot read " + file + ": " + e, e);
    }
    for (Map.Entry<String, String> e : EXPECTED.entrySet()) {
      String value = found.getProperty(e.getKey());
      if (!e.getValue().equals(value)) {
        throw new StoreException("RocksDB state directory " + dir + " was written in another format: " + NAME
            + " has " + e.getKey() + "=" + value + ", this library (format version " + VERSION + ") expects "
            + e.getKey() + "=" + e.getValue() + ". Open it with the library version that wrote it, or use a new "
            + "state directory.");
      }
    }
  }

  private static void write(Path dir, Path file) {
    StringBuilder sb = new StringBuilder("# Epochal RocksDB state directory. Checked on every open; do not edit.\n");
    EXPECTED.forEach((k, v) -> sb.append(k).append('=').append(v).append('\n'));
    Path tmp = dir.resolve(NAME + ".tmp");
    try {
      try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
          StandardOpenOption.TRUNCATE_EXISTING)) {
        ByteBuffer buf = ByteBuffer.wrap(sb.toString().getBytes(StandardCharsets.UTF_8));
        while (buf.hasRemaining()) {
          ch.write(buf);
        }
        ch.force(true);
      }
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      LeaseFile.fsyncDirectory(dir);
    } catch (IOException e) {
      throw new StoreException("cannot write " + file + ": " + e, e);
    }
  }
}
