package io.epochal.store.rocksdb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.errors.EpochalException;
import io.epochal.errors.LeaseLostException;
import io.epochal.errors.StateCorruptedException;
import io.epochal.errors.StoreException;
import io.epochal.store.rocksdb.internal.FormatFile;
import io.epochal.store.rocksdb.internal.KeyEncoding;
import io.epochal.store.rocksdb.internal.LeaseFile;
import io.epochal.store.rocksdb.internal.SchemaText;
import io.epochal.store.rocksdb.internal.ValueEncoding;
import io.epochal.store.rocksdb.internal.Watermark;
import io.epochal.store.table.ColumnType;
import io.epochal.store.table.Lease;
import io.epochal.store.table.ReadHook;
import io.epochal.store.table.Row;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableCheckpointStore;
import io.epochal.store.table.TableKey;
import io.epochal.store.table.TableSchema;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.DBOptions;
import org.rocksdb.RocksDB;

/**
 * What the RocksDB store promises about its directory beyond the table-store contract: a read-only mode that never
 * writes a byte, {@link RocksDbTableStore#destroy} that never deletes a directory in use, I/O errors no retry can fix
 * reported as such, the {@link ReadHook} on every read, and format-1 directories read and upgraded.
 */
class RocksDbDirectoryTest {
  @TempDir
  Path dir;

  private static TableSchema counts() {
    return TableSchema.builder("counts").key("word", ColumnType.STRING).value("count", ColumnType.INT64).build();
  }

  private static void put(RocksDbTableStore store, Table t, String word, long n) {
    try (StoreTransaction tx = store.begin()) {
      tx.upsert(t, Row.of(t.schema().key(word), n));
      tx.commit();
    }
  }

  private static long get(RocksDbTableStore store, Table t, String word) {
    return store.lookup(t, List.of(t.schema().key(word))).get(0).orElseThrow().getLong("count");
  }

  private void someState(Path d) {
    try (RocksDbTableStore store = RocksDbTableStore.builder(d).build()) {
      Table t = store.openTable(counts());
      for (int i = 0; i < 20; i++) {
        put(store, t, "w" + i, i);
      }
      store.acquireLease("p", "writer");
    }
  }

  private static boolean isRoot() {
    return "root".equals(System.getProperty("user.name"));
  }

  // ------------------------------------------------------------------ read-only

  @Test
  void shouldReadACopyReadOnlyWithoutWritingAByte() throws Exception {
    Path state = dir.resolve("state");
    someState(state);
    Map<String, String> before = Damage.snapshot(state);
    try (RocksDbTableStore ro = RocksDbTableStore.builder(state).readOnly(true).build()) {
      assertTrue(ro.isReadOnly());
      Table t = ro.findTable("counts").orElseThrow();
      assertEquals(7L, get(ro, t, "w7"));
      try (StoreTransaction tx = ro.begin()) {
        assertEquals(20, tx.scan(t).size());
      }
      List<InspectedRow> rows = new ArrayList<>();
      ro.inspect(t, rows::add);
      assertEquals(20, rows.size());
      assertEquals(List.of("counts"), ro.tablePaths());
    }
    assertEquals(before, Damage.snapshot(state), "a read-only store writes nothing (no LOG, MANIFEST, lock)");
  }

  @Test
  void shouldReadADirectoryWithoutWritePermissionReadOnly() throws Exception {
    Assumptions.assumeFalse(isRoot(), "root writes anywhere: permissions cannot be tested");
    Path state = dir.resolve("state");
    someState(state);
    try (Stream<Path> s = Files.walk(state)) {
      for (Path p : s.toList()) {
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(Files.isDirectory(p) ? "r-xr-xr-x"
            : "r--r--r--"));
      }
    }
    try (RocksDbTableStore ro = RocksDbTableStore.builder(state).readOnly(true).build()) {
      assertEquals(3L, get(ro, ro.findTable("counts").orElseThrow(), "w3"));
    } finally {
      try (Stream<Path> s = Files.walk(state)) {
        for (Path p : s.toList()) {
          Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
      }
    }
  }

