package io.epochal.store.rocksdb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.errors.LeaseLostException;
import io.epochal.errors.SchemaMismatchException;
import io.epochal.errors.StateCorruptedException;
import io.epochal.errors.StoreException;
import io.epochal.store.rocksdb.internal.FormatFile;
import io.epochal.store.rocksdb.internal.KeyEncoding;
import io.epochal.store.rocksdb.internal.SchemaText;
import io.epochal.store.table.ColumnType;
import io.epochal.store.table.CommitHook;
import io.epochal.store.table.Lease;
import io.epochal.store.table.Row;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableKey;
import io.epochal.store.table.TableSchema;
import io.epochal.store.table.TableStore;
import io.epochal.testkit.store.TableStoreContract;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.DBOptions;
import org.rocksdb.RocksDB;

/**
 * The {@link TableStoreContract} over {@link RocksDbTableStore} (reopening the same state directory), plus what only
 * the RocksDB store promises: format, schema and codec checks naming the directory, the sync policy, corruption
 * reports, one process per directory, fencing through the lease file, and release of native handles.
 */
class RocksDbTableStoreTest extends TableStoreContract {
  @TempDir
  Path dir;

  private final List<TableStore> mine = new ArrayList<>();

  @Override
  protected TableStore createStore(CommitHook hook) {
    return RocksDbTableStore.builder(dir).commitHook(hook).build();
  }

  /** For the contract's read-fault cases: the store with a read hook. */
  protected TableStore createStore(CommitHook hook, io.epochal.store.table.ReadHook readHook) {
    return RocksDbTableStore.builder(dir).commitHook(hook).readHook(readHook).build();
  }

  private RocksDbTableStore store() {
    return store(RocksDbTableStore.builder(dir));
  }

  private RocksDbTableStore store(RocksDbTableStore.Builder builder) {
    RocksDbTableStore s = builder.build();
    mine.add(s);
    return s;
  }

  @org.junit.jupiter.api.AfterEach
  void closeMine() {
    mine.forEach(TableStore::close);
  }

  private static TableSchema counts(String codec) {
    return TableSchema.builder("counts").key("word", ColumnType.STRING).value("count", ColumnType.INT64)
        .attribute("epochal.codec", codec).build();
  }

  private static void put(TableStore store, Table t, String word, long n) {
    try (StoreTransaction tx = store.begin()) {
      tx.upsert(t, Row.of(t.schema().key(word), n));
      tx.commit();
    }
  }

  // ------------------------------------------------------------------ format, schema and codec versions

  @Test
  void shouldRefuseADirectoryOfAnotherFormatVersionNamingDirectoryExpectedAndFound() throws Exception {
    store().close();
    Path format = dir.resolve(FormatFile.NAME);
    Files.writeString(format, Files.readString(format).replace("format.version=2", "format.version=3"));
    StoreException e = assertThrows(StoreException.class, this::store);
    assertTrue(e.getMessage().contains(dir.toString()), e.getMessage());
    assertTrue(e.getMessage().contains("format.version=3"), e.getMessage());
    assertTrue(e.getMessage().contains("format.version=2"), e.getMessage());
    assertTrue(!e.retryable(), "no retry can fix another format");
  }

  @Test
  void shouldRefuseADatabaseWithoutFormatFile() throws Exception {
    store().close();
    Files.delete(dir.resolve(FormatFile.NAME));
    StoreException e = assertThrows(StoreException.class, this::store);
    assertTrue(e.getMessage().contains(dir.toString()) && e.getMessage().contains(FormatFile.NAME), e.getMessage());
  }

  @Test
  void shouldRefuseToReopenATableWrittenWithAnotherCodecNamingDirectoryExpectedAndFound() {
    RocksDbTableStore first = store();
    put(first, first.openTable(counts("long-be:v1")), "a", 1);
    first.close();
    RocksDbTableStore second = store();
    SchemaMismatchException e = assertThrows(SchemaMismatchException.class,
        () -> second.openTable(counts("kryo:v1:java.lang.Long")));
    assertTrue(e.context().table().orElseThrow().contains("counts"), e::toString);
    assertFalse(e.retryable());
    // user-facing below: where, and both schemas (the exception has no expected/actual fields)
    assertTrue(e.getMessage().contains(dir.toString()), e.getMessage());
    assertTrue(e.getMessage().contains("kryo:v1:java.lang.Long"), "expected codec: " + e.getMessage());
    assertTrue(e.getMessage().contains("long-be:v1"), "found codec: " + e.getMessage());
    assertTrue(e.getMessage().contains(SchemaText.fingerprint(counts("long-be:v1"))), e.getMessage());
    Table t = second.openTable(counts("long-be:v1"));
    try (StoreTransaction tx = second.begin()) {
      assertEquals(1L, tx.lookup(t, List.of(t.schema().key("a"))).get(0).orElseThrow().getLong("count"));
    }
  }

