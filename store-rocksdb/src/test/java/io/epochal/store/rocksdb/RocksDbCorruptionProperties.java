package io.epochal.store.rocksdb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.store.table.ColumnType;
import io.epochal.store.table.Row;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableSchema;
import io.epochal.testing.TriesScale;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.stream.Stream;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import net.jqwik.api.statistics.Statistics;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AfterContainer;

/**
 * Flips random bytes of a RocksDB state directory, in stored cells (rewritten behind the store's back) and anywhere
 * in its SST files, and requires of every read and of the next write and read-back either a named error
 * ({@link Damage#named}: a {@code StateCorruptedException} naming table and key, or a non-retryable
 * {@code StoreException} naming the directory or table) or the exact counts: never a wrong count, never a stored
 * row read as missing.
 *
 * <p>The directory: two count tables (word, count, txid), written in two flushed commits so that each table has two
 * SST files, plus the default column family's own (schemas, leases, markers). Each try copies it, damages one byte,
 * then reads every key, scans every table, adds one to every count it could read, commits, reopens and reads again.
 */
@AddLifecycleHook(TriesScale.class) // a share of the tries by default: -Depochal.tries.scale=1 runs all
class RocksDbCorruptionProperties {
  private static final List<String> TABLES = List.of("wc/counts", "wc/other");
  private static final int WORDS = 40;
  private static Path template;
  private static Map<String, Map<String, Long>> expected;

  private static TableSchema schema(String path) {
    return TableSchema.builder(path).key("word", ColumnType.STRING).requiredValue("count", ColumnType.INT64)
        .requiredValue("txid", ColumnType.INT64).build();
  }

  private static synchronized Path template() throws Exception {
    if (template == null) {
      Path dir = Files.createTempDirectory("epochal-corruption-template");
      Map<String, Map<String, Long>> counts = new TreeMap<>();
      try (RocksDbTableStore store = RocksDbTableStore.builder(dir).build()) {
        store.acquireLease("pipeline:wc", "writer");
        for (int round = 0; round < 2; round++) {
          try (StoreTransaction tx = store.begin()) {
            for (String path : TABLES) {
              Table t = store.openTable(schema(path));
              for (int i = round; i < WORDS; i += 2) {
                long n = 1 + (i * 7919L + path.length()) % 100_000;
                tx.upsert(t, Row.of(t.schema().key("w" + i), n, (long) round + 1));
                counts.computeIfAbsent(path, p -> new TreeMap<>()).put("w" + i, n);
              }
            }
            tx.commit();
          }
          store.flushForTest();
        }
      }
      template = dir;
      expected = counts;
    }
    return template;
  }

  @AfterContainer
  static void deleteTemplate() throws Exception {
    if (template != null) {
      deleteTree(template);
      template = null;
    }
  }

  @Property(tries = 100)
  void shouldAnswerEveryDamagedByteWithANamedErrorOrTheExactCounts(@ForAll boolean inSstFile, @ForAll long choice,
      @ForAll @IntRange(min = 1, max = 255) int xor) throws Exception {
    Path base = template();
    Path dir = Files.createTempDirectory("epochal-corruption");
    try {
      RocksDbCorruptionTest.copyTree(base, dir.resolve("s"));
      Path state = dir.resolve("s");
      SplittableRandom random = new SplittableRandom(choice);
      if (inSstFile) {
        List<Path> ssts = new ArrayList<>();
        Damage.sstFiles(state).values().forEach(ssts::addAll);
        Path victim = ssts.get(random.nextInt(ssts.size()));
        Damage.flip(victim, random.nextLong(Files.size(victim)), xor);
      } else {
        String cf = "t:" + TABLES.get(random.nextInt(TABLES.size()));
        Map<String, byte[]> rows = Damage.rawRows(state, cf);
        List<String> keys = new ArrayList<>(rows.keySet());
        String key = keys.get(random.nextInt(keys.size()));
        byte[] cell = rows.get(key).clone();
        cell[random.nextInt(cell.length)] ^= (byte) xor;
        Damage.writeRaw(state, cf, HexFormat.of().parseHex(key), cell);
      }
      Map<String, Map<String, Long>> now = new TreeMap<>();
      expected.forEach((t, m) -> now.put(t, new TreeMap<>(m)));
      int[] named = {0};
      Optional<Throwable> failure = Damage.failureOf(() -> readIncrementAndCommit(state, now, named));
      if (failure.isEmpty()) {
        failure = Damage.failureOf(() -> readIncrementAndCommit(state, now, named));
      }
      failure.ifPresent(f -> Damage.named(f, state));
      boolean detected = failure.isPresent() || named[0] > 0;
      if (!inSstFile) {
        assertTrue(detected, "a damaged cell (checksummed) must be reported, every time it is read");
      }
      Statistics.collect(inSstFile ? "SST byte" : "cell byte", detected ? "named error" : "exact counts");
    } finally {
      deleteTree(dir);
    }
  }

  /**
   * Reads every key of every table (each lookup: the expected count, or a named error), scans every table, then
   * adds one to every count it read and commits; {@code now} follows the commits.
   */
  private static void readIncrementAndCommit(Path state, Map<String, Map<String, Long>> now, int[] named) {
    try (RocksDbTableStore store = RocksDbTableStore.builder(state).build()) {
      Map<String, Map<String, Long>> readable = new TreeMap<>();
      for (String path : TABLES) {
        Table t = store.findTable(path).orElseThrow(() -> new AssertionError("table " + path + " read as missing"));
        for (Map.Entry<String, Long> e : now.get(path).entrySet()) {
          try {
            Optional<Row> row = store.lookup(t, List.of(t.schema().key(e.getKey()))).get(0);
            assertEquals(Optional.of(e.getValue()), row.map(r -> r.getLong("count")), path + " " + e.getKey());
            readable.computeIfAbsent(path, p -> new TreeMap<>()).put(e.getKey(), e.getValue());
          } catch (RuntimeException error) {
            Damage.named(error, state);
            named[0]++;
          }
        }
        try (StoreTransaction tx = store.begin()) {
          List<Row> rows = tx.scan(t);
          Map<String, Long> scanned = new TreeMap<>();
          rows.forEach(r -> scanned.put(r.getString("word"), r.getLong("count")));
          assertEquals(now.get(path), scanned, "scan of " + path);
        } catch (RuntimeException error) {
          Damage.named(error, state);
          named[0]++;
        }
      }
      try (StoreTransaction tx = store.begin(store.acquireLease("pipeline:wc", "next"))) {
        for (Map.Entry<String, Map<String, Long>> table : readable.entrySet()) {
          Table t = store.findTable(table.getKey()).orElseThrow();
          for (Map.Entry<String, Long> e : table.getValue().entrySet()) {
            tx.upsert(t, Row.of(t.schema().key(e.getKey()), e.getValue() + 1, 3L));
          }
        }
        tx.commit();
      }
      readable.forEach((path, m) -> m.forEach((w, n) -> now.get(path).put(w, n + 1)));
    }
  }

  private static void deleteTree(Path root) throws Exception {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> s = Files.walk(root)) {
      for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
