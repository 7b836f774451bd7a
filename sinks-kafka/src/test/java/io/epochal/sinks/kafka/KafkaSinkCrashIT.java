package io.epochal.sinks.kafka;

import io.epochal.spouts.kafka.TestBroker;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.store.rocksdb.RocksDbTableStore;
import io.epochal.store.table.TableCheckpointStore;
import io.epochal.testkit.process.ChildJvm;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The exactly-once Kafka sink across SIGKILLs of the Epochal process: a child JVM runs {@link KafkaSinkWorker}
 * (generated sentences, word count on RocksDB, new counts to a Kafka topic through the sink) and is killed
 * ({@link Process#destroyForcibly()}) at random moments: before its pipeline is built, right after, and while it
 * commits and publishes, so deaths land inside Kafka transactions, between a checkpoint commit and its publication,
 * and right after a publication. After every kill a read_committed consumer must read no duplicate and nothing that
 * is not an expected output. At the end a last run drains the input, and the consumer must read every expected output
 * exactly once.
 *
 * <p>Kills: {@code epochal.kafka.sink.kills} (default 20, from the pom); {@code -Depochal.kafka.sink.kills=100} for
 * more. {@code -Depochal.seed=N} replays the kill schedule's choices.
 */
class KafkaSinkCrashIT {
  private static final Duration TIMEOUT = Duration.ofSeconds(90);
  private static final int BATCH = 100;
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
  void aReadCommittedConsumerSeesEveryOutputExactlyOnceAcrossRandomSigkills() throws Exception {
    int kills = Integer.getInteger("epochal.kafka.sink.kills", 20);
    // the kills move the pipeline on by about 5 batches each; the input must outlast them
    long sentences = (long) BATCH * Math.max(300, 15 * kills);
    long seed = Long.getLong("epochal.seed", System.nanoTime());
    Random random = new Random(seed);
    String topic = TestBroker.newTopic("sink-crash");
    broker.createTopic(topic, 4);
    Map<Long, List<String>> expected = SinkWorld.expected(seed, sentences, BATCH);
    Set<String> valid = new HashSet<>(SinkWorld.all(expected));
    List<String> args = List.of(dir.toString(), broker.bootstrap(), topic, Long.toString(seed),
        Long.toString(sentences), Integer.toString(BATCH));
    long started = System.nanoTime();
    int killed = 0;
    int beforeReady = 0;
    long lastTxid = 0;
    StringBuilder schedule = new StringBuilder();
    while (killed < kills) {
      String phase;
      long delay;
      try (ChildJvm child = ChildJvm.start(KafkaSinkWorker.class, args)) {
        int pick = random.nextInt(10);
        if (pick < 2) {
          phase = "start";
          delay = random.nextInt(1500);
        } else {
          assertNotNull(child.awaitLine(l -> l.startsWith("READY "), TIMEOUT),
              () -> "worker did not start (seed " + seed + "): " + child.stderr());
          if (pick < 4) {
            phase = "recovered";
            delay = random.nextInt(400);
          } else {
            phase = "running";
            assertNotNull(child.awaitLine(l -> l.startsWith("C "), TIMEOUT),
                () -> "worker committed nothing (seed " + seed + "): " + child.stderr());
            delay = random.nextInt(1000);
          }
        }
        Thread.sleep(delay);
        assertTrue(child.isAlive(), () -> "worker exited before it was killed; raise sentences (seed " + seed + "): "
            + child.stderr());
        child.kill();
        killed++;
        beforeReady += phase.equals("start") ? 1 : 0;
      }
      long txid = check(topic, valid, seed);
      assertTrue(txid >= lastTxid, "committed txid went back from " + lastTxid + " to " + txid);
      lastTxid = txid;
      schedule.append(killed % 10 == 1 ? "\n   " : " ").append(phase).append('+').append(delay).append("ms:")
          .append(txid);
    }
    try (ChildJvm last = ChildJvm.start(KafkaSinkWorker.class, args)) {
      assertNotNull(last.awaitLine(l -> l.startsWith("DONE "), Duration.ofMinutes(3)),
          () -> "the last run did not finish (seed " + seed + "): " + last.stderr());
      assertEquals(0, last.waitFor(TIMEOUT), last::stderr);
    }
    long txid = check(topic, valid, seed);
    assertEquals(expected.size(), txid, "every batch committed");
    List<String> all = SinkWorld.all(expected);
    List<String> read = SinkWorld.published(broker, topic);
    SinkWorld.assertExactlyOnce(all, read, "after the drain (seed " + seed + ")");
    System.out.printf("KafkaSinkCrashIT: %d SIGKILLs (%d before the pipeline was built), %d batches committed, %d"
        + " outputs read exactly once by a read_committed consumer, %d s, seed %d; kills as phase+delay:committed"
        + " txid after it:%s%n", killed, beforeReady, txid, read.size(),
        Duration.ofNanos(System.nanoTime() - started).toSeconds(), seed, schedule);
  }

  /**
   * What a read_committed consumer reads now: no duplicate and nothing that is not an expected output. (It cannot
   * check for missing outputs here: the killed worker's open transactions hide what follows them on their Kafka
   * partitions until the next worker's producers abort them; the drain's check covers losses.) @return the
   * committed txid
   */
  private long check(String topic, Set<String> valid, long seed) {
    long committed;
    try (RocksDbTableStore store = RocksDbTableStore.builder(dir).openTimeout(Duration.ofSeconds(30)).build()) {
      committed = TableCheckpointStore.builder(store).owner("crash-test-checker").build()
          .load(KafkaSinkWorker.PIPELINE).committedTxid();
    }
    List<String> read = SinkWorld.visible(broker, topic);
    Map<String, Integer> seen = new HashMap<>();
    List<String> bad = new ArrayList<>();
    for (String r : read) {
      if (seen.merge(r, 1, Integer::sum) > 1 || !valid.contains(r)) {
        bad.add(r);
      }
    }
    assertEquals(List.of(), bad, () -> "duplicated or unexpected outputs after committed txid " + committed
        + " (seed " + seed + ")");
    return committed;
  }
}
