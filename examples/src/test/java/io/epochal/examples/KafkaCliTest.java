package io.epochal.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.codec.Codecs;
import io.epochal.store.rocksdb.RocksDbTableStore;
import io.epochal.store.table.Row;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;
import org.apache.kafka.server.common.MetadataVersion;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The Kafka form of the examples against a real Kafka broker started in this JVM (KRaft, {@code KafkaClusterTestKit},
 * no Docker): {@code produce} fills the topics, {@code word-count} and {@code banner-counters} read them with both
 * Kafka spout kinds under injected failures and verify their counts against the records below the committed offsets
 * (read back with a plain read_committed consumer); a rerun continues after the committed offsets; a tampered count
 * is exit code 1; bad options and a missing topic are exit code 2 naming the option with nothing created; an
 * unreachable broker is exit code 3 with one line, nothing created.
 */
class KafkaCliTest {
  private static KafkaClusterTestKit cluster;
  private static String bootstrap;
  private static int topics;

  @TempDir
  Path tmp;

  @BeforeAll
  static void startBroker() throws Exception {
    // A production metadata version (the kit's default enables unreleased features; see spouts-kafka's TestBroker).
    TestKitNodes nodes = new TestKitNodes.Builder().setBootstrapMetadataVersion(MetadataVersion.latestProduction())
        .setCombined(true).setNumControllerNodes(1).setNumBrokerNodes(1).build();
    KafkaClusterTestKit.Builder builder = new KafkaClusterTestKit.Builder(nodes);
    Map<String, Object> props = new HashMap<>();
    props.put("offsets.topic.replication.factor", "1");
    props.put("offsets.topic.num.partitions", "1");
    props.put("transaction.state.log.replication.factor", "1");
    props.put("transaction.state.log.min.isr", "1");
    props.put("transaction.state.log.num.partitions", "1");
    props.put("num.network.threads", "2");
    props.put("num.io.threads", "2");
    props.forEach(builder::setConfigProp);
    cluster = builder.build();
    cluster.format();
    cluster.startup();
    cluster.waitForReadyBrokers();
    bootstrap = cluster.bootstrapServers();
  }

