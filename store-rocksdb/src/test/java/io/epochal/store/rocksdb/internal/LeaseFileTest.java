package io.epochal.store.rocksdb.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LeaseFileTest {
  @TempDir
  Path dir;

  private static long takeOver(LeaseFile f, String name, String owner) {
    return f.locked(() -> {
      LeaseFile.Contents c = f.read();
      Map<String, LeaseFile.Lease> all = new TreeMap<>(c.leases());
      LeaseFile.Lease next = new LeaseFile.Lease(name, c.get(name).generation() + 1, owner);
      all.put(name, next);
      f.write(Optional.of("db-1"), all);
      return next.generation();
    });
  }

  @Test
  void shouldKeepGenerationsOwnersAndTheDatabaseIdAcrossHandles() {
    try (LeaseFile a = LeaseFile.open(dir)) {
      assertEquals(LeaseFile.Status.MISSING, a.read().status());
      assertEquals(0, a.read().get("p").generation());
      assertEquals(1, takeOver(a, "p", "w1"));
      assertEquals(2, takeOver(a, "p", "w=2 with spaces\nand a newline"));
      assertEquals(1, takeOver(a, "other pipeline/with:chars", "w1"));
    }
    try (LeaseFile b = LeaseFile.open(dir)) {
      LeaseFile.Contents c = b.read();
      assertTrue(c.belongsTo("db-1"));
      assertTrue(!c.belongsTo("db-2"));
      assertEquals(2, c.get("p").generation());
      assertEquals("w=2 with spaces\nand a newline", c.get("p").owner());
      assertEquals(1, c.get("other pipeline/with:chars").generation());
      assertEquals(3, takeOver(b, "p", "w3"));
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
          gens.add(pool.submit(() -> takeOver(f, "p", "w")));
        }
      }
      Set<Long> seen = new HashSet<>();
      for (Future<Long> g : gens) {
        assertTrue(seen.add(g.get()), "generation handed out twice");
      }
      assertEquals(100, seen.size());
      assertEquals(100, files.get(0).read().get("p").generation());
    } finally {
      pool.shutdownNow();
      files.forEach(LeaseFile::close);
    }
  }

  @Test
  void shouldReportAnEditedLeaseFileAsDamagedNamingIt() throws Exception {
    try (LeaseFile f = LeaseFile.open(dir)) {
      takeOver(f, "p", "w");
      Path file = dir.resolve(LeaseFile.LEASE_FILE);
      Files.writeString(file, Files.readString(file).replace("=1 ", "=7 "));
      LeaseFile.Contents c = f.read();
      assertEquals(LeaseFile.Status.DAMAGED, c.status());
      assertTrue(c.problem().contains(file.toString()) && c.problem().contains("checksum"), c.problem());
      assertTrue(!c.belongsTo("db-1"), "a damaged file validates no lease");
    }
  }

  @Test
  void shouldReadFormatOneFilesWithoutDatabaseId() throws Exception {
    String body = "format=1\nlease.p=4 old-owner\n";
    java.util.zip.CRC32 crc = new java.util.zip.CRC32();
    crc.update(body.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    Files.writeString(dir.resolve(LeaseFile.LEASE_FILE), "# old\n" + body + "crc32="
        + Long.toHexString(crc.getValue()) + "\n");
    LeaseFile.Contents c = LeaseFile.read(dir.resolve(LeaseFile.LEASE_FILE));
    assertEquals(LeaseFile.Status.OK, c.status());
    assertEquals(Optional.empty(), c.databaseId());
    assertEquals(new LeaseFile.Lease("p", 4, "old-owner"), c.get("p"));
  }

  @Test
  void shouldRoundTripLeaseRowsOfTheDatabase() {
    LeaseFile.Lease l = new LeaseFile.Lease("pipeline:wc", 12, "host a/pid 7");
    assertEquals(l, LeaseFile.fromRow("pipeline:wc", LeaseFile.toRow(l)));
  }
}