  @Test
  void shouldRefuseWritesLeasesAndNewTablesWhenReadOnlyNamingWhy() {
    someState(dir);
    try (RocksDbTableStore ro = RocksDbTableStore.builder(dir).readOnly(true).build()) {
      Table t = ro.findTable("counts").orElseThrow();
      StoreException write = assertThrows(StoreException.class, () -> put(ro, t, "x", 1));
      assertTrue(write.getMessage().contains("read-only") && !write.retryable(), write.getMessage());
      assertThrows(StoreException.class, () -> ro.acquireLease("p", "x"));
      assertThrows(StoreException.class, () -> ro.openTable(TableSchema.builder("new").key("k", ColumnType.INT64)
          .build()));
      assertEquals(1L, get(ro, t, "w1"));
    }
  }

  @Test
  void shouldRefuseToOpenAMissingOrUninitialisedDirectoryReadOnlyCreatingNothing() throws Exception {
    Path missing = dir.resolve("missing");
    assertThrows(StoreException.class, () -> RocksDbTableStore.builder(missing).readOnly(true).build());
    assertFalse(Files.exists(missing));
    Path empty = Files.createDirectory(dir.resolve("empty"));
    StoreException e = assertThrows(StoreException.class,
        () -> RocksDbTableStore.builder(empty).readOnly(true).build());
    assertTrue(e.getMessage().contains("not an initialised"), e.getMessage());
    try (Stream<Path> s = Files.list(empty)) {
      assertEquals(0, s.count(), "nothing was created");
    }
  }

  @Test
  void shouldLetAReaderShareADirectoryAWriterOfThisJvmHolds() {
    try (RocksDbTableStore writer = RocksDbTableStore.builder(dir).build()) {
      Table t = writer.openTable(counts());
      put(writer, t, "a", 1);
      try (RocksDbTableStore reader = RocksDbTableStore.builder(dir).readOnly(true).build()) {
        assertEquals(1L, get(reader, reader.findTable("counts").orElseThrow(), "a"));
      }
      put(writer, t, "a", 2);
      assertEquals(2L, get(writer, t, "a"));
    }
  }

  // ------------------------------------------------------------------ destroy

  @Test
  void shouldRefuseToDestroyADirectoryThatIsOpenInThisJvmDeletingNothing() throws Exception {
    try (RocksDbTableStore store = RocksDbTableStore.builder(dir).build()) {
      put(store, store.openTable(counts()), "a", 1);
      Map<String, String> before = Damage.snapshot(Damage.db(dir));
      StoreException e = assertThrows(StoreException.class, () -> RocksDbTableStore.destroy(dir));
      assertTrue(e.getMessage().contains("open in this JVM") && !e.retryable(), e.getMessage());
      assertTrue(Files.exists(dir.resolve(FormatFile.NAME)));
      assertEquals(before.keySet(), Damage.snapshot(Damage.db(dir)).keySet());
      assertEquals(1L, get(store, store.findTable("counts").orElseThrow(), "a"));
    }
    try (RocksDbTableStore reader = RocksDbTableStore.builder(dir).readOnly(true).build()) {
      assertThrows(StoreException.class, () -> RocksDbTableStore.destroy(dir), "a reader uses it too");
    }
  }

  @Test
  void shouldDestroyAClosedDirectoryAndNeverValidateItsOldLeasesAgain() throws Exception {
    Lease old;
    String oldId;
    try (RocksDbTableStore store = RocksDbTableStore.builder(dir).build()) {
      put(store, store.openTable(counts()), "a", 1);
      old = store.acquireLease("p", "worker");
      oldId = Watermark.read(dir).orElseThrow().databaseId();
    }
    Files.writeString(dir.resolve("mine.txt"), "not the store's");
    RocksDbTableStore.destroy(dir);
    assertFalse(Files.exists(dir.resolve(FormatFile.NAME)));
    assertFalse(Files.exists(Damage.db(dir)));
    assertFalse(Files.exists(dir.resolve(Watermark.NAME)));
    assertTrue(Files.exists(dir.resolve("mine.txt")), "other files are left alone");
    try (RocksDbTableStore store = RocksDbTableStore.builder(dir).build()) {
      assertEquals(Optional.empty(), store.findTable("counts"), "a new, empty database");
      assertNotEquals(oldId, Watermark.read(dir).orElseThrow().databaseId());
      assertThrows(LeaseLostException.class, () -> store.begin(old));
      Lease fresh = store.acquireLease("p", "worker");
      assertTrue(fresh.generation() > old.generation(), "generations go on above the old ones: " + fresh);
    }
  }

