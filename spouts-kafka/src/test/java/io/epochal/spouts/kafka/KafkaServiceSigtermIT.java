package io.epochal.spouts.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.store.rocksdb.RocksDbTableStore;
import io.epochal.testkit.process.ChildJvm;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Service mode under SIGTERM: a child JVM runs the Kafka word count of {@link KafkaWordCountWorker} in a
 * {@code PipelineService} with {@code stopOnShutdown()}; the test sends SIGTERM while it
 * commits batches and records keep arriving ({@code ChildJvm.terminate()}). Each time the JVM must exit by itself within the stop timeout, its log
 * must say the pipeline stopped on request after the last txid it reported committed (the batch being committed was
 * finished, none after it started), and both count tables must equal a recount of the topic below the committed
 * offsets. The service is started again over the same state, several times; a last run drains the topic and the
 * counts equal a recount of the whole topic.
 *
 * <p>Stops: {@code epochal.kafka.sigterms} (default 4).
 */
class KafkaServiceSigtermIT {
  private static final Duration TIMEOUT = Duration.ofSeconds(90);
  private static final Pattern STOPPED = Pattern.compile("service .kafka-wc. stopped after committed txid (\\d+)");
  /** The graceful stop is logged at INFO; ChildJvm starts children at WARN (a later -D wins). */
  private static final List<String> INFO_LOGS = List.of("-Dorg.slf4j.simpleLogger.defaultLogLevel=info");
  private static TestBroker broker;

  @TempDir
  Path dir;

  @BeforeAll
  static void startBroker() throws Exception {
    broker = TestBroker.shared(); // with the other ITs of this JVM that keep it running
  }

  @Test
  void sigtermStopsTheServiceBetweenBatchesAndARestartResumesExactly() throws Exception {
    int stops = Integer.getInteger("epochal.kafka.sigterms", 4);
    String topic = TestBroker.newTopic("sigterm");
    broker.createTopic(topic, 4);
    long seed = 42;
    broker.produceSentences(topic, 4, seed, 0, 5_000);
    long produced = 5_000;
    List<String> args = List.of(dir.toString(), broker.bootstrap(), topic, "transactional", "50", "service");
    long lastTxid = 0;
    StringBuilder report = new StringBuilder();
    for (int i = 0; i < stops; i++) {
      try (ChildJvm child = ChildJvm.start(KafkaWordCountWorker.class, INFO_LOGS, args)) {
        assertNotNull(child.awaitLine(l -> l.startsWith("READY "), TIMEOUT),
            () -> "the service did not start: " + child.stderr());
        try (KafkaProducer<String, String> p = broker.producer()) { // more input while it runs
          for (long r = produced; r < produced + 2_000; r++) {
            p.send(new ProducerRecord<>(topic, (int) (r % 4), null, TestBroker.sentence(seed, r)));
          }
        }
        produced += 2_000;
        String seen = child.awaitLine(l -> l.startsWith("C "), TIMEOUT);
        assertNotNull(seen, () -> "the service committed nothing: " + child.stderr());
        Thread.sleep(200 + 150L * i);
        child.terminate();
        int exit = child.waitFor(TIMEOUT);
        assertEquals(143, exit, () -> "the JVM did not end by itself on SIGTERM (128 + 15): " + child.stderr());

        String last = seen;
        for (String line; (line = child.awaitLine(l -> l.startsWith("C "), TIMEOUT)) != null;) {
          last = line; // null once the child's stdout reached EOF
        }
        long lastReported = Long.parseLong(last.substring(2));
        long stoppedAt = stoppedAt(child);
        assertEquals(lastReported, stoppedAt, "the service stops right after the last batch it reported committed");
        long committed = CountWorld.verifyBelowCommittedOffsets(broker, dir, topic, "SIGTERM test");
        assertEquals(stoppedAt, committed, "the checkpoint holds the txid the stop reported");
        assertTrue(committed > lastTxid, "each run committed something");
        lastTxid = committed;
        report.append(' ').append(committed);
      }
    }
    List<String> drain = new ArrayList<>(args.subList(0, 5));
    drain.add("drain");
    try (ChildJvm last = ChildJvm.start(KafkaWordCountWorker.class, drain)) {
      assertNotNull(last.awaitLine(l -> l.startsWith("DONE "), TIMEOUT), last::stderr);
      assertEquals(0, last.waitFor(TIMEOUT), last::stderr);
    }
    CountWorld.verifyBelowCommittedOffsets(broker, dir, topic, "SIGTERM test");
    Map<String, Long> all = CountWorld.recount(broker.values(topic));
    try (RocksDbTableStore store = RocksDbTableStore.builder(dir).openTimeout(Duration.ofSeconds(30)).build()) {
      assertEquals(all, CountWorld.read(store, KafkaWordCountWorker.PIPELINE + "/" + CountWorld.TX, true));
      assertEquals(all, CountWorld.read(store, KafkaWordCountWorker.PIPELINE + "/" + CountWorld.OPAQUE, false));
    }
    System.out.printf("KafkaServiceSigtermIT: %d SIGTERMs, each a graceful stop, committed txid after each:%s;"
        + " %d records counted exactly%n", stops, report, produced);
  }

  /** The txid the log reports the graceful stop after (the stderr pump may trail the exit by a moment). */
  private static long stoppedAt(ChildJvm child) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (true) {
      Matcher m = STOPPED.matcher(child.stderr());
      if (m.find()) {
        return Long.parseLong(m.group(1));
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("no graceful stop in the log: " + child.stderr());
      }
      Thread.sleep(20);
    }
  }
}
