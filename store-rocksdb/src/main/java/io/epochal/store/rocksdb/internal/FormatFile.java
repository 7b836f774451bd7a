package io.epochal.store.rocksdb.internal;

import io.epochal.errors.ErrorContext;
import io.epochal.errors.StoreException;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

/**
 * {@value #NAME}: the on-disk format of a RocksDB state directory, and the mark that the directory is initialised
 * (holds a database). Written when the directory's database has been created, checked on every open.
 *
 * <p>Format {@value #VERSION} records the format version, the key, value and schema encodings and the
 * {@code database.id} (a random id also stored inside the database, so a database that was replaced or re-created is
 * recognised). Format {@value #LEGACY_VERSION} directories (no database id, unchecked value cells) are read, and
 * upgraded to format {@value #VERSION} when opened for writing: their old cells are still read (the file then says
 * {@code value.encoding.legacy=tagged-v1}), new writes use the checksummed cells. The schema of each table is stored
 * inside the database and checked when the table is opened.
 */
public final class FormatFile {
  /** The file's name in the state directory. */
  public static final String NAME = "format.properties";
  /** The format version this library writes. */
  public static final int VERSION = 2;
  /** The older format version this library reads and upgrades. */
  public static final int LEGACY_VERSION = 1;

  /** The entries a directory of the current format has (besides its database id), in order. */
  public static final Map<String, String> EXPECTED;
  /** The entries of a format-1 directory. */
  public static final Map<String, String> EXPECTED_LEGACY;

  private static final String DATABASE_ID = "database.id";
  private static final String LEGACY_CELLS = "value.encoding.legacy";
  private static final String LEGACY_CELLS_VALUE = "tagged-v1";

  static {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("format.version", Integer.toString(VERSION));
    m.put("key.encoding", "ytsaurus-order-v1");
    m.put("value.encoding", "checksummed-v2");
    m.put("schema.encoding", "schema-text-v1");
    m.put("layout", "column-family-per-table-v1");
    EXPECTED = Collections.unmodifiableMap(m);
    Map<String, String> l = new LinkedHashMap<>(m);
    l.put("format.version", Integer.toString(LEGACY_VERSION));
    l.put("value.encoding", "tagged-v1");
    EXPECTED_LEGACY = Collections.unmodifiableMap(l);
  }

  /**
   * The recorded format of a directory.
   *
   * @param version {@value #VERSION} or {@value #LEGACY_VERSION}
   * @param databaseId the database's id (format {@value #VERSION} only)
   * @param legacyCells whether cells of the unchecked encoding may be read (format-1 directories and directories
   *     upgraded from format 1)
   */
  public record Format(int version, Optional<String> databaseId, boolean legacyCells) {
  }

  private FormatFile() {
  }

  /**
   * Reads and checks the format of the state directory {@code dir}.
   *
   * @param dir the state directory
   * @return the format, or empty if the directory has no {@value #NAME} (it was never initialised)
   * @throws StoreException if the file cannot be read, or records another format (naming the directory, the expected
   *     and the found values; not retryable)
   */
  public static Optional<Format> read(Path dir) {
    Path file = dir.resolve(NAME);
    Properties found = new Properties();
    try {
      found.load(new StringReader(Files.readString(file, StandardCharsets.UTF_8)));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException e) {
      throw Failures.io("cannot read " + file, e);
    }
    boolean legacy = Integer.toString(LEGACY_VERSION).equals(found.getProperty("format.version"));
    Map<String, String> expected = legacy ? EXPECTED_LEGACY : EXPECTED;
    for (Map.Entry<String, String> e : expected.entrySet()) {
      String value = found.getProperty(e.getKey());
      if (!e.getValue().equals(value)) {
        throw new StoreException("RocksDB state directory " + dir + " was written in another format: " + NAME
            + " has " + e.getKey() + "=" + value + ", this library (format version " + VERSION + ") expects "
            + e.getKey() + "=" + (legacy ? e.getValue() : EXPECTED.get(e.getKey())) + ". Open it with the library "
            + "version that wrote it, or use a new state directory.", null, false, ErrorContext.NONE);
      }
    }
    if (legacy) {
      return Optional.of(new Format(LEGACY_VERSION, Optional.empty(), true));
    }
    String id = found.getProperty(DATABASE_ID);
    if (id == null || id.isBlank()) {
      throw new StoreException("RocksDB state directory " + dir + ": " + NAME + " has no " + DATABASE_ID
          + "; the file was edited or damaged. Restore it from a backup of the directory.", null, false,
          ErrorContext.NONE);
    }
    return Optional.of(new Format(VERSION, Optional.of(id), LEGACY_CELLS_VALUE.equals(found.getProperty(
        LEGACY_CELLS))));
  }

  /**
   * Writes {@value #NAME} in the current format for the database {@code databaseId} (atomically, fsynced).
   *
   * @param dir the state directory
   * @param databaseId the random id also stored inside the database of {@code dir}, so that a database that was
   *     replaced or re-created is recognised on open; not blank
   * @param legacyCells whether the database may hold cells of the unchecked encoding (upgraded from format 1)
   * @throws StoreException if the file cannot be written
   */
  public static void write(Path dir, String databaseId, boolean legacyCells) {
    StringBuilder sb = new StringBuilder("# Epochal RocksDB state directory. Checked on every open; do not edit.\n");
    EXPECTED.forEach((k, v) -> sb.append(k).append('=').append(v).append('\n'));
    if (legacyCells) {
      sb.append(LEGACY_CELLS).append('=').append(LEGACY_CELLS_VALUE).append('\n');
    }
    sb.append(DATABASE_ID).append('=').append(databaseId).append('\n');
    Failures.writeAtomically(dir, NAME, sb.toString().getBytes(StandardCharsets.UTF_8));
  }
}