  @Test
  void shouldDestroyADamagedDirectoryAndIgnoreMissingOrForeignOnes() throws Exception {
    someState(dir);
    Files.delete(Damage.db(dir).resolve("CURRENT"));
    assertThrows(StoreException.class, () -> RocksDbTableStore.builder(dir).build());
    RocksDbTableStore.destroy(dir);
    try (RocksDbTableStore store = RocksDbTableStore.builder(dir).build()) {
      assertEquals(List.of(), store.tablePaths());
    }
    RocksDbTableStore.destroy(dir.resolve("does-not-exist"));
    assertFalse(Files.exists(dir.resolve("does-not-exist")));
    Path file = Files.writeString(dir.resolve("a-file"), "x");
    StoreException e = assertThrows(StoreException.class, () -> RocksDbTableStore.destroy(file));
    assertTrue(e.getMessage().contains("not a directory"), e.getMessage());
    Path other = Files.createDirectory(dir.resolve("other"));
    Files.writeString(other.resolve("keep"), "x");
    RocksDbTableStore.destroy(other);
    try (Stream<Path> s = Files.list(other)) {
      assertEquals(List.of(other.resolve("keep")), s.toList(), "a directory without state is not touched");
    }
  }

  @Test
  void shouldRefuseToOpenARegularFileAsStateDirectory() throws Exception {
    Path file = Files.writeString(dir.resolve("state"), "x");
    StoreException e = assertThrows(StoreException.class, () -> RocksDbTableStore.builder(file).build());
    assertTrue(e.getMessage().contains("not a directory") && !e.retryable(), e.getMessage());
  }

  // ------------------------------------------------------------------ I/O errors no retry fixes

  @Test
  void shouldReportNoSpaceLeftWhileCreatingAsNotRetryableAndFinishTheCreationLater() throws Exception {
    Path full = Path.of("/dev/full");
    Assumptions.assumeTrue(Files.isWritable(full), "needs /dev/full");
    Files.createSymbolicLink(dir.resolve(Watermark.NAME + ".tmp"), full);
    StoreException e = assertThrows(StoreException.class, () -> RocksDbTableStore.builder(dir).build());
    assertFalse(e.retryable(), e::getMessage);
    assertFalse(EpochalException.isRetryable(e), e::getMessage);
    assertTrue(e.getMessage().contains("No space left on device") && e.getMessage().contains("free disk space"),
        e.getMessage());
    Files.delete(dir.resolve(Watermark.NAME + ".tmp"));
    try (RocksDbTableStore store = RocksDbTableStore.builder(dir).build()) {
      put(store, store.openTable(counts()), "a", 1); // the interrupted creation was completed
    }
  }

  @Test
  void shouldReportNoSpaceLeftForTheLeaseAsNotRetryable() throws Exception {
    Path full = Path.of("/dev/full");
    Assumptions.assumeTrue(Files.isWritable(full), "needs /dev/full");
    try (RocksDbTableStore store = RocksDbTableStore.builder(dir).build()) {
      Files.createSymbolicLink(dir.resolve(LeaseFile.LEASE_FILE + ".tmp"), full);
      StoreException e = assertThrows(StoreException.class, () -> store.acquireLease("p", "w"));
      assertFalse(e.retryable(), e::getMessage);
      assertFalse(EpochalException.isRetryable(e), e::getMessage);
    }
  }

