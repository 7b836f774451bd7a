package io.epochal.store.rocksdb.internal;

import io.epochal.errors.StoreException;
import java.io.IOException;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Supplier;
import java.util.zip.CRC32;

/**
 * The writer leases of a state directory, shared by every process that opens the directory.
 *
 * <p>Two files next to the RocksDB data:
 * <ul>
 *   <li>{@value #LOCK_FILE}: empty; its {@link ProcessLock} (in-JVM lock plus {@code FileChannel.lock()}) guards
 *       the commit critical section of every process and every lease change;</li>
 *   <li>{@value #LEASE_FILE}: the id of the database the leases belong to, and every named lease with its
 *       {@code generation} and {@code owner}, with a CRC. It is only ever replaced whole (write to a temporary file,
 *       {@code fsync}, atomic rename, {@code fsync} of the directory), so a reader sees the old or the new leases,
 *       never a torn file, even after a machine crash.</li>
 * </ul>
 *
 * <p>A worker takes a lease with {@link #write} under the lock: generation {@code g + 1} over the highest generation
 * {@code g} known (in this file or, kept by the store, in the database). A commit holds the lock while it
 * {@linkplain #read() reads} the file and compares the database id, generation and owner with its own, and writes its
 * RocksDB batch; so every commit is ordered entirely before or entirely after every takeover, and a commit after a
 * takeover, or after the file was replaced by one of another database, writes nothing.
 *
 * <p>Thread-safe.
 */
public final class LeaseFile implements AutoCloseable {
  /** The lock file's name in the state directory. */
  public static final String LOCK_FILE = "lease.lock";
  /** The lease file's name in the state directory. */
  public static final String LEASE_FILE = "LEASE";

  /** A lease as recorded. Generation 0 means the lease was never taken. */
  public record Lease(String name, long generation, String owner) {
  }

  /** Whether the file could be read. */
  public enum Status {
    /** Read and checked. */
    OK,
    /** There is no lease file. */
    MISSING,
    /** The file fails its checksum or does not parse. */
    DAMAGED
  }

  /**
   * What the file holds.
   *
   * @param status whether it could be read; when not {@link Status#OK}, the other fields are empty
   * @param problem why it could not be read ({@code ""} when read)
   * @param databaseId the id of the database the leases belong to (absent in files of format 1)
   * @param leases the leases by name, unmodifiable
   */
  public record Contents(Status status, String problem, Optional<String> databaseId, Map<String, Lease> leases) {
    /**
     * Looks up one lease.
     *
     * @param name the lease's name (one per pipeline writer)
     * @return lease {@code name}; generation 0 and owner {@code ""} if it was never taken
     */
    public Lease get(String name) {
      Lease l = leases.get(name);
      return l == null ? new Lease(name, 0, "") : l;
    }

    /**
     * Tells whether these leases are those of a given database, so that a lease file copied from another directory
     * is not trusted.
     *
     * @param id the database id of the directory (as recorded in {@link FormatFile})
     * @return whether the file was read and belongs to database {@code id}
     */
    public boolean belongsTo(String id) {
      return status == Status.OK && databaseId.equals(Optional.of(id));
    }
  }

  private final Path dir;
  private final Path file;
  private final ProcessLock lock;

  private LeaseFile(Path dir) {
    this.dir = dir;
    this.file = dir.resolve(LEASE_FILE);
    this.lock = ProcessLock.open(dir.resolve(LOCK_FILE));
  }

  /**
   * Opens the lease of the state directory {@code dir} (which must exist).
   *
   * @param dir the state directory; {@value #LOCK_FILE} is created in it if missing
   * @return the lease file of {@code dir}, holding an open handle on its lock file until closed
   * @throws StoreException if the lock file cannot be created
   */
  public static LeaseFile open(Path dir) {
    return new LeaseFile(dir);
  }

  /**
   * Runs {@code action} inside the cross-process critical section of this directory.
   *
   * @param <T> the type of the action's result
   * @param action what to do while holding the lock (in this JVM and against other processes)
   * @return what {@code action} returned
   * @throws StoreException if the lock cannot be taken
   */
  public <T> T locked(Supplier<T> action) {
    return lock.locked(action);
  }

  /**
   * Gives the lease file's path in the state directory.
   *
   * @return the file, e.g. for messages
   */
  public Path path() {
    return file;
  }

  /**
   * Reads the file. Call inside {@link #locked} for a decision that has to stay true (the leases can change as soon
   * as the lock is released).
   *
   * @return the leases, or status {@link Status#MISSING} or {@link Status#DAMAGED} with the problem and no leases
   * @throws StoreException if the file exists but cannot be read (an I/O error)
   */
  public Contents read() {
    return read(file);
  }