  @AfterAll
  static void stopBroker() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
  }

  private static String newTopic(String what) {
    return what + "-" + (++topics);
  }

  private String state() {
    return tmp.resolve("state").toString();
  }

  private static void assertVerified(MainTest.Result r) {
    assertEquals(Main.OK, r.code(), r::toString);
    assertTrue(r.out().contains("counts verified: every state equals a plain recount of the records below the "
        + "committed offsets"), r::out);
    assertEquals("", r.err());
  }

  @Test
  void metricsPortServesTheKafkaSourceLagPerPartition() {
    String topic = newTopic("lag");
    MainTest.Result produced = MainTest.cli("produce", "word-count", "--bootstrap", bootstrap, "--topic", topic,
        "--sentences", "40000");
    assertEquals(Main.OK, produced.code(), produced::toString);
    ScrapingOut out = new ScrapingOut();
    java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
    int code = Main.execute(new String[] {"word-count", "--bootstrap", bootstrap, "--topic", topic, "--batch-size",
        "20", "--state-dir", state(), "--metrics-port", "0"},
        new java.io.PrintStream(out, true, java.nio.charset.StandardCharsets.UTF_8),
        new java.io.PrintStream(err, true, java.nio.charset.StandardCharsets.UTF_8));
    String printed = out.all.toString(java.nio.charset.StandardCharsets.UTF_8);
    assertEquals(Main.OK, code, () -> printed + err);
    Map<String, String> source = Map.of("pipeline", "word-count", "source", "sentences");

    // Mid-run, on the coordinator thread between two batches: lag = records not yet committed, exactly.
    assertTrue(out.atProgress != null && out.atProgress.statusCode() == 200, () -> "a progress line: " + printed);
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("([0-9,]+) records").matcher(out.progressLine);
    assertTrue(m.find(), out.progressLine);
    long committed = Long.parseLong(m.group(1).replace(",", ""));
    String mid = out.atProgress.body();
    assertEquals(4, ScrapingOut.value(mid, "epochal_source_partitions", source), mid);
    assertEquals(40_000 - committed, ScrapingOut.value(mid, "epochal_source_lag", source),
        () -> out.progressLine + "\n" + mid);
    assertTrue(committed > 0 && committed < 40_000, out.progressLine);

    // After the run the spout is closed: its lag cannot be read, and reads NaN (never a made-up 0).
    String end = out.atEnd.body();
    assertTrue(Double.isNaN(ScrapingOut.value(end, "epochal_source_lag", source)), end);
  }

  @ParameterizedTest
  @ValueSource(strings = {"transactional", "opaque"})
  void wordCountReadsATopicExactlyOnceUnderFailuresAndContinuesAfterTheCommittedOffsets(String kind) {
    String topic = newTopic("sentences");
    MainTest.Result produced = MainTest.cli("produce", "word-count", "--bootstrap", bootstrap, "--topic", topic,
        "--sentences", "3000");
    assertEquals(Main.OK, produced.code(), produced::toString);
    assertTrue(produced.out().contains("produced 3,000 records to " + topic), produced::out);

    MainTest.Result first = MainTest.cli("word-count", "--bootstrap", bootstrap, "--topic", topic, "--kafka-kind",
        kind, "--batch-size", "100", "--failure-rate", "0.2", "--state-dir", state());
    assertVerified(first);
    assertTrue(first.out().contains("Kafka " + bootstrap + ", topic " + topic + " (4 partitions, 3,000 offsets"),
        first::out);
    assertTrue(first.out().contains("3,000 records in"), first::out);

    MainTest.Result more = MainTest.cli("produce", "word-count", "--bootstrap", bootstrap, "--topic", topic,
        "--sentences", "1000", "--seed", "7");
    assertEquals(Main.OK, more.code(), more::toString);
    MainTest.Result again = MainTest.cli("word-count", "--bootstrap", bootstrap, "--topic", topic, "--kafka-kind",
        kind, "--batch-size", "100", "--state-dir", state());
    assertVerified(again);
    assertTrue(again.out().contains("resuming"), again::out);
    assertTrue(again.out().contains("1,000 records in"), () -> "only the new records: " + again.out());
  }

  @ParameterizedTest
  @ValueSource(strings = {"transactional", "opaque"})
  void bannerCountersJoinsClicksOfOneTopicToShowsOfAnotherExactlyOnce(String kind) {
    String shows = newTopic("shows");
    String clicks = newTopic("clicks");
    MainTest.Result produced = MainTest.cli("produce", "banner-counters", "--bootstrap", bootstrap, "--shows-topic",
        shows, "--clicks-topic", clicks, "--events", "4000", "--topic-partitions", "3");
    assertEquals(Main.OK, produced.code(), produced::toString);
    // Small batches over two topics: many clicks are read before their shows, and move to the banner later.
    MainTest.Result r = MainTest.cli("banner-counters", "--bootstrap", bootstrap, "--shows-topic", shows,
        "--clicks-topic", clicks, "--kafka-kind", kind, "--batch-size", "50", "--failure-rate", "0.2",
        "--state-dir", state());
    assertVerified(r);
    assertTrue(r.out().contains("topics " + shows + " and " + clicks + " (6 partitions, 4,000 offsets"), r::out);
  }

  @Test
  void bannerCountersOnThePerKeyProtocolStaysExactUnderFailures() {
    String shows = newTopic("shows");
    String clicks = newTopic("clicks");
    assertEquals(Main.OK, MainTest.cli("produce", "banner-counters", "--bootstrap", bootstrap, "--shows-topic",
        shows, "--clicks-topic", clicks, "--events", "3000").code());
    MainTest.Result r = MainTest.cli("banner-counters", "--bootstrap", bootstrap, "--shows-topic", shows,
        "--clicks-topic", clicks, "--batch-size", "60", "--failure-rate", "0.3", "--store", "memory-maps");
    assertVerified(r);
  }

  @Test
  void aTamperedCountIsExitCodeOne() throws Exception {
    String topic = newTopic("sentences");
    assertEquals(Main.OK, MainTest.cli("produce", "word-count", "--bootstrap", bootstrap, "--topic", topic,
        "--sentences", "500").code());
    String[] run = {"word-count", "--bootstrap", bootstrap, "--topic", topic, "--state-dir", state()};
    assertVerified(MainTest.cli(run));
    try (RocksDbTableStore store = RocksDbTableStore.builder(Path.of(state())).build()) {
      Table t = store.findTable("word-count/word-counts").orElseThrow();
      try (StoreTransaction tx = store.begin()) {
        Row row = tx.scan(t).get(0);
        List<Object> values = new ArrayList<>(row.values());
        values.set(row.schema().valueColumns().indexOf(row.schema().column("value").orElseThrow()),
            Codecs.longs().encode(987_654_321L));
        tx.upsert(t, Row.of(row.key(), values.toArray()));
        tx.commit();
      }
    }
    MainTest.Result r = MainTest.cli(run);
    assertEquals(Main.WRONG_STATE, r.code(), r::toString);
    assertTrue(r.out().contains("MISMATCH in state 'word-counts'") && r.out().contains("987654321"), r::out);
  }

  @Test
  void untilEndStopsAtTheEndOffsetsOfTheStartWhileAProducerKeepsAppending() throws Exception {
    String topic = newTopic("busy");
    assertEquals(Main.OK, MainTest.cli("produce", "word-count", "--bootstrap", bootstrap, "--topic", topic,
        "--sentences", "2000").code());
    Thread producer = new Thread(() -> {
      try (KafkaProducer<String, String> p = producer()) {
        for (int i = 0; !Thread.currentThread().isInterrupted(); i++) {
          p.send(new ProducerRecord<>(topic, null, "appended while the example runs " + i));
          if (i % 50 == 0) {
            p.flush();
            Thread.sleep(5);
          }
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "appending");
    producer.start();
    try {
      MainTest.Result r = MainTest.cli("word-count", "--bootstrap", bootstrap, "--topic", topic, "--batch-size",
          "100", "--state-dir", state());
      assertVerified(r);
    } finally {
      producer.interrupt();
      producer.join();
    }
  }

  static Stream<Arguments> badInputs() {
    return Stream.of(
        Arguments.of(List.of("word-count", "--topic", "t"), "--topic"),
        Arguments.of(List.of("word-count", "--kafka-kind", "opaque"), "--kafka-kind"),
        Arguments.of(List.of("word-count", "--until", "end"), "--until"),
        Arguments.of(List.of("word-count", "--bootstrap", "no-port", "--topic", "t"), "--bootstrap"),
        Arguments.of(List.of("word-count", "--bootstrap", "h:1"), "--topic"),
        Arguments.of(List.of("word-count", "--bootstrap", "h:1", "--topic", "bad topic!"), "--topic"),
        Arguments.of(List.of("word-count", "--bootstrap", "h:1", "--topic", "t", "--kafka-kind", "exact"),
            "--kafka-kind"),
        Arguments.of(List.of("word-count", "--bootstrap", "h:1", "--topic", "t", "--until", "forever"), "--until"),
        Arguments.of(List.of("word-count", "--bootstrap", "h:1", "--topic", "t", "--spout", "opaque"), "--spout"),
        Arguments.of(List.of("word-count", "--bootstrap", "h:1", "--topic", "t", "--sentences", "9"), "--sentences"),
        Arguments.of(List.of("word-count", "--bootstrap", "h:1", "--topic", "t", "--seed", "9"), "--seed"),
        Arguments.of(List.of("word-count", "--bootstrap", "h:1", "--shows-topic", "t"), "--shows-topic"),
        Arguments.of(List.of("banner-counters", "--bootstrap", "h:1", "--shows-topic", "s"), "--clicks-topic"),
        Arguments.of(List.of("banner-counters", "--bootstrap", "h:1", "--topic", "s"), "--topic"),
        Arguments.of(List.of("banner-counters", "--bootstrap", "h:1", "--shows-topic", "s", "--clicks-topic", "s"),
            "--clicks-topic"),
        Arguments.of(List.of("banner-counters", "--bootstrap", "h:1", "--shows-topic", "s", "--clicks-topic", "c",
            "--kafka-kind", "opaque", "--store", "memory-maps"), "--kafka-kind"),
        Arguments.of(List.of("produce", "word-count", "--topic", "t"), "--bootstrap"),
        Arguments.of(List.of("produce", "word-count", "--bootstrap", "h:1"), "--topic"),
        Arguments.of(List.of("produce", "banner-counters", "--bootstrap", "h:1", "--shows-topic", "s"),
            "--clicks-topic"),
        Arguments.of(List.of("produce", "word-count", "--bootstrap", "h:1", "--topic", "t", "--topic-partitions",
            "0"), "--topic-partitions"),
        Arguments.of(List.of("produce", "sentences"), "produce"));
  }

  @ParameterizedTest
  @MethodSource("badInputs")
  void aBadKafkaOptionIsOneLineNamingItExitTwoAndCreatesNothing(List<String> args, String named) {
    List<String> all = new ArrayList<>(args);
    if (!args.get(0).equals("produce") && !args.contains("memory-maps")) {
      all.addAll(List.of("--state-dir", state()));
    }
    MainTest.Result r = MainTest.cli(all.toArray(String[]::new));
    assertEquals(Main.USAGE, r.code(), r::toString);
    assertEquals(1, r.errLines().size(), r::err);
    assertTrue(r.err().contains(named), () -> "names " + named + ": " + r.err());
    assertEquals("", r.out());
    assertFalse(Files.exists(Path.of(state())), "nothing created");
  }

  @Test
  void aTopicThatDoesNotExistIsExitTwoNamingItsOptionAndNothingIsCreatedOnTheBrokerOrOnDisk() throws Exception {
    String shows = newTopic("shows");
    createTopic(shows, 2);
    String missing = newTopic("never-created");
    MainTest.Result r = MainTest.cli("banner-counters", "--bootstrap", bootstrap, "--shows-topic", shows,
        "--clicks-topic", missing, "--state-dir", state());
    assertEquals(Main.USAGE, r.code(), r::toString);
    assertEquals(1, r.errLines().size(), r::err);
    assertTrue(r.err().contains("--clicks-topic") && r.err().contains(missing) && r.err().contains("produce"),
        r::err);
    assertFalse(Files.exists(Path.of(state())), "nothing created");
    try (Admin admin = admin()) {
      assertFalse(admin.listTopics().names().get(30, TimeUnit.SECONDS).contains(missing), "the topic is not created");
    }
  }

  @Test
  void anUnreachableBrokerIsExitThreeWithOneLineNamingItAndNothingIsCreated() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort(); // nothing listens there once closed
    }
    String address = "localhost:" + port;
    for (String[] args : List.of(
        new String[] {"word-count", "--bootstrap", address, "--topic", "t", "--state-dir", state()},
        new String[] {"banner-counters", "--bootstrap", address, "--shows-topic", "s", "--clicks-topic", "c",
            "--state-dir", state()},
        new String[] {"produce", "word-count", "--bootstrap", address, "--topic", "t", "--sentences", "10"})) {
      MainTest.Result r = MainTest.cli(args);
      assertEquals(Main.FAILED, r.code(), r::toString);
      assertEquals(1, r.errLines().size(), r::err);
      assertTrue(r.err().startsWith("error: ") && r.err().contains(address), r::err);
      assertFalse(r.err().contains("\tat "), r::err);
      assertFalse(Files.exists(Path.of(state())), "nothing created");
    }
  }

  private static Admin admin() {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    return Admin.create(p);
  }

  private static void createTopic(String topic, int partitions) throws Exception {
    try (Admin admin = admin()) {
      admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get(60, TimeUnit.SECONDS);
    }
  }

  private static KafkaProducer<String, String> producer() {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
    return new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
  }
}
