package io.epochal.tools;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.DBOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksIterator;

/** File helpers of the RocksDB tests: copy a directory, snapshot its files, change permissions, damage a cell. */
final class CopyTree extends SimpleFileVisitor<Path> {
  private final Path from;
  private final Path to;

  CopyTree(Path from, Path to) {
    this.from = from;
    this.to = to;
  }

  @Override
  public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
    Files.createDirectories(to.resolve(from.relativize(dir)));
    return FileVisitResult.CONTINUE;
  }

  @Override
  public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
    Files.copy(file, to.resolve(from.relativize(file)));
    return FileVisitResult.CONTINUE;
  }

  /** @return every file under {@code root} (relative path) with its size, modification time and SHA-256 */
  static Map<String, String> snapshot(Path root) throws Exception {
    Map<String, String> out = new TreeMap<>();
    try (Stream<Path> s = Files.walk(root)) {
      for (Path p : s.sorted().toList()) {
        if (Files.isRegularFile(p)) {
          byte[] sha = MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(p));
          out.put(root.relativize(p).toString(), Files.getLastModifiedTime(p) + " " + HexFormat.of().formatHex(sha));
        } else {
          out.put(root.relativize(p) + "/", "dir");
        }
      }
    }
    return out;
  }

  /** {@code chmod -R a-w} (or {@code u+w} back) of {@code root}. */
  static void setWritable(Path root, boolean writable) throws IOException {
    try (Stream<Path> s = Files.walk(root)) {
      for (Path p : s.toList()) {
        p.toFile().setWritable(writable, false);
      }
    }
  }

  /** Flips one bit of one stored cell of column family {@code cf} behind the store's back. @return the row count */
  static int damageOneCell(Path state, String cf) throws Exception {
    Path db = state.resolve("db");
    List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
    try (org.rocksdb.Options o = new org.rocksdb.Options()) {
      for (byte[] name : RocksDB.listColumnFamilies(o, db.toString())) {
        descriptors.add(new ColumnFamilyDescriptor(name));
      }
    }
    List<ColumnFamilyHandle> handles = new ArrayList<>();
    int rows = 0;
    try (DBOptions options = new DBOptions(); RocksDB raw = RocksDB.open(options, db.toString(), descriptors,
        handles)) {
      for (int i = 0; i < descriptors.size(); i++) {
        if (new String(descriptors.get(i).getName(), StandardCharsets.UTF_8).equals(cf)) {
          byte[] key = null;
          byte[] value = null;
          try (RocksIterator it = raw.newIterator(handles.get(i))) {
            for (it.seek(new byte[] {1}); it.isValid(); it.next()) {
              if (key == null && rows == 5) {
                key = it.key();
                value = it.value();
              }
              rows++;
            }
          }
          value[value.length / 2] ^= 0x01;
          raw.put(handles.get(i), key, value);
        }
      }
      raw.syncWal();
      handles.forEach(ColumnFamilyHandle::close);
    }
    return rows;
  }
}
