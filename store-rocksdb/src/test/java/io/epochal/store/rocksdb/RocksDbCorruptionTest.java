package io.epochal.store.rocksdb;

import static io.epochal.store.rocksdb.WordCountRun.CHECKPOINT_CF;
import static io.epochal.store.rocksdb.WordCountRun.TABLE;
import static io.epochal.store.rocksdb.WordCountRun.TABLE_CF;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.errors.EpochalException;
import io.epochal.errors.LeaseLostException;
import io.epochal.errors.StateCorruptedException;
import io.epochal.errors.StoreException;
import io.epochal.store.rocksdb.internal.LeaseFile;
import io.epochal.store.table.ColumnType;
import io.epochal.store.table.Lease;
import io.epochal.store.table.Row;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableKey;
import io.epochal.store.table.TableSchema;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The corruption suite on real files: a word count runs over a RocksDB state directory, the test damages the
 * directory's files as a disk, a person or a tool would (SST bytes of the state table and of the checkpoint table,
 * deleted or truncated {@code CURRENT}, {@code MANIFEST} and WAL, an edited, deleted, copied or rolled-back
 * {@code LEASE}, a stored cell rewritten with one flipped bit), then the word count runs on. Each case must end in
 * a named, non-retryable error ({@link Damage#named}) or in exact counts, never in a wrong count, a key read as
 * missing, or a state that silently starts over.
 */
class RocksDbCorruptionTest {
  private static final long FIRST = 1_000;
  private static final long SECOND = 2_000;

  @TempDir
  Path dir;

  /** A state directory whose word count of {@link #FIRST} sentences sits in SST files (the WAL flushed on reopen). */
  private void flushedState() {
    WordCountRun.run(dir, FIRST);
    WordCountRun.reopen(dir);
  }

  private void assertNamedOrExact(Path stateDir, long sentences) {
    Optional<Throwable> failure = Damage.failureOf(() -> WordCountRun.run(stateDir, sentences));
    if (failure.isPresent()) {
      Damage.named(failure.get(), stateDir);
    } else {
      assertEquals(WordCountRun.recount(sentences), WordCountRun.counts(stateDir), "counts after the damage");
    }
  }

  // ------------------------------------------------------------------ SST blocks

  @Test
  void shouldStopNamingTableAndKeyWhenADataBlockOfTheStateTableIsDamaged() throws Exception {
    flushedState();
    List<Path> ssts = Damage.sstFiles(dir).get(TABLE_CF);
    Damage.flip(ssts.get(0), 60, 0x01); // the repro: one byte of the first data block
    Throwable failure = assertThrows(Throwable.class, () -> WordCountRun.run(dir, SECOND),
        "keys in the damaged block must not read as absent (their counts would restart from 0)");
    EpochalException named = Damage.named(failure, dir);
    StateCorruptedException e = assertInstanceOf(StateCorruptedException.class, named, named::toString);
    assertEquals(Optional.of(TABLE), e.context().table());
    assertTrue(e.getMessage().contains("checksum mismatch"), e.getMessage());
  }

  @Test
  void shouldStopNamingTheCheckpointTableWhenItsBlockIsDamaged() throws Exception {
    flushedState();
    Path sst = Damage.sstFiles(dir).get(CHECKPOINT_CF).get(0);
    Damage.flip(sst, 60, 0x10);
    Throwable failure = assertThrows(Throwable.class, () -> WordCountRun.run(dir, SECOND),
        "a damaged checkpoint block must not read as 'no checkpoint'");
    StateCorruptedException e = assertInstanceOf(StateCorruptedException.class, Damage.named(failure, dir));
    assertEquals(Optional.of("__epochal_checkpoints"), e.context().table());
  }

  @Test
  void shouldNeverReportARowOfADamagedBlockAsMissingInALookupOrAScan() throws Exception {
    TableSchema schema = TableSchema.builder("t").key("k", ColumnType.STRING).value("n", ColumnType.INT64)
        .build();
    List<TableKey> keys = new ArrayList<>();
    try (RocksDbTableStore store = RocksDbTableStore.builder(dir).build()) {
      Table t = store.openTable(schema);
      try (StoreTransaction tx = store.begin()) {
        for (int i = 0; i < 2000; i++) {
          keys.add(schema.key("key-" + i + "-".repeat(30)));
          tx.upsert(t, Row.of(keys.get(i), (long) i));
        }
        tx.commit();
      }
      store.flushForTest();
    }
    Path sst = Damage.sstFiles(dir).get("t:t").get(0);
    assertTrue(Files.size(sst) > 40_000, "several data blocks: " + Files.size(sst));
    Damage.flip(sst, 20_000, 0x04); // a data block in the middle, not the first (which holds the commit marker)
    int unreadable = 0;
    try (RocksDbTableStore store = RocksDbTableStore.builder(dir).build()) {
      Table t = store.openTable(schema);
      for (int i = 0; i < keys.size(); i++) {
        TableKey key = keys.get(i);
        try {
          List<Optional<Row>> found = store.lookup(t, List.of(schema.key("missing"), key));
          assertEquals(Optional.empty(), found.get(0));
          assertEquals((long) i, found.get(1).orElseThrow(() -> new AssertionError("a stored row read as missing: "
              + key)).getLong("n"));
        } catch (StateCorruptedException e) {
          assertEquals(Optional.of("t"), e.context().table());
          assertEquals(Optional.of(key.describeParts()), e.context().key());
          unreadable++;
        }
      }
      assertTrue(unreadable > 0, "the damaged block holds rows");
      assertTrue(unreadable < keys.size() / 2, "only the damaged block's rows: " + unreadable);
      try (StoreTransaction tx = store.begin()) {
        assertThrows(StateCorruptedException.class, () -> tx.scan(t));
      }
      List<InspectedRow> inspected = new ArrayList<>();
      store.inspect(t, inspected::add);
      assertTrue(inspected.get(inspected.size() - 1).error().isPresent(), "inspect reports the damaged block");
      assertTrue(inspected.get(0).row().isPresent(), "and the rows before it");
    }
  }

  // ------------------------------------------------------------------ CURRENT, MANIFEST, WAL

  @Test
  void shouldRefuseADirectoryWhoseCurrentFileWasDeletedOnEveryRun() throws Exception {
    flushedState();
    Map<String, List<Path>> ssts = Damage.sstFiles(dir);
    Files.delete(Damage.db(dir).resolve("CURRENT"));
    for (int run = 0; run < 2; run++) {
      Throwable failure = assertThrows(Throwable.class, () -> WordCountRun.run(dir, SECOND),
          "a database without CURRENT must not be re-created empty");
      StoreException e = assertInstanceOf(StoreException.class, Damage.named(failure, dir));
      assertTrue(e.getMessage().contains("CURRENT") && e.getMessage().contains("destroy"), e.getMessage());
    }
    for (List<Path> files : ssts.values()) {
      for (Path f : files) {
        assertTrue(Files.exists(f), "nothing is deleted as obsolete: " + f);
      }
    }
  }

  @Test
  void shouldRefuseATruncatedOrEmptyCurrentFile() throws Exception {
    flushedState();
    Path current = Damage.db(dir).resolve("CURRENT");
    Files.write(current, new byte[0]);
    Damage.named(assertThrows(Throwable.class, () -> WordCountRun.run(dir, SECOND)), dir);
    Files.writeString(current, "MANIFEST-0000");
    Damage.named(assertThrows(Throwable.class, () -> WordCountRun.run(dir, SECOND)), dir);
  }

  @Test
  void shouldRefuseADeletedManifest() throws Exception {
    flushedState();
    Files.delete(Damage.onlyFile(dir, "MANIFEST-"));
    Damage.named(assertThrows(Throwable.class, () -> WordCountRun.run(dir, SECOND)), dir);
  }

  /** The MANIFEST truncation, at every tenth of the file: each cut is refused or loses nothing. */
  @Test
  void shouldRefuseOrKeepExactCountsWhereverTheManifestIsCut() throws Exception {
    Path base = dir.resolve("base");
    WordCountRun.run(base, FIRST);
    WordCountRun.reopen(base);
    int refused = 0;
    for (int percent = 5; percent < 100; percent += 10) {
      Path copy = dir.resolve("cut-" + percent);
      copyTree(base, copy);
      Damage.truncate(Damage.onlyFile(copy, "MANIFEST-"), percent);
      Optional<Throwable> failure = Damage.failureOf(() -> WordCountRun.run(copy, SECOND));
      if (failure.isPresent()) {
        Damage.named(failure.get(), copy);
        refused++;
      } else {
        assertEquals(WordCountRun.recount(SECOND), WordCountRun.counts(copy), "MANIFEST cut at " + percent + "%");
      }
    }
    assertTrue(refused > 0, "a MANIFEST cut short loses data RocksDB cannot see is gone");
  }

  @Test
  void shouldRefuseAWalDeletedOrTruncatedAfterACleanClose() throws Exception {
    Path base = dir.resolve("base");
    WordCountRun.run(base, FIRST); // everything since the creation is in the WAL only
    for (int percent : new int[] {0, 50, 90}) {
      Path copy = dir.resolve("wal-" + percent);
      copyTree(base, copy);
      for (Path wal : Damage.files(copy, "", ".log")) {
        if (percent == 0) {
          Files.delete(wal);
        } else {
          Damage.truncate(wal, percent);
        }
      }
      Throwable failure = assertThrows(Throwable.class, () -> WordCountRun.run(copy, SECOND),
          "WAL cut to " + percent + "%: the committed batches it held are gone, the state must not start over");
      StoreException e = assertInstanceOf(StoreException.class, Damage.named(failure, copy));
      assertTrue(e.getMessage().contains("lost committed data"), e.getMessage());
    }
  }

  @Test
  void shouldRefuseATableThatLostItsSchemaRowOrItsColumnFamily() throws Exception {
    WordCountRun.run(dir, FIRST);
    Damage.writeRaw(dir, "default", ("schema/" + TABLE).getBytes(java.nio.charset.StandardCharsets.UTF_8), null);
    StoreException e = assertThrows(StoreException.class, () -> WordCountRun.run(dir, SECOND));
    Damage.named(e, dir);
    assertTrue(e.getMessage().contains(TABLE) && e.getMessage().contains("schema"), e.getMessage());
  }

  @Test
  void shouldRefuseATableWhoseRowsDisappearedBehindTheStoresBack() throws Exception {
    WordCountRun.run(dir, FIRST);
    Damage.withRaw(dir, (raw, cf) -> raw.deleteRange(cf, new byte[] {0}, new byte[] {(byte) 0xff}), TABLE_CF);
    StoreException e = assertThrows(StoreException.class, () -> WordCountRun.run(dir, SECOND));
    assertTrue(e.getMessage().contains(TABLE), e.getMessage());
    Damage.named(e, dir);
  }

  // ------------------------------------------------------------------ per-cell integrity

  @Test
  void shouldReportEveryFlippedBitOfAStoredCountNamingTableKeyAndTxid() throws Exception {
    WordCountRun.run(dir, FIRST);
    Map<String, byte[]> rows = Damage.rawRows(dir, TABLE_CF);
    String victimKey = rows.keySet().stream().filter(k -> !k.equals("00")).findFirst().orElseThrow();
    byte[] cell = rows.get(victimKey);
    byte[] key = HexFormat.of().parseHex(victimKey);
    // a bit of the count's own bytes (the 8-byte value is the last 8 bytes before the txid cell and the checksum)
    byte[] damaged = cell.clone();
    damaged[4] ^= 0x01;
    Damage.writeRaw(dir, TABLE_CF, key, damaged);
    Throwable failure = assertThrows(Throwable.class, () -> WordCountRun.run(dir, SECOND),
        "a count with a flipped bit must not be read (and added to)");
    StateCorruptedException e = assertInstanceOf(StateCorruptedException.class, Damage.named(failure, dir));
    assertEquals(Optional.of(TABLE), e.context().table());
    assertTrue(e.context().txid().isPresent(), "the txid the cell claims: " + e.getMessage());
    assertTrue(e.getMessage().contains("checksum"), e.getMessage());

    // every other bit of the cell, as read (the read hook damages the bytes RocksDB returns)
    Damage.writeRaw(dir, TABLE_CF, key, cell);
    int[] flip = {-1};
    io.epochal.store.table.ReadHook hook = new io.epochal.store.table.ReadHook() {
      @Override
      public byte[] storedBytes(String tablePath, byte[] stored) {
        byte[] b = stored.clone();
        b[flip[0] / 8] ^= (byte) (1 << (flip[0] % 8));
        return b;
      }
    };
    try (RocksDbTableStore store = RocksDbTableStore.builder(dir).readOnly(true).readHook(hook).build()) {
      Table t = store.findTable(TABLE).orElseThrow();
      for (int bit = 0; bit < cell.length * 8; bit++) {
        flip[0] = bit;
        StateCorruptedException each = assertThrows(StateCorruptedException.class, () -> {
          try (StoreTransaction tx = store.begin()) {
            tx.scan(t);
          }
        }, "bit " + bit);
        assertEquals(Optional.of(TABLE), each.context().table());
      }
    }
  }

  // ------------------------------------------------------------------ LEASE

  @Test
  void shouldNotValidateAFencedLeaseAgainWhenTheLeaseFileIsDeleted() throws Exception {
    try (RocksDbTableStore store = RocksDbTableStore.builder(dir).build()) {
      Table t = store.openTable(counter());
      Lease first = store.acquireLease("p", "worker");
      StoreTransaction staged = store.begin(first);
      staged.upsert(t, Row.of(t.schema().key("x"), 1L));
      Files.delete(dir.resolve(LeaseFile.LEASE_FILE));
      Lease again = RocksDbTableStore.takeOverLease(dir, "p", "worker"); // same owner name: only generations differ
      assertTrue(again.generation() > first.generation(), "generations never restart: " + again);
      assertThrows(LeaseLostException.class, staged::commit, "the fenced holder must stay fenced");
      try (StoreTransaction tx = store.begin(again)) {
        tx.upsert(t, Row.of(t.schema().key("y"), 2L));
        tx.commit();
      }
      assertEquals(Optional.empty(), store.lookup(t, List.of(t.schema().key("x"))).get(0));
    }
  }

  @Test
  void shouldFenceEveryHolderWhenTheLeaseFileIsEditedAndMoveGenerationsUpOnReopen() throws Exception {
    Lease first;
    try (RocksDbTableStore store = RocksDbTableStore.builder(dir).build()) {
      Table t = store.openTable(counter());
      first = store.acquireLease("p", "a");
      Path file = dir.resolve(LeaseFile.LEASE_FILE);
      Files.writeString(file, Files.readString(file).replace("=" + first.generation() + " ", "=9 "));
      LeaseLostException e = assertThrows(LeaseLostException.class, () -> {
        try (StoreTransaction under = store.begin(first)) {
          under.upsert(t, Row.of(t.schema().key("x"), 1L));
          under.commit();
        }
      });
      assertTrue(e.getMessage().contains("damaged"), e.getMessage());
    }
    try (RocksDbTableStore store = RocksDbTableStore.builder(dir).build()) {
      assertThrows(LeaseLostException.class, () -> store.begin(first), "rebuilt from the database, one up");
      assertTrue(store.acquireLease("p", "a").generation() >= first.generation() + 2);
    }
  }

  @Test
  void shouldFenceAHolderWhenTheLeaseFileOfAnotherDatabaseIsCopiedIn() throws Exception {
    Path other = dir.resolve("other");
    try (RocksDbTableStore store = RocksDbTableStore.builder(other).build()) {
      store.acquireLease("p", "a");
    }
    Path mine = dir.resolve("mine");
    try (RocksDbTableStore store = RocksDbTableStore.builder(mine).build()) {
      Table t = store.openTable(counter());
      Lease lease = store.acquireLease("p", "a"); // generation 1, owner a: the same lease as in the copied file
      StoreTransaction staged = store.begin(lease);
      staged.upsert(t, Row.of(t.schema().key("x"), 1L));
      Files.copy(other.resolve(LeaseFile.LEASE_FILE), mine.resolve(LeaseFile.LEASE_FILE),
          StandardCopyOption.REPLACE_EXISTING);
      LeaseLostException e = assertThrows(LeaseLostException.class, staged::commit);
      assertTrue(e.getMessage().contains("re-created or replaced"), e.getMessage());
    }
  }

  @Test
  void shouldFenceEveryHolderWhenAnOldCopyOfTheLeaseFileIsRestored() throws Exception {
    try (RocksDbTableStore store = RocksDbTableStore.builder(dir).build()) {
      Table t = store.openTable(counter());
      Lease a = store.acquireLease("p", "a");
      byte[] old = Files.readAllBytes(dir.resolve(LeaseFile.LEASE_FILE));
      StoreTransaction staged = store.begin(a);
      staged.upsert(t, Row.of(t.schema().key("x"), 1L));
      Lease b = store.acquireLease("p", "b");
      Files.write(dir.resolve(LeaseFile.LEASE_FILE), old); // a's generation, owner and database again
      assertThrows(LeaseLostException.class, staged::commit, "a was fenced by b, whatever the file says now");
      assertThrows(LeaseLostException.class, () -> store.begin(b));
    }
  }

  // ------------------------------------------------------------------ helpers

  static TableSchema counter() {
    return TableSchema.builder("c").key("name", ColumnType.STRING).requiredValue("n", ColumnType.INT64).build();
  }

  static void copyTree(Path from, Path to) throws Exception {
    try (Stream<Path> s = Files.walk(from)) {
      for (Path p : s.sorted().toList()) {
        Path target = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else if (!p.getFileName().toString().equals("LOCK") && !p.getFileName().toString().endsWith(".lock")) {
          Files.copy(p, target);
        }
      }
    }
    assertFalse(Files.exists(to.resolve("open.lock")));
  }
}
