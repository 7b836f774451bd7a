package io.epochal.flow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.testkit.process.ChildJvm;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.RocksDB;
import org.rocksdb.util.Environment;

/**
 * Pending timers cost disk, not heap: a child JVM with a heap far too small for its pending timers keeps them in a
 * RocksDB store and fires the lowest of them in order, a bounded number per batch ({@link TimerHeapMain}). The
 * default run is the full run scaled down by four in every dimension: 250,000 timers added 2,500 per batch (and fired
 * at most 2,500 per batch) under {@code -Xmx16m}; {@code -Depochal.timers.heap.full=true} runs the full size, a
 * million timers, 10,000 per batch, under {@code -Xmx64m} (add {@code -Depochal.timers.heap.count=10000000} for ten
 * million timers at that heap). The control, {@code -Depochal.timers.heap.store=memory}, runs the same workload over
 * the in-memory store, whose rows are on the heap: it fails at either size (the child dies of an
 * {@link OutOfMemoryError}).
 */
class TimerHeapTest {
  @TempDir
  Path dir;

  @Test
  void shouldKeepItsPendingTimersOffTheSmallHeap() throws Exception {
    boolean full = Boolean.getBoolean("epochal.timers.heap.full");
    long count = Long.getLong("epochal.timers.heap.count", full ? 1_000_000L : 250_000L);
    int perBatch = full ? TimerHeapMain.PER_BATCH : TimerHeapMain.PER_BATCH / 4;
    long heapMb = full ? 64 : 16;
    Path natives = Files.createDirectory(dir.resolve("native"));
    String lib = Environment.getJniLibraryFileName("rocksdb");
    try (InputStream in = RocksDB.class.getClassLoader().getResourceAsStream(lib)) {
      if (in != null) {
        Files.copy(in, natives.resolve(lib), StandardCopyOption.REPLACE_EXISTING);
      }
    }
    try (ChildJvm child = ChildJvm.start(TimerHeapMain.class,
        List.of("-Xmx" + heapMb + "m", "-Djava.library.path=" + natives),
        List.of(dir.resolve("state").toString(), Long.toString(count),
            System.getProperty("epochal.timers.heap.store", "rocksdb"), Integer.toString(perBatch)))) {
      String line = child.awaitLine(l -> l.startsWith("DONE") || l.startsWith("FAIL"), Duration.ofMinutes(10));
      assertNotNull(line, "the child printed no result; stderr:\n" + child.stderr());
      assertTrue(line.startsWith("DONE"), line + "\n" + child.stderr());
      assertEquals(0, child.waitFor(Duration.ofMinutes(1)), child.stderr());
      long heapMax = Long.parseLong(line.substring(line.indexOf("heapMax=") + 8));
      assertTrue(heapMax <= heapMb * 1024 * 1024 * 11 / 10, "the child must run with a small heap: " + line);
      assertTrue(line.contains(" pending=" + (count - TimerHeapMain.FIRE_BATCHES * (long) perBatch)), line);
    }
  }
}
