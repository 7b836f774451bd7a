package io.epochal.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.spouts.kafka.TestBroker;
import io.epochal.store.rocksdb.RocksDbTableStore;
import io.epochal.store.table.TableCheckpointStore;
import io.epochal.testkit.process.ChildJvm;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ad-join CLI across SIGKILLs of the Epochal process: {@code produce ad-join} fills three topics of a real
 * in-process broker, then child JVMs run {@code ad-join} (RocksDB state, exactly-once Kafka sink) and are killed
 * ({@link Process#destroyForcibly()}) at random moments: while starting, right after the pipeline was built, and
 * while it commits (after a progress line), so deaths land inside Kafka transactions, between checkpoint commits and
 * their publications, inside timer firings). After every kill a read_committed consumer must see no show twice and only lines that equal the batch
 * recomputation; the committed txid never goes back. A last run finishes the input and verifies itself (exit code 0);
 * then the output topic must equal the batch recomputation of the generated input (every show exactly once), and the
 * counts (late and unmatched clicks) and the emptied state must match.
 *
 * <p>Kills: {@code epochal.join.kills} (default 3, from the pom); the acceptance run is
 * {@code -Depochal.join.kills=20}. {@code -Depochal.seed=N} replays the input and the kill schedule.
 */
class AdJoinCrashIT {
  private static final Duration TIMEOUT = Duration.ofSeconds(120);
  private static final int TOPIC_PARTITIONS = 3;
  private static final long GAP = 20_000;
  private static TestBroker broker;

  @TempDir
  Path dir;

  @BeforeAll
  static void startBroker() throws Exception {
    broker = TestBroker.start();
  }

  @AfterAll
  static void stopBroker() throws Exception {
    broker.close();
  }

  @Test
  void theOutputTopicEqualsTheBatchRecomputationAfterRandomSigkills() throws Exception {
    int kills = Integer.getInteger("epochal.join.kills", 3);
    long seed = Long.getLong("epochal.seed", System.nanoTime() % 1_000_000);
    int shows = Math.max(3000, 600 * kills); // the kills move the run on a few batches each: the input outlasts them
    // 20 s between shows (30 s on average): an hour is ~120 shows, ~300 records, so from the third batch on every
    // batch emits shows and publishes them, and the kills land in the output's Kafka transactions
    Random random = new Random(seed);
    String bootstrap = broker.bootstrap();
    List<String> topics = AdJoinKafkaTest.produce(bootstrap, shows, seed, TOPIC_PARTITIONS, GAP);
    AdJoinLogic.Expected expected = AdJoinLogic.recompute(AdJoinInput.generate(seed, shows,
        new int[] {TOPIC_PARTITIONS, TOPIC_PARTITIONS, TOPIC_PARTITIONS}, AdJoinKafkaTest.mix(GAP)));
    List<String> args = AdJoinKafkaTest.joinArgs(bootstrap, topics, "--state-dir", dir.toString(), "--batch-size",
        "15", "--partitions", "3", "--threads", "2", "--in-flight", "2");
    long started = System.nanoTime();
    int killed = 0;
    int beforeBuilt = 0;
    long lastTxid = 0;
    StringBuilder schedule = new StringBuilder();
    while (killed < kills) {
      String phase;
      long delay;
      try (ChildJvm child = ChildJvm.start(Main.class, args)) {
        int pick = random.nextInt(10);
        if (pick < 2) {
          phase = "start";
          delay = random.nextInt(2500);
        } else {
          assertNotNull(child.awaitLine(l -> l.startsWith("pipeline built"), TIMEOUT),
              () -> "ad-join did not start (seed " + seed + "): " + child.stderr());
          if (pick < 4) {
            phase = "built";
            delay = random.nextInt(800);
          } else {
            // a progress line (once a second): the run is committing batches
            assertNotNull(child.awaitLine(l -> l.contains(" records, txid "), TIMEOUT),
                () -> "ad-join printed no progress (seed " + seed + "): " + child.stderr());
            phase = "running";
            delay = random.nextInt(1500);
          }
        }
        Thread.sleep(delay);
        assertTrue(child.isAlive(), () -> "ad-join exited before it was killed: raise the shows (seed " + seed
            + "): " + child.stderr());
        child.kill();
        killed++;
        beforeBuilt += phase.equals("start") ? 1 : 0;
      }
      long txid = committedTxid();
      assertTrue(txid >= lastTxid, "committed txid went back from " + lastTxid + " to " + txid);
      lastTxid = txid;
      List<String> bad = new ArrayList<>();
      AdJoin.readTopic(bootstrap, topics.get(3), false).forEach((id, lines) -> {
        if (lines.size() > 1 || !lines.get(0).equals(expected.outputs().get(id))) {
          bad.add(id + " " + lines);
        }
      });
      assertEquals(List.of(), bad, "duplicated or wrong outputs after committed txid " + txid + " (seed " + seed + ")");
      schedule.append(killed % 10 == 1 ? "\n   " : " ").append(phase).append('+').append(delay).append("ms:")
          .append(txid);
    }
    String last;
    try (ChildJvm child = ChildJvm.start(Main.class, args)) {
      last = child.awaitLine(l -> l.startsWith("output verified") || l.startsWith("MISMATCH"), Duration.ofMinutes(5));
      assertNotNull(last, () -> "the last run did not finish (seed " + seed + "): " + child.stderr());
      assertEquals(0, child.waitFor(TIMEOUT), () -> "the last run's verification failed (seed " + seed + "): "
          + child.stderr());
    }
    assertTrue(last.startsWith("output verified"), last);
    Map<String, String> published = new TreeMap<>();
    AdJoin.readTopic(bootstrap, topics.get(3)).forEach((id, lines) -> {
      assertEquals(1, lines.size(), () -> "show " + id + " published " + lines + " (seed " + seed + ")");
      published.put(id, lines.get(0));
    });
    assertEquals(shows, expected.outputs().size());
    assertEquals(expected.outputs(), published, "seed " + seed);
    Map<String, Long> counts = new TreeMap<>();
    long cells;
    long due;
    try (TableExampleStore store = new TableExampleStore(RocksDbTableStore.builder(dir)
        .openTimeout(Duration.ofSeconds(30)).build(), "RocksDB", AdJoin.PIPELINE)) {
      store.read("join-counts").forEach((k, v) -> counts.put(k, (Long) v));
      cells = AdJoin.stateCells(store);
      due = AdJoin.dueCells(store, expected.watermark());
    }
    counts.values().removeIf(v -> v == 0);
    assertEquals(expected.counts(), counts, "seed " + seed);
    assertTrue(counts.getOrDefault(AdJoinLogic.LATE_CLICKS, 0L) > 0, counts::toString);
    // the cells emitted in the last batches wait for a watermark two hours later (their TTL): none may be due
    assertEquals(0, due, () -> "state cells due (of " + cells + " left)");
    System.out.printf("AdJoinCrashIT: %d SIGKILLs (%d before the pipeline was built), last committed txid before"
        + " the final run %d, %d shows read exactly once by a read_committed consumer and equal to the batch"
        + " recomputation, counts %s, %d state cells left (none due), %d s, seed %d; kills as phase+delay:committed"
        + " txid after it:%s%n", killed, beforeBuilt, lastTxid, published.size(), counts, cells,
        Duration.ofNanos(System.nanoTime() - started).toSeconds(), seed, schedule);
  }

  private long committedTxid() {
    try (RocksDbTableStore store = RocksDbTableStore.builder(dir).openTimeout(Duration.ofSeconds(30)).build()) {
      return TableCheckpointStore.builder(store).owner("crash-test-checker").build().load(AdJoin.PIPELINE)
          .committedTxid();
    } catch (RuntimeException e) {
      if (!java.nio.file.Files.exists(dir.resolve("CURRENT")) && !java.nio.file.Files.exists(dir.resolve("db"))) {
        return 0; // killed before the store was created
      }
      throw e;
    }
  }
}
