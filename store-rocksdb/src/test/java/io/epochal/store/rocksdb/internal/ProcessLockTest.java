package io.epochal.store.rocksdb.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProcessLockTest {
  @TempDir
  Path dir;

  @Test
  void shouldExcludeEveryOtherHolderOfTheSameFileInThisJvm() throws Exception {
    Path file = dir.resolve("x.lock");
    AtomicInteger inside = new AtomicInteger();
    AtomicInteger maxInside = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(4);
    List<ProcessLock> locks = new ArrayList<>();
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        ProcessLock lock = ProcessLock.open(file);
        locks.add(lock);
        futures.add(pool.submit(() -> {
          for (int i = 0; i < 200; i++) {
            lock.locked(() -> {
              maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
              Thread.onSpinWait();
              inside.decrementAndGet();
              return null;
            });
          }
          return null;
        }));
      }
      for (Future<?> f : futures) {
        f.get();
      }
      assertEquals(1, maxInside.get());
    } finally {
      pool.shutdownNow();
      locks.forEach(ProcessLock::close);
    }
  }

  @Test
  void shouldBeReentrantAndSurviveTheCloseOfAnotherHandle() {
    Path file = dir.resolve("y.lock");
    try (ProcessLock a = ProcessLock.open(file)) {
      ProcessLock b = ProcessLock.open(file);
      b.close(); // closing one handle must not release or break the shared channel
      assertTrue(a.locked(() -> a.locked(() -> a.isHeldByCurrentThread())));
    }
  }
}