  /**
   * Reads the lease file {@code file} (see {@link #read()}); works without the lock, e.g. on a read-only copy.
   *
   * @param file the path of a {@value #LEASE_FILE} file
   * @return the leases, or status {@link Status#MISSING} or {@link Status#DAMAGED} with the problem and no leases
   * @throws StoreException if the file exists but cannot be read (an I/O error)
   */
  public static Contents read(Path file) {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      return new Contents(Status.MISSING, "there is no " + file, Optional.empty(), Map.of());
    } catch (IOException e) {
      throw Failures.io("cannot read the lease file " + file, e);
    }
    try {
      return parse(bytes);
    } catch (IllegalArgumentException e) {
      return new Contents(Status.DAMAGED, file + " is damaged (" + e.getMessage() + ")", Optional.empty(),
          Map.of());
    }
  }

  /**
   * Replaces the file by {@code leases} of database {@code databaseId}; durable before it returns. Must be called
   * inside {@link #locked}.
   *
   * @param databaseId the database's id, or empty when it is not known (a format-1 directory)
   * @param leases every lease to keep, by name (those left out are dropped); each with a generation of at least 1
   * @throws StoreException if the file cannot be written
   */
  public void write(Optional<String> databaseId, Map<String, Lease> leases) {
    StringBuilder body = new StringBuilder("format=2\n");
    databaseId.ifPresent(id -> body.append("database.id=").append(enc(id)).append('\n'));
    for (Lease l : new TreeMap<>(leases).values()) {
      body.append("lease.").append(enc(l.name())).append('=').append(l.generation()).append(' ')
          .append(enc(l.owner())).append('\n');
    }
    CRC32 crc = new CRC32();
    crc.update(body.toString().getBytes(StandardCharsets.UTF_8));
    String text = "# Epochal writer leases of this state directory; written only under " + LOCK_FILE
        + ". Do not edit.\n" + body + "crc32=" + Long.toHexString(crc.getValue()) + "\n";
    Failures.writeAtomically(dir, LEASE_FILE, text.getBytes(StandardCharsets.UTF_8));
  }

  private static Contents parse(byte[] bytes) {
    String text = new String(bytes, StandardCharsets.UTF_8);
    Map<String, String> fields = new LinkedHashMap<>();
    StringBuilder body = new StringBuilder();
    for (String line : text.split("\n", -1)) {
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      int eq = line.indexOf('=');
      if (eq < 0) {
        throw new IllegalArgumentException("line without '=': " + line);
      }
      String key = line.substring(0, eq);
      if (fields.put(key, line.substring(eq + 1)) != null) {
        throw new IllegalArgumentException("duplicate entry " + key);
      }
      if (!key.equals("crc32")) {
        body.append(line).append('\n');
      }
    }
    CRC32 crc = new CRC32();
    crc.update(body.toString().getBytes(StandardCharsets.UTF_8));
    if (!Long.toHexString(crc.getValue()).equals(fields.get("crc32"))) {
      throw new IllegalArgumentException("checksum mismatch");
    }
    String format = fields.get("format");
    if (!"1".equals(format) && !"2".equals(format)) {
      throw new IllegalArgumentException("unknown lease format " + format);
    }
    Optional<String> id = Optional.ofNullable(fields.get("database.id")).map(LeaseFile::dec);
    Map<String, Lease> leases = new TreeMap<>();
    for (Map.Entry<String, String> e : fields.entrySet()) {
      if (!e.getKey().startsWith("lease.")) {
        continue;
      }
      String name = dec(e.getKey().substring("lease.".length()));
      String[] parts = e.getValue().split(" ", 2);
      try {
        long generation = Long.parseLong(parts[0]);
        if (generation < 1) {
          throw new IllegalArgumentException("generation " + generation + " of lease '" + name + "'");
        }
        leases.put(name, new Lease(name, generation, parts.length > 1 ? dec(parts[1]) : ""));
      } catch (NumberFormatException ex) {
        throw new IllegalArgumentException("bad generation of lease '" + name + "': " + parts[0]);
      }
    }
    return new Contents(Status.OK, "", id, Collections.unmodifiableMap(leases));
  }

  /**
   * Encodes a lease for a row of the database: {@code "<generation> <owner>"}.
   *
   * @param lease the lease to encode; its name is the row's key and is not part of the encoding
   * @return the row's value, UTF-8 with the owner URL-encoded
   */
  public static byte[] toRow(Lease lease) {
    return (lease.generation() + " " + enc(lease.owner())).getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Decodes a lease row written by {@link #toRow}.
   *
   * @param name the lease's name (the row's key)
   * @param row the row's value
   * @return the lease the row records
   * @throws IllegalArgumentException if the bytes are not such a row
   */
  public static Lease fromRow(String name, byte[] row) {
    String[] parts = new String(row, StandardCharsets.UTF_8).split(" ", 2);
    try {
      return new Lease(name, Long.parseLong(parts[0]), parts.length > 1 ? dec(parts[1]) : "");
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("not a lease row: " + new String(row, StandardCharsets.UTF_8), e);
    }
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  private static String dec(String s) {
    return URLDecoder.decode(s, StandardCharsets.UTF_8);
  }

  /** Releases the lock file handle. Idempotent. */
  @Override
  public void close() {
    lock.close();
  }
}
