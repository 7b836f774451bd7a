package io.epochal.spouts.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.epochal.store.rocksdb.RocksDbTableStore;
import io.epochal.testkit.process.ChildJvm;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Exactly-once word count from a 4-partition Kafka topic with the Epochal process SIGKILLed again and again: a child
 * JVM runs {@link KafkaWordCountWorker} (Kafka spout, RocksDB epoch store, TransactionalMap and OpaqueMap tables)
 * and is killed ({@link Process#destroyForcibly()}) at random moments, restarted each time, while a producer keeps
 * appending to the topic. After every kill the test opens the state directory and checks both tables against an
 * exact recount of the topic's records below the committed offsets of each partition (the epoch protocol makes state
 * and offsets one write). At the end the producer stops, a last run drains the topic, and the counts must equal a
 * recount of the whole topic.
 *
 * <p>Kills: {@code epochal.kafka.kills} (default 10) for the transactional spout, half as many for the opaque one;
 * {@code -Depochal.kafka.kills=100} for more. {@code -Depochal.seed=N} replays the kill schedule's choices.
 */
class KafkaCrashIT {
  private static final Duration TIMEOUT = Duration.ofSeconds(90);
  private static TestBroker broker;

  @TempDir
  Path dir;

  @BeforeAll
  static void startBroker() throws Exception {
    broker = TestBroker.shared(); // with the other ITs of this JVM that keep it running
  }

  @Test
  void theTransactionalSpoutCountsEveryWordExactlyOnceAcrossRandomSigkills() throws Exception {
    crashLoop(false, Integer.getInteger("epochal.kafka.kills", 10));
  }

  @Test
  void theOpaqueSpoutCountsEveryWordExactlyOnceAcrossRandomSigkills() throws Exception {
    crashLoop(true, Math.max(1, Integer.getInteger("epochal.kafka.kills", 10) / 2));
  }

  private void crashLoop(boolean opaque, int kills) throws Exception {
    long seed = Long.getLong("epochal.seed", System.nanoTime());
    Random random = new Random(seed);
    String topic = TestBroker.newTopic(opaque ? "crash-opaque" : "crash-tx");
    broker.createTopic(topic, 4);
    broker.produceSentences(topic, 4, seed, 0, 20_000);
    AtomicLong produced = new AtomicLong(20_000);
    AtomicBoolean producing = new AtomicBoolean(true);
    Thread producer = new Thread(() -> {
      try (KafkaProducer<String, String> p = broker.producer()) {
        while (producing.get()) {
          long from = produced.get();
          for (long i = from; i < from + 100; i++) {
            p.send(new ProducerRecord<>(topic, (int) (i % 4), null, TestBroker.sentence(seed, i)));
          }
          p.flush();
          produced.addAndGet(100);
          Thread.sleep(100);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "appending-producer");
    producer.start();
    long started = System.nanoTime();
    int killed = 0;
    int beforeReady = 0;
    long lastTxid = 0;
    StringBuilder schedule = new StringBuilder();
    List<String> args = List.of(dir.toString(), broker.bootstrap(), topic, opaque ? "opaque" : "transactional", "60");
    try {
      while (killed < kills) {
        String phase;
        long delay;
        try (ChildJvm child = ChildJvm.start(KafkaWordCountWorker.class, with(args, "follow"))) {
          int pick = random.nextInt(10);
          if (pick < 2) {
            phase = "start";
            delay = random.nextInt(1500);
          } else {
            assertNotNull(child.awaitLine(l -> l.startsWith("READY "), TIMEOUT),
                () -> "worker did not start (seed " + seed + "): " + child.stderr());
            if (pick < 5) {
              phase = "recovered";
              delay = random.nextInt(300);
            } else {
              phase = "running";
              assertNotNull(child.awaitLine(l -> l.startsWith("C "), TIMEOUT),
                  () -> "worker committed nothing (seed " + seed + "): " + child.stderr());
              delay = random.nextInt(800);
            }
          }
          Thread.sleep(delay);
          if (!child.isAlive()) {
            fail("worker exited before it was killed (seed " + seed + "): " + child.stderr());
          }
          child.kill();
          killed++;
          beforeReady += phase.equals("start") ? 1 : 0;
        }
        long txid = CountWorld.verifyBelowCommittedOffsets(broker, dir, topic, "seed " + seed);
        assertTrue(txid >= lastTxid, "committed txid went back from " + lastTxid + " to " + txid);
        lastTxid = txid;
        schedule.append(killed % 10 == 1 ? "\n   " : " ").append(phase).append('+').append(delay).append("ms:")
            .append(txid);
      }
    } finally {
      producing.set(false);
      producer.join();
    }
    try (ChildJvm last = ChildJvm.start(KafkaWordCountWorker.class, with(args, "drain"))) {
      assertNotNull(last.awaitLine(l -> l.startsWith("DONE "), TIMEOUT),
          () -> "the last run did not finish (seed " + seed + "): " + last.stderr());
      assertEquals(0, last.waitFor(TIMEOUT), last::stderr);
    }
    long txid = CountWorld.verifyBelowCommittedOffsets(broker, dir, topic, "seed " + seed);
    Map<String, Long> all = CountWorld.recount(broker.values(topic));
    try (RocksDbTableStore store = RocksDbTableStore.builder(dir).openTimeout(Duration.ofSeconds(30)).build()) {
      assertEquals(all, CountWorld.read(store, KafkaWordCountWorker.PIPELINE + "/" + CountWorld.TX, true),
          "TransactionalMap counts after the drain equal a recount of the whole topic (seed " + seed + ")");
      assertEquals(all, CountWorld.read(store, KafkaWordCountWorker.PIPELINE + "/" + CountWorld.OPAQUE, false),
          "OpaqueMap counts after the drain equal a recount of the whole topic (seed " + seed + ")");
    }
    System.out.printf("KafkaCrashIT %s spout: %d SIGKILLs (%d before the pipeline was running), %d batches committed,"
        + " %d records, %d s, seed %d; kills as phase+delay:committed txid after it:%s%n",
        opaque ? "opaque" : "transactional", killed, beforeReady, txid, produced.get(),
        Duration.ofNanos(System.nanoTime() - started).toSeconds(), seed, schedule);
  }

  private static List<String> with(List<String> args, String mode) {
    List<String> out = new ArrayList<>(args);
    out.add(mode);
    return out;
  }
}
