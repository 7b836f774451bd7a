package io.epochal.store.rocksdb.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.errors.StoreException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LeaseFileTest {
  @TempDir
  Path dir;

  @Test
  void shouldIncreaseGenerationsPerNameAndKeepThemAcrossHandles() {
    try (LeaseFile a = LeaseFile.open(dir)) {
      assertEquals(0, a.current("p").generation());
      assertEquals(1, a.takeOver("p", "w1").generation());
      assertEquals(2, a.takeOver("p", "w=2 with spaces\nand a newline").generation());
      assertEquals(1, a.takeOver("other pipeline/with:chars", "w1").generation());
    }
    try (LeaseFile b = LeaseFile.open(dir)) {
      LeaseFile.Lease p = b.current("p");
      assertEquals(2, p.generation());
      assertEquals("w=2 with spaces\nand a newline", p.owner());
      assertEquals(1, b.current("other pipeline/with:chars").generation());
      assertEquals(3, b.takeOver("p", "w3").generation());
    }
  }

  @Test
  void shouldHandOutUniqueGenerationsToConcurrentTakeovers() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(4);
    List<LeaseFile> files = new ArrayList<>();
    try {
      List<Future<Long>> gens = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        LeaseFile f = LeaseFile.open(dir); // separate handles share one lock in this JVM
        files.add(f);
        for (int i = 0; i < 25; i++) {
          gens.add(pool.submit(() -> f.takeOver("p", "w").generation()));
        }
      }
      Set<Long> seen = new HashSet<>();
      for (Future<Long> g : gens) {
        assertTrue(seen.add(g.get()), "generation handed out twice");
      }
      assertEquals(100, seen.size());
      assertEquals(100, files.get(0).current("p").generation());
    } finally {
      pool.shutdownNow();
      files.forEach(LeaseFile::close);
    }
  }

  @Test
  void shouldRefuseACorruptLeaseFileNamingIt() throws Exception {
    try (LeaseFile f = LeaseFile.open(dir)) {
      f.takeOver("p", "w");
      Path file = dir.resolve(LeaseFile.LEASE_FILE);
      Files.writeString(file, Files.readString(file).replace("=1 ", "=7 "));
      StoreException e = assertThrows(StoreException.class, () -> f.current("p"));
      assertTrue(e.getMessage().contains(file.toString()) && e.getMessage().contains("checksum"), e.getMessage());
    }
  }
}