  // ------------------------------------------------------------------ sync policy

  @Test
  void shouldFsyncTheWalOnEveryCommitOnlyUnderFsyncPolicy() {
    RocksDbTableStore wal = store();
    assertEquals(SyncPolicy.WAL, wal.syncPolicy());
    Table t = wal.openTable(counts("long-be:v1"));
    long before = wal.walSyncCount();
    for (int i = 0; i < 5; i++) {
      put(wal, t, "w" + i, i);
    }
    assertEquals(before, wal.walSyncCount(), "the default policy must not fsync per commit");
    wal.close();

    RocksDbTableStore fsync = store(RocksDbTableStore.builder(dir).sync(SyncPolicy.FSYNC));
    assertEquals(SyncPolicy.FSYNC, fsync.syncPolicy());
    Table t2 = fsync.openTable(counts("long-be:v1"));
    long start = fsync.walSyncCount();
    for (int i = 0; i < 5; i++) {
      put(fsync, t2, "f" + i, i);
    }
    assertTrue(fsync.walSyncCount() - start >= 5, "FSYNC must sync the WAL per commit: "
        + (fsync.walSyncCount() - start));
    try (StoreTransaction tx = fsync.begin()) {
      assertEquals(10, tx.scan(t2).size(), "rows committed under WAL survive a reopen under FSYNC");
    }
  }

  @Test
  void shouldRejectBuilderOptionsSetTwiceOrInvalid() {
    RocksDbTableStore.Builder b = RocksDbTableStore.builder(dir).sync(SyncPolicy.WAL);
    assertThrows(IllegalStateException.class, () -> b.sync(SyncPolicy.FSYNC));
    assertThrows(IllegalArgumentException.class, () -> RocksDbTableStore.builder(dir)
        .openTimeout(Duration.ofSeconds(-1)));
    assertThrows(NullPointerException.class, () -> RocksDbTableStore.builder(null));
    RocksDbTableStore.Builder withHook = RocksDbTableStore.builder(dir).commitHook(CommitHook.NONE);
    assertThrows(IllegalStateException.class, () -> withHook.commitHook(CommitHook.NONE));
  }

  // ------------------------------------------------------------------ corruption

  @Test
  void shouldReportUndecodableBytesAsCorruptionNamingTableAndKey() throws Exception {
    RocksDbTableStore s = store();
    Table t = s.openTable(counts("long-be:v1"));
    put(s, t, "fine", 1);
    s.close();
    TableKey key = t.schema().key("broken");
    byte[] encodedKey = KeyEncoding.encode(SchemaText.kinds(t.schema().keyColumns()),
        new Object[] {key.hash(), "broken"});
    writeRaw("t:counts", encodedKey, new byte[] {1, 42, 42});

    RocksDbTableStore reopened = store();
    Table again = reopened.openTable(counts("long-be:v1"));
    try (StoreTransaction tx = reopened.begin()) {
      StateCorruptedException e = assertThrows(StateCorruptedException.class,
          () -> tx.lookup(again, List.of(key)));
      assertTrue(e.context().table().orElseThrow().contains("counts"), e::toString);
      assertEquals(java.util.Optional.of("broken"), e.context().key(), e::toString);
      assertFalse(e.retryable());
      assertEquals(1L, tx.lookup(again, List.of(again.schema().key("fine"))).get(0).orElseThrow().getLong("count"));
      assertThrows(StateCorruptedException.class, () -> tx.scan(again));
    }
  }

  private void writeRaw(String cf, byte[] key, byte[] value) throws Exception {
    Path db = dir.resolve(RocksDbTableStore.DB_DIR);
    List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
    try (org.rocksdb.Options o = new org.rocksdb.Options()) {
      for (byte[] name : RocksDB.listColumnFamilies(o, db.toString())) {
        descriptors.add(new ColumnFamilyDescriptor(name));
      }
    }
    List<ColumnFamilyHandle> handles = new ArrayList<>();
    try (DBOptions options = new DBOptions(); RocksDB raw = RocksDB.open(options, db.toString(), descriptors,
        handles)) {
      for (int i = 0; i < descriptors.size(); i++) {
        if (new String(descriptors.get(i).getName(), StandardCharsets.UTF_8).equals(cf)) {
          raw.put(handles.get(i), key, value);
        }
      }
      handles.forEach(ColumnFamilyHandle::close);
    }
  }

