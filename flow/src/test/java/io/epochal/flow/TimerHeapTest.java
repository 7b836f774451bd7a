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
 * Pending timers cost disk, not heap: a child JVM with {@code -Xmx64m} keeps a million timers (ten million with
 * {@code -Depochal.timers.heap.count=10000000}) in a RocksDB store and fires the lowest of them in order, a bounded
 * number per batch ({@link TimerHeapMain}). The control, {@code -Depochal.timers.heap.store=memory}, runs the same
 * workload over the in-memory store, whose rows are on the heap: it fails (the child dies of an
 * {@link OutOfMemoryError}).
 */
class TimerHeapTest {
  @TempDir
  Path dir;

  @Test
  void shouldKeepAMillionPendingTimersUnderA64MegabyteHeap() throws Exception {
    long count = Long.getLong("epochal.timers.heap.count", 1_000_000L);
    Path natives = Files.createDirectory(dir.resolve("native"));
    String lib = Environment.getJniLibraryFileName("rocksdb");
    try (InputStream in = RocksDB.class.getClassLoader().getResourceAsStream(lib)) {
      if (in != null) {
        Files.copy(in, natives.resolve(lib), StandardCopyOption.REPLACE_EXISTING);
      }
    }
    try (ChildJvm child = ChildJvm.start(TimerHeapMain.class,
        List.of("-Xmx64m", "-Djava.library.path=" + natives),
        List.of(dir.resolve("state").toString(), Long.toString(count),
            System.getProperty("epochal.timers.heap.store", "rocksdb")))) {
      String line = child.awaitLine(l -> l.startsWith("DONE") || l.startsWith("FAIL"), Duration.ofMinutes(10));
      assertNotNull(line, "the child printed no result; stderr:\n" + child.stderr());
      assertTrue(line.startsWith("DONE"), line + "\n" + child.stderr());
      assertEquals(0, child.waitFor(Duration.ofMinutes(1)), child.stderr());
      long heapMax = Long.parseLong(line.substring(line.indexOf("heapMax=") + 8));
      assertTrue(heapMax <= 70L * 1024 * 1024, "the child must run with a small heap: " + line);
      assertTrue(line.contains(" pending=" + (count - TimerHeapMain.FIRE_BATCHES * TimerHeapMain.PER_BATCH)), line);
    }
  }
}
