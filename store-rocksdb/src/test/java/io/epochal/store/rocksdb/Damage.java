package io.epochal.store.rocksdb;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.errors.EpochalException;
import io.epochal.errors.StateCorruptedException;
import io.epochal.errors.StoreException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.DBOptions;
import org.rocksdb.LiveFileMetaData;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksIterator;

/**
 * Damages the real files of a state directory the way disks, people and tools do (flipped bytes, truncated or
 * deleted files, rows rewritten behind the store's back) and classifies what the store answered, for the corruption
 * tests. Stateless.
 */
final class Damage {
  private Damage() {
  }

  static Path db(Path dir) {
    return dir.resolve(RocksDbTableStore.DB_DIR);
  }

  /** XORs the byte at {@code offset} of {@code file} with {@code xor} (non-zero). */
  static void flip(Path file, long offset, int xor) throws IOException {
    byte[] b = Files.readAllBytes(file);
    b[(int) offset] ^= (byte) xor;
    Files.write(file, b);
  }

  /** Cuts {@code file} to {@code percent} of its size. */
  static void truncate(Path file, int percent) throws IOException {
    byte[] b = Files.readAllBytes(file);
    Files.write(file, java.util.Arrays.copyOf(b, (int) ((long) b.length * percent / 100)));
  }

  /** @return the only file of {@code dir}'s database whose name starts with {@code prefix} (e.g. MANIFEST-) */
  static Path onlyFile(Path dir, String prefix) throws IOException {
    List<Path> found = files(dir, prefix, "");
    assertTrue(found.size() == 1, "expected one " + prefix + "* file: " + found);
    return found.get(0);
  }

  /** @return the files of {@code dir}'s database whose names start with {@code prefix} and end with {@code suffix} */
  static List<Path> files(Path dir, String prefix, String suffix) throws IOException {
    try (Stream<Path> s = Files.list(db(dir))) {
      return s.filter(p -> p.getFileName().toString().startsWith(prefix)
          && p.getFileName().toString().endsWith(suffix)).sorted().toList();
    }
  }

  /** @return the live SST files of every column family ({@code t:<table>} or {@code default}), read read-only */
  static Map<String, List<Path>> sstFiles(Path dir) throws Exception {
    Map<String, List<Path>> out = new TreeMap<>();
    List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
    try (org.rocksdb.Options o = new org.rocksdb.Options()) {
      for (byte[] name : RocksDB.listColumnFamilies(o, db(dir).toString())) {
        descriptors.add(new ColumnFamilyDescriptor(name));
      }
    }
    List<ColumnFamilyHandle> handles = new ArrayList<>();
    try (DBOptions options = new DBOptions();
        RocksDB raw = RocksDB.openReadOnly(options, db(dir).toString(), descriptors, handles)) {
      for (LiveFileMetaData m : raw.getLiveFilesMetaData()) {
        String cf = new String(m.columnFamilyName(), StandardCharsets.UTF_8);
        String name = m.fileName().startsWith("/") ? m.fileName().substring(1) : m.fileName();
        out.computeIfAbsent(cf, k -> new ArrayList<>()).add(db(dir).resolve(name));
      }
      handles.forEach(ColumnFamilyHandle::close);
    }
    return out;
  }

  /** @return the raw rows of column family {@code cf} (keys and values as stored) */
  static Map<String, byte[]> rawRows(Path dir, String cf) throws Exception {
    Map<String, byte[]> out = new TreeMap<>();
    withRaw(dir, (raw, handle) -> {
      try (RocksIterator it = raw.newIterator(handle)) {
        for (it.seekToFirst(); it.isValid(); it.next()) {
          out.put(HexFormat.of().formatHex(it.key()), it.value());
        }
      }
    }, cf);
    return out;
  }

  /** Writes (or, with a null value, deletes) a raw row of column family {@code cf}, behind the store's back. */
  static void writeRaw(Path dir, String cf, byte[] key, byte[] value) throws Exception {
    withRaw(dir, (raw, handle) -> {
      if (value == null) {
        raw.delete(handle, key);
      } else {
        raw.put(handle, key, value);
      }
    }, cf);
  }

  interface RawAction {
    void run(RocksDB raw, ColumnFamilyHandle cf) throws Exception;
  }

  /** Runs {@code action} on column family {@code cf} of {@code dir}'s database opened raw, behind the store's back. */
  static void withRaw(Path dir, RawAction action, String cf) throws Exception {
    List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
    try (org.rocksdb.Options o = new org.rocksdb.Options()) {
      for (byte[] name : RocksDB.listColumnFamilies(o, db(dir).toString())) {
        descriptors.add(new ColumnFamilyDescriptor(name));
      }
    }
    List<ColumnFamilyHandle> handles = new ArrayList<>();
    try (DBOptions options = new DBOptions().setAtomicFlush(true); RocksDB raw = RocksDB.open(options,
        db(dir).toString(), descriptors, handles)) {
      try {
        for (int i = 0; i < descriptors.size(); i++) {
          if (new String(descriptors.get(i).getName(), StandardCharsets.UTF_8).equals(cf)) {
            action.run(raw, handles.get(i));
            return;
          }
        }
        throw new AssertionError("no column family " + cf);
      } finally {
        raw.syncWal();
        handles.forEach(ColumnFamilyHandle::close);
      }
    }
  }

  /** Every file under {@code root} with its SHA-256, for "nothing was written" checks. */
  static Map<String, String> snapshot(Path root) throws Exception {
    Map<String, String> out = new TreeMap<>();
    try (Stream<Path> s = Files.walk(root)) {
      for (Path p : s.sorted().toList()) {
        String rel = root.relativize(p).toString();
        if (Files.isDirectory(p)) {
          out.put(rel + "/", "dir");
        } else {
          out.put(rel, HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(p)))
              + " " + Files.getLastModifiedTime(p));
        }
      }
    }
    return out;
  }

  /**
   * The named error in {@code failure}'s cause chain: a {@link StateCorruptedException} naming a table in its
   * context, or a {@link StoreException} that names {@code dir} or a table in its message; and no retry may be
   * offered for it.
   *
   * @return the error
   * @throws AssertionError if there is none (the failure is anonymous, or retryable)
   */
  static EpochalException named(Throwable failure, Path dir) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof StateCorruptedException s) {
        assertTrue(s.context().table().isPresent() && s.context().key().isPresent(),
            "a corruption names table and key: " + s.getMessage());
        assertFalse(s.retryable());
        return s;
      }
      if (t instanceof StoreException s) {
        assertTrue(s.getMessage().contains(dir.toString()) || s.context().table().isPresent(),
            "a store error names the directory or table: " + s.getMessage());
        assertFalse(s.retryable(), () -> "no retry can repair damaged files: " + s);
        assertFalse(EpochalException.isRetryable(s), () -> "no retry can repair damaged files: " + s);
        return s;
      }
    }
    throw new AssertionError("not a named error: " + failure, failure);
  }

  /** @return the failure of {@code action}, or empty if it completed */
  static Optional<Throwable> failureOf(ThrowingRunnable action) {
    try {
      action.run();
      return Optional.empty();
    } catch (Throwable t) {
      if (t instanceof AssertionError a) {
        throw a;
      }
      return Optional.of(t);
    }
  }

  interface ThrowingRunnable {
    void run() throws Exception;
  }
}