  // ------------------------------------------------------------------ one process per directory, fencing

  @Test
  void shouldRefuseASecondOpenOfTheDirectoryUnlessTheFirstIsReleasedInTime() throws Exception {
    RocksDbTableStore first = store();
    StoreException busy = assertThrows(StoreException.class, this::store);
    assertTrue(busy.getMessage().contains("is open in another process"), busy.getMessage());
    assertTrue(busy.getMessage().contains(dir.toString()), busy.getMessage());

    CompletableFuture<RocksDbTableStore> waiting = new CompletableFuture<>();
    Thread opener = new Thread(() -> {
      try {
        waiting.complete(RocksDbTableStore.builder(dir).openTimeout(Duration.ofSeconds(20)).build());
      } catch (Throwable e) {
        waiting.completeExceptionally(e);
      }
    }, "second-open");
    opener.start();
    // Handshake, not a timer: wait until the opener has found the directory busy and backs off inside its wait loop.
    while (!(opener.getState() == Thread.State.TIMED_WAITING && Arrays.stream(opener.getStackTrace())
        .anyMatch(f -> f.getMethodName().equals("lockDirectory")))) {
      assertTrue(opener.isAlive() && !waiting.isDone(), () -> "the second open must wait while the first holds "
          + "the directory, but it ended: " + waiting);
      Thread.onSpinWait();
    }
    assertFalse(waiting.isDone(), "the second open must wait while the first holds the directory");
    first.close();
    RocksDbTableStore second = waiting.get(20, TimeUnit.SECONDS);
    mine.add(second);
    second.openTable(counts("long-be:v1"));
  }

  @Test
  void shouldFenceAnOpenStoreWhenItsLeaseIsTakenOverThroughTheDirectory() {
    RocksDbTableStore holder = store();
    Table t = holder.openTable(counts("long-be:v1"));
    Lease lease = holder.acquireLease("wordcount", "worker-a");
    StoreTransaction tx = holder.begin(lease);
    tx.upsert(t, Row.of(t.schema().key("from-a"), 1L));

    Lease taken = RocksDbTableStore.takeOverLease(dir, "wordcount", "worker-b");
    assertEquals(lease.generation() + 1, taken.generation());
    LeaseLostException e = assertThrows(LeaseLostException.class, tx::commit);
    assertTrue(e.getMessage().contains("worker-b") && e.getMessage().contains(dir.toString()), e.getMessage());
    assertThrows(LeaseLostException.class, () -> holder.begin(lease));
    holder.close();

    RocksDbTableStore next = store();
    Table again = next.openTable(counts("long-be:v1"));
    try (StoreTransaction b = next.begin(taken)) {
      assertEquals(Optional.empty(), b.lookup(again, List.of(again.schema().key("from-a"))).get(0));
      b.upsert(again, Row.of(again.schema().key("from-b"), 2L));
      b.commit();
    }
    assertThrows(IllegalArgumentException.class,
        () -> next.begin(new Lease("wordcount", "forged", taken.generation() + 5)));
  }

  // ------------------------------------------------------------------ conflicts over a long run

  @Test
  void shouldStillDetectConflictsAfterTheConflictMapWasPruned() {
    RocksDbTableStore s = store();
    Table t = s.openTable(counts("long-be:v1"));
    StoreTransaction longOpen = s.begin();
    for (int i = 0; i < 5000; i++) {
      put(s, t, "k" + i, i); // thousands of commits: the conflict map is pruned several times meanwhile
    }
    StoreTransaction fresh = s.begin();
    fresh.upsert(t, Row.of(t.schema().key("k17"), -1L));
    fresh.commit(); // began after k17's commit: no conflict
    longOpen.upsert(t, Row.of(t.schema().key("k4999"), -1L));
    assertThrows(io.epochal.errors.CommitConflictException.class, longOpen::commit,
        "a row committed after a long-open transaction began must conflict with it, pruning or not");
    longOpen.abort();
  }

  // The commit skips the conflict check when no commit happened since its transaction began, and remembers no
  // written rows when no other transaction is open: neither shortcut may hide a conflict.