  @Test
  void shouldReportAStateDirectoryWithoutWritePermissionAsNotRetryable() throws Exception {
    Assumptions.assumeFalse(isRoot(), "root writes anywhere: permissions cannot be tested");
    Path locked = Files.createDirectory(dir.resolve("locked"));
    Files.setPosixFilePermissions(locked, PosixFilePermissions.fromString("r-xr-xr-x"));
    try {
      StoreException e = assertThrows(StoreException.class, () -> RocksDbTableStore.builder(locked).build());
      assertFalse(e.retryable(), e::getMessage);
      assertFalse(EpochalException.isRetryable(e), e::getMessage);
    } finally {
      Files.setPosixFilePermissions(locked, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
  }

  // ------------------------------------------------------------------ read hook

  @Test
  void shouldCallTheReadHookOncePerReadAndLetItsErrorReachTheCaller() {
    AtomicInteger calls = new AtomicInteger();
    RuntimeException unreadable = new IllegalStateException("simulated unreadable store");
    boolean[] fail = {false};
    ReadHook hook = new ReadHook() {
      @Override
      public void beforeRead(String tablePath) {
        calls.incrementAndGet();
        if (fail[0]) {
          throw unreadable;
        }
      }
    };
    try (RocksDbTableStore store = RocksDbTableStore.builder(dir).readHook(hook).build()) {
      Table t = store.openTable(counts());
      put(store, t, "a", 1);
      int before = calls.get();
      store.lookup(t, List.of(t.schema().key("a"), t.schema().key("b"), t.schema().key("c")));
      assertEquals(before + 1, calls.get(), "once per lookup call");
      try (StoreTransaction tx = store.begin()) {
        tx.scan(t);
      }
      assertEquals(before + 2, calls.get(), "once per scan");
      fail[0] = true;
      assertSame(unreadable, assertThrows(RuntimeException.class,
          () -> store.lookup(t, List.of(t.schema().key("a")))));
      try (StoreTransaction tx = store.begin()) {
        assertSame(unreadable, assertThrows(RuntimeException.class, () -> tx.scan(t)));
        assertSame(unreadable, assertThrows(RuntimeException.class, () -> tx.lookup(t, List.of(t.schema()
            .key("zz")))), "even for a key that is missing anyway");
      }
      assertSame(unreadable, assertThrows(RuntimeException.class, () -> store.inspect(t, r -> { })));
    }
  }

  @Test
  void shouldReportBytesTheReadHookDamagesAsCorruptionNamingTableAndKey() {
    ReadHook damage = new ReadHook() {
      @Override
      public byte[] storedBytes(String tablePath, byte[] stored) {
        byte[] b = stored.clone();
        b[b.length / 2] ^= 0x20;
        return b;
      }
    };
    try (RocksDbTableStore store = RocksDbTableStore.builder(dir).readHook(damage).build()) {
      Table t = store.openTable(counts());
      put(store, t, "a", 1);
      StateCorruptedException e = assertThrows(StateCorruptedException.class,
          () -> store.lookup(t, List.of(t.schema().key("a"))));
      assertEquals(Optional.of("counts"), e.context().table());
      assertEquals(Optional.of(t.schema().key("a").describeParts()), e.context().key());
      try (StoreTransaction tx = store.begin()) {
        assertThrows(StateCorruptedException.class, () -> tx.scan(t));
      }
    }
  }

  @Test
  void shouldNeverReadAnUnreadableCheckpointRowAsNoCheckpoint() {
    RuntimeException unreadable = new IllegalStateException("checkpoint block unreadable");
    ReadHook hook = new ReadHook() {
      @Override
      public void beforeRead(String tablePath) {
        if (tablePath.endsWith("__epochal_checkpoints")) {
          throw unreadable;
        }
      }
    };
    try (RocksDbTableStore store = RocksDbTableStore.builder(dir).readHook(hook).build()) {
      TableCheckpointStore checkpoints = TableCheckpointStore.on(store);
      Throwable e = assertThrows(RuntimeException.class, () -> checkpoints.load("wc"));
      boolean found = false;
      for (Throwable c = e; c != null; c = c.getCause()) {
        found |= c == unreadable;
      }
      assertTrue(found, "the hook's error reaches the caller: " + e);
    }
  }

  // ------------------------------------------------------------------ format 1

  /** Writes a format-1 directory as version 0.1 of the store did: unchecked cells, no database id. */
  private void formatOneDirectory(Path d, Map<String, Long> rows) throws Exception {
    TableSchema schema = counts();
    Path db = Files.createDirectories(d.resolve(RocksDbTableStore.DB_DIR));
    List<ColumnFamilyHandle> handles = new ArrayList<>();
    try (DBOptions o = new DBOptions().setCreateIfMissing(true).setCreateMissingColumnFamilies(true);
        RocksDB raw = RocksDB.open(o, db.toString(), List.of(new ColumnFamilyDescriptor(
            RocksDB.DEFAULT_COLUMN_FAMILY), new ColumnFamilyDescriptor("t:counts".getBytes(StandardCharsets.UTF_8))),
            handles)) {
      raw.put(handles.get(0), "schema/counts".getBytes(StandardCharsets.UTF_8),
          SchemaText.write(schema).getBytes(StandardCharsets.UTF_8));
      for (Map.Entry<String, Long> r : rows.entrySet()) {
        TableKey key = schema.key(r.getKey());
        raw.put(handles.get(1), KeyEncoding.encode(SchemaText.kinds(schema.keyColumns()),
            new Object[] {key.hash(), r.getKey()}), ValueEncoding.encodeLegacy(SchemaText.kinds(
            schema.valueColumns()), List.of(r.getValue())));
      }
      raw.syncWal();
      handles.forEach(ColumnFamilyHandle::close);
    }
    StringBuilder format = new StringBuilder("# Epochal RocksDB state directory.\n");
    FormatFile.EXPECTED_LEGACY.forEach((k, v) -> format.append(k).append('=').append(v).append('\n'));
    Files.writeString(d.resolve(FormatFile.NAME), format);
    String body = "format=1\nlease.p=4 old-worker\n";
    java.util.zip.CRC32 crc = new java.util.zip.CRC32();
    crc.update(body.getBytes(StandardCharsets.UTF_8));
    Files.writeString(d.resolve(LeaseFile.LEASE_FILE), "# leases\n" + body + "crc32="
        + Long.toHexString(crc.getValue()) + "\n");
  }

  @Test
  void shouldReadAFormatOneDirectoryReadOnlyWithoutUpgradingIt() throws Exception {
    formatOneDirectory(dir, Map.of("a", 1L, "b", 2L));
    Map<String, String> before = Damage.snapshot(dir);
    try (RocksDbTableStore ro = RocksDbTableStore.builder(dir).readOnly(true).build()) {
      assertEquals(2L, get(ro, ro.findTable("counts").orElseThrow(), "b"));
    }
    assertEquals(before, Damage.snapshot(dir));
  }

  @Test
  void shouldUpgradeAFormatOneDirectoryReadingOldCellsAndChecksummingNewOnes() throws Exception {
    formatOneDirectory(dir, Map.of("a", 1L, "b", 2L));
    try (RocksDbTableStore store = RocksDbTableStore.builder(dir).build()) {
      Table t = store.openTable(counts());
      assertEquals(1L, get(store, t, "a"));
      put(store, t, "c", 3);
      assertEquals(5, store.acquireLease("p", "new-worker").generation(), "the old leases carry over");
    }
    FormatFile.Format f = FormatFile.read(dir).orElseThrow();
    assertEquals(FormatFile.VERSION, f.version());
    assertTrue(f.legacyCells() && f.databaseId().isPresent(), f.toString());
    Map<String, byte[]> raw = Damage.rawRows(dir, "t:counts");
    long checksummed = raw.entrySet().stream().filter(e -> !e.getKey().equals("00"))
        .filter(e -> e.getValue()[0] == ValueEncoding.VERSION).count();
    assertEquals(1, checksummed, "the new row is checksummed, the old ones stay: " + raw.keySet());
    try (RocksDbTableStore store = RocksDbTableStore.builder(dir).build()) {
      Table t = store.findTable("counts").orElseThrow();
      assertEquals(List.of(1L, 2L, 3L), List.of(get(store, t, "a"), get(store, t, "b"), get(store, t, "c")));
    }
  }

  @Test
  void shouldRefuseUncheckedCellsInADirectoryCreatedChecksummed() throws Exception {
    try (RocksDbTableStore store = RocksDbTableStore.builder(dir).build()) {
      put(store, store.openTable(counts()), "a", 1);
    }
    TableSchema schema = counts();
    byte[] key = KeyEncoding.encode(SchemaText.kinds(schema.keyColumns()), new Object[] {schema.key("a").hash(),
        "a"});
    Damage.writeRaw(dir, "t:counts", key, ValueEncoding.encodeLegacy(SchemaText.kinds(schema.valueColumns()),
        List.of(7L)));
    try (RocksDbTableStore store = RocksDbTableStore.builder(dir).build()) {
      StateCorruptedException e = assertThrows(StateCorruptedException.class,
          () -> get(store, store.findTable("counts").orElseThrow(), "a"));
      assertTrue(e.getMessage().contains("version 1"), e.getMessage());
    }
  }
}
