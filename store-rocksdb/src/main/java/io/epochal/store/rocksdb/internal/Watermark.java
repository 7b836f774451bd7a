package io.epochal.store.rocksdb.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.zip.CRC32;

/**
 * {@value #NAME}: how far the database of a state directory is known to be durable, kept outside the database so that
 * a database that lost data it had made durable (a deleted or truncated {@code MANIFEST}, {@code CURRENT} or WAL, an
 * SST file dropped as "obsolete") is recognised instead of read as an older, smaller state.
 *
 * <p>It holds the database's id and a RocksDB sequence number that the database reached at a durable point: after
 * opening (recovery done), after every completed flush (SST files and MANIFEST synced) and after a clean close (WAL
 * synced). RocksDB never recovers to a sequence number below one it made durable, whatever crash came in between,
 * so a database whose latest sequence number after recovery is below the watermark has lost committed data. Written
 * whole and atomically (temporary file, fsync, rename), only by the process that holds the database open.
 *
 * <p>Stateless; thread-safe.
 */
public final class Watermark {
  /** The file's name in the state directory. */
  public static final String NAME = "WATERMARK";

  /**
   * A recorded watermark.
   *
   * @param databaseId the database's id
   * @param sequence the RocksDB sequence number known durable
   */
  public record Mark(String databaseId, long sequence) {
  }

  private Watermark() {
  }

  /**
   * Reads the watermark of the state directory {@code dir}.
   *
   * @param dir the state directory
   * @return the mark, or empty if there is no file
   * @throws IllegalArgumentException if the file is damaged (naming why)
   * @throws io.epochal.errors.StoreException if it cannot be read
   */
  public static Optional<Mark> read(Path dir) {
    Path file = dir.resolve(NAME);
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException e) {
      throw Failures.io("cannot read " + file, e);
    }
    Map<String, String> fields = new LinkedHashMap<>();
    StringBuilder body = new StringBuilder();
    for (String line : text.split("\n")) {
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      int eq = line.indexOf('=');
      if (eq < 0) {
        throw new IllegalArgumentException("line without '=': " + line);
      }
      fields.put(line.substring(0, eq), line.substring(eq + 1));
      if (!line.startsWith("crc32=")) {
        body.append(line).append('\n');
      }
    }
    CRC32 crc = new CRC32();
    crc.update(body.toString().getBytes(StandardCharsets.UTF_8));
    if (!Long.toHexString(crc.getValue()).equals(fields.get("crc32"))) {
      throw new IllegalArgumentException("checksum mismatch");
    }
    try {
      return Optional.of(new Mark(fields.get("database.id"), Long.parseLong(fields.get("sequence"))));
    } catch (NumberFormatException | NullPointerException e) {
      throw new IllegalArgumentException("no sequence number");
    }
  }

  /**
   * Replaces the watermark of {@code dir} (atomically, fsynced).
   *
   * @param dir the state directory
   * @param mark the database's id and the sequence number now known durable
   * @throws io.epochal.errors.StoreException if it cannot be written
   */
  public static void write(Path dir, Mark mark) {
    String body = "database.id=" + mark.databaseId() + "\nsequence=" + mark.sequence() + "\n";
    CRC32 crc = new CRC32();
    crc.update(body.getBytes(StandardCharsets.UTF_8));
    String text = "# Epochal: RocksDB sequence number known durable; written by the store, do not edit.\n" + body
        + "crc32=" + Long.toHexString(crc.getValue()) + "\n";
    Failures.writeAtomically(dir, NAME, text.getBytes(StandardCharsets.UTF_8));
  }
}