  @Test
  void shouldDetectTheConflictOfATransactionOpenDuringACommitThatSkippedItsCheck() {
    RocksDbTableStore s = store();
    Table t = s.openTable(counts("long-be:v1"));
    put(s, t, "a", 1);
    StoreTransaction first = s.begin();
    StoreTransaction third = s.begin();
    first.upsert(t, Row.of(t.schema().key("a"), 2L));
    first.commit(); // no commit since it began: no check; the third is open: its rows must be remembered
    third.upsert(t, Row.of(t.schema().key("b"), 3L));
    third.upsert(t, Row.of(t.schema().key("a"), 3L));
    io.epochal.errors.CommitConflictException e =
        assertThrows(io.epochal.errors.CommitConflictException.class, third::commit);
    assertTrue(e.getMessage().contains("counts") && e.getMessage().contains("a"), e.getMessage());
    assertEquals(Optional.of(Row.of(t.schema().key("a"), 2L)), s.lookup(t, List.of(t.schema().key("a"))).get(0));
    assertEquals(Optional.empty(), s.lookup(t, List.of(t.schema().key("b"))).get(0), "nothing of it applied");
  }

  @Test
  void shouldDetectTheConflictOfAThirdTransactionAfterTwoCommitsWhileItWasOpen() {
    RocksDbTableStore s = store();
    Table t = s.openTable(counts("long-be:v1"));
    StoreTransaction first = s.begin();
    StoreTransaction second = s.begin();
    StoreTransaction third = s.begin();
    second.upsert(t, Row.of(t.schema().key("a"), 1L));
    second.commit(); // skips its check, remembers "a" for the first and the third
    first.upsert(t, Row.of(t.schema().key("b"), 1L));
    first.commit(); // checks (a commit happened since it began), no conflict on "b"; the third is still open
    third.upsert(t, Row.of(t.schema().key("a"), 9L));
    assertThrows(io.epochal.errors.CommitConflictException.class, third::commit);
    StoreTransaction fourth = s.begin(); // begins after every commit: "a" and "b" cannot conflict with it
    fourth.upsert(t, Row.of(t.schema().key("a"), 4L));
    fourth.upsert(t, Row.of(t.schema().key("b"), 4L));
    fourth.commit();
    assertEquals(Optional.of(Row.of(t.schema().key("a"), 4L)), s.lookup(t, List.of(t.schema().key("a"))).get(0));
  }

  @Test
  void shouldApplyTheLastOfSeveralWritesOfAKeyInOneTransaction() {
    RocksDbTableStore s = store();
    Table t = s.openTable(counts("long-be:v1"));
    try (StoreTransaction tx = s.begin()) {
      tx.upsert(t, Row.of(t.schema().key("a"), 1L));
      tx.upsert(t, Row.of(t.schema().key("b"), 1L));
      tx.delete(t, t.schema().key("a"));
      tx.upsert(t, Row.of(t.schema().key("b"), 2L));
      tx.upsert(t, Row.of(t.schema().key("c"), 1L));
      tx.delete(t, t.schema().key("c"));
      tx.upsert(t, Row.of(t.schema().key("a"), 3L));
      tx.commit();
    }
    assertEquals(List.of(Optional.of(Row.of(t.schema().key("a"), 3L)), Optional.of(Row.of(t.schema().key("b"), 2L)),
        Optional.empty()), s.lookup(t, List.of(t.schema().key("a"), t.schema().key("b"), t.schema().key("c"))));
  }

  // ------------------------------------------------------------------ lifecycle

  @Test
  void shouldReleaseNativeHandlesAndTheDirectoryOnClose() {
    for (int i = 0; i < 3; i++) {
      RocksDbTableStore s = store();
      Table t = s.openTable(counts("long-be:v1"));
      put(s, t, "round", i);
      StoreTransaction open = s.begin();
      open.upsert(t, Row.of(t.schema().key("late"), 1L));
      s.close();
      s.close();
      assertThrows(IllegalStateException.class, open::commit);
      assertThrows(IllegalStateException.class, s::begin);
      assertThrows(IllegalStateException.class, () -> s.openTable(counts("long-be:v1")));
    }
    RocksDbTableStore last = store();
    Table t = last.openTable(counts("long-be:v1"));
    try (StoreTransaction tx = last.begin()) {
      assertEquals(List.of(Row.of(t.schema().key("round"), 2L)), tx.scan(t));
    }
  }
}
