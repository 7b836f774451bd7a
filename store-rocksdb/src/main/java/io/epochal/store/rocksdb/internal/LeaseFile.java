package io.epochal.store.rocksdb.internal;

import io.epochal.errors.StoreException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import java.util.zip.CRC32;

/**
 * The writer lease of a state directory, shared by every process that opens the directory.
 *
 * <p>Two files next to the RocksDB data:
 * <ul>
 *   <li>{@value #LOCK_FILE}: empty; its {@link ProcessLock} (in-JVM lock plus {@code FileChannel.lock()}) guards
 *       the commit critical section of every process and every lease change;</li>
 *   <li>{@value #LEASE_FILE}: every named lease with its {@code generation} and {@code owner}, with a CRC. It
 *       is only ever replaced whole (write to a temporary file, {@code fsync}, atomic rename, {@code fsync} of the
 *       directory), so a reader sees the old or the new leases, never a torn file, even after a machine crash.</li>
 * </ul>
 *
 * <p>A worker takes a lease with {@link #takeOver}: under the lock it reads the lease's generation {@code g} and
 * writes {@code g + 1}. A commit holds the lock while it {@linkplain #current(String) reads} the generation,
 * compares it with its own, and writes its RocksDB batch; so every commit is ordered entirely before or entirely
 * after every takeover, and a commit after a takeover sees the newer generation and writes nothing. Generations are
 * never reused, so a fenced worker can never become valid again.
 *
 * <p>Thread-safe.
 */
public final class LeaseFile implements AutoCloseable {
  /** The lock file's name in the state directory. */
  public static final String LOCK_FILE = "lease.lock";
  /** The lease file's name in the state directory. */
  public static final String LEASE_FILE = "LEASE";

  /** A lease as recorded in the file. Generation 0 means the lease was never taken. */
  public record Lease(String name, long generation, String owner) {
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
   * @throws StoreException if the lock file cannot be created
   */
  public static LeaseFile open(Path dir) {
    return new LeaseFile(dir);
  }

  /**
   * Runs {@code action} inside the cross-process critical section of this directory.
   *
   * @throws StoreException if the lock cannot be taken
   */
  public <T> T locked(Supplier<T> action) {
    return lock.locked(action);
  }

  /**
   * The current lease {@code name}. Must be called inside {@link #locked} for a decision that has to stay true (the
   * lease can change as soon as the lock is released).
   *
   * @return the lease; generation 0 and owner {@code ""} if it was never taken
   * @throws StoreException if the file cannot be read or is corrupt
   */
  public Lease current(String name) {
    Lease lease = readAll().get(name);
    return lease == null ? new Lease(name, 0, "") : lease;
  }

  /**
   * Takes the lease {@code name} over for {@code owner}: its generation becomes the current one plus one, which
   * fences every earlier holder of that lease, in this process or any other. Durable before it returns.
   *
   * @return the new lease
   * @throws StoreException if the lease file cannot be read or written
   */
  public Lease takeOver(String name, String owner) {
    return locked(() -> {
      Map<String, Lease> all = readAll();
      Lease previous = all.get(name);
      Lease next = new Lease(name, (previous == null ? 0 : previous.generation()) + 1, owner);
      all.put(name, next);
      write(all);
      return next;
    });
  }

  /** @return every lease of the directory, for messages, e.g. {@code [Lease[name=wc, generation=3, owner=a]]} */
  public String describeAll() {
    return readAll().values().toString();
  }

  private Map<String, Lease> readAll() {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      return new TreeMap<>();
    } catch (IOException e) {
      throw new StoreException("cannot read the lease file " + file + ": " + e, e);
    }
    return parse(bytes);
  }

  private void write(Map<String, Lease> leases) {
    StringBuilder body = new StringBuilder("format=1\n");
    for (Lease l : leases.values()) {
      body.append("lease.").append(enc(l.name())).append('=').append(l.generation()).append(' ')
          .append(enc(l.owner())).append('\n');
    }
    CRC32 crc = new CRC32();
    crc.update(body.toString().getBytes(StandardCharsets.UTF_8));
    String text = "# Epochal writer leases of this state directory; written only under " + LOCK_FILE
        + ". Do not edit.\n" + body + "crc32=" + Long.toHexString(crc.getValue()) + "\n";
    Path tmp = dir.resolve(LEASE_FILE + ".tmp");
    try {
      try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
          StandardOpenOption.TRUNCATE_EXISTING)) {
        ByteBuffer buf = ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
        while (buf.hasRemaining()) {
          ch.write(buf);
        }
        ch.force(true);
      }
      try {
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        throw new StoreException("the file system of " + dir + " cannot rename atomically; the lease needs it", e);
      }
      fsyncDirectory(dir);
    } catch (IOException e) {
      throw new StoreException("cannot write the lease file " + file + ": " + e, e);
    }
  }

  private Map<String, Lease> parse(byte[] bytes) {
    String text = new String(bytes, StandardCharsets.UTF_8);
    Map<String, String> fields = new LinkedHashMap<>();
    StringBuilder body = new StringBuilder();
    for (String line : text.split("\n", -1)) {
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      int eq = line.indexOf('=');
      if (eq < 0) {
        throw corrupt("line without '=': " + line);
      }
      String key = line.substring(0, eq);
      fields.put(key, line.substring(eq + 1));
      if (!key.equals("crc32")) {
        body.append(line).append('\n');
      }
    }
    CRC32 crc = new CRC32();
    crc.update(body.toString().getBytes(StandardCharsets.UTF_8));
    if (!Long.toHexString(crc.getValue()).equals(fields.get("crc32"))) {
      throw corrupt("checksum mismatch");
    }
    if (!"1".equals(fields.get("format"))) {
      throw corrupt("unknown lease format " + fields.get("format"));
    }
    Map<String, Lease> leases = new TreeMap<>();
    for (Map.Entry<String, String> e : fields.entrySet()) {
      if (!e.getKey().startsWith("lease.")) {
        continue;
      }
      String name = dec(e.getKey().substring("lease.".length()));
      String[] parts = e.getValue().split(" ", 2);
      try {
        leases.put(name, new Lease(name, Long.parseLong(parts[0]), parts.length > 1 ? dec(parts[1]) : ""));
      } catch (NumberFormatException ex) {
        throw corrupt("bad generation of lease '" + name + "': " + parts[0]);
      }
    }
    return leases;
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  private static String dec(String s) {
    return URLDecoder.decode(s, StandardCharsets.UTF_8);
  }

  private StoreException corrupt(String why) {
    return new StoreException("the lease file " + file + " is corrupt (" + why + "); it is written only by "
        + "Epochal, restore it or delete it to reset the lease (every running worker of the directory must be "
        + "stopped first)");
  }

  /** Makes a rename in {@code dir} durable (Linux: fsync of the directory). */
  static void fsyncDirectory(Path dir) throws IOException {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    } catch (IOException e) {
      // Some file systems refuse to open a directory for reading; the rename is still atomic there.
      if (!(e instanceof java.nio.file.AccessDeniedException)
          && !(e.getMessage() != null && e.getMessage().contains("Is a directory"))) {
        throw e;
      }
    }
  }

  /** Releases the lock file handle. Idempotent. */
  @Override
  public void close() {
    lock.close();
  }
}
