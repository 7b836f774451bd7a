package io.epochal.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.spouts.kafka.TestBroker;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code produce ad-join} and {@code ad-join} end to end against a real in-process Kafka broker (spouts-kafka's
 * {@link TestBroker}), without kills: the output topic, read back read_committed, equals the batch recomputation of
 * the generated input (every show once, late clicks counted, every state cell deleted); a rerun publishes nothing
 * again; a duplicated output record is found (exit code 1); bad command lines are exit code 2.
 */
class AdJoinKafkaTest {
  @RegisterExtension
  static final TestBroker.Use BROKER = new TestBroker.Use();
  private static final int SHOWS = 1500;
  /** 10 s between shows (15 s on average): shows are emitted from the 4th batch on, while later ones arrive. */
  private static final long GAP = 10_000;

  /** {@link AdJoinInput.Mix#DEFAULT} with another gap between shows, as {@code produce --show-gap-ms} makes it. */
  static AdJoinInput.Mix mix(long gapMillis) {
    AdJoinInput.Mix m = AdJoinInput.Mix.DEFAULT;
    return new AdJoinInput.Mix(gapMillis, m.clicked(), m.late(), m.factors(), m.lateFactors(), m.orphan());
  }

  @TempDir
  Path tmp;

  record Result(int code, String out, String err) {
  }

  static Result cli(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = Main.execute(args, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  /** Topics shows, clicks, factors, out (new names), filled by {@code produce ad-join}. */
  static List<String> produce(String bootstrap, int shows, long seed, int partitions, long gapMillis) {
    String n = TestBroker.newTopic("adj");
    List<String> topics = List.of(n + "-shows", n + "-clicks", n + "-factors", n + "-out");
    Result r = cli("produce", "ad-join", "--bootstrap", bootstrap, "--shows-topic", topics.get(0), "--clicks-topic",
        topics.get(1), "--factors-topic", topics.get(2), "--out-topic", topics.get(3), "--shows",
        Integer.toString(shows), "--seed", Long.toString(seed), "--topic-partitions", Integer.toString(partitions),
        "--show-gap-ms", Long.toString(gapMillis));
    assertEquals(0, r.code(), r.err());
    return topics;
  }

  static List<String> joinArgs(String bootstrap, List<String> topics, String... more) {
    List<String> args = new ArrayList<>(List.of("ad-join", "--bootstrap", bootstrap, "--shows-topic", topics.get(0),
        "--clicks-topic", topics.get(1), "--factors-topic", topics.get(2), "--out-topic", topics.get(3)));
    args.addAll(List.of(more));
    return args;
  }

  /** The published outputs, one per show id (a duplicate fails). */
  static Map<String, String> published(String bootstrap, String topic) {
    Map<String, String> out = new TreeMap<>();
    AdJoin.readTopic(bootstrap, topic).forEach((id, lines) -> {
      assertEquals(1, lines.size(), () -> "show " + id + " published " + lines);
      out.put(id, lines.get(0));
    });
    return out;
  }

  @ParameterizedTest
  @CsvSource({"rocksdb, transactional, 2", "memory, opaque, 3"})
  void theOutputTopicEqualsTheBatchRecomputationOfTheGeneratedInput(String store, String kind, int partitions) {
    String bootstrap = BROKER.get().bootstrap();
    List<String> topics = produce(bootstrap, SHOWS, 7, 3, GAP);
    List<String> args = joinArgs(bootstrap, topics, "--store", store, "--kafka-kind", kind, "--batch-size", "100",
        "--partitions", Integer.toString(partitions));
    if (store.equals("rocksdb")) {
      args.addAll(List.of("--state-dir", tmp.resolve("state").toString()));
    }
    Result r = cli(args.toArray(String[]::new));
    assertEquals(0, r.code(), r.out() + r.err());
    assertTrue(r.out().contains("output verified"), r.out());
    assertTrue(r.out().contains(", due: 0"), r.out()); // cells emitted in the last batch wait for their TTL
    // the batch recomputation of the generated input itself, not of what was read back
    AdJoinLogic.Expected expected = AdJoinLogic.recompute(AdJoinInput.generate(7, SHOWS, new int[] {3, 3, 3}, mix(GAP)));
    assertEquals(SHOWS, expected.outputs().size());
    assertTrue(expected.counts().get(AdJoinLogic.LATE_CLICKS) > 0, expected.counts().toString());
    assertTrue(expected.counts().get(AdJoinLogic.UNMATCHED_CLICKS) > 0, expected.counts().toString());
    assertTrue(expected.outputs().values().stream().anyMatch(l -> l.contains("clicked=true")));
    assertEquals(expected.outputs(), published(bootstrap, topics.get(3)));
    assertTrue(r.out().contains("counts: " + expected.counts()), r.out());
    if (store.equals("rocksdb")) {
      Result again = cli(args.toArray(String[]::new));
      assertEquals(0, again.code(), again.out() + again.err());
      assertTrue(again.out().contains("committed 0 batches"), again.out());
      assertEquals(expected.outputs(), published(bootstrap, topics.get(3)));
    }
  }

  @Test
  void aDuplicatedOrChangedOutputIsAMismatch() throws Exception {
    String bootstrap = BROKER.get().bootstrap();
    List<String> topics = produce(bootstrap, 200, 11, 2, AdJoinInput.Mix.DEFAULT.gapMillis());
    List<String> args = joinArgs(bootstrap, topics, "--store", "rocksdb", "--state-dir",
        tmp.resolve("s").toString());
    assertEquals(0, cli(args.toArray(String[]::new)).code());
    Map<String, String> published = published(bootstrap, topics.get(3));
    String id = published.keySet().iterator().next();
    try (KafkaProducer<String, String> p = BROKER.get().producer()) {
      p.send(new ProducerRecord<>(topics.get(3), id, published.get(id))).get();
      p.send(new ProducerRecord<>(topics.get(3), "s999999", "show=1 clicked=false click=- clicks=0 factors=-")).get();
    }
    Result r = cli(args.toArray(String[]::new));
    assertEquals(1, r.code(), r.out() + r.err());
    assertTrue(r.out().contains("MISMATCH show " + id + " published 2 times"), r.out());
    assertTrue(r.out().contains("MISMATCH show s999999 published but not expected"), r.out());
  }

  @Test
  void badCommandLinesAreExitCode2NamingTheOption() {
    String b = BROKER.get().bootstrap();
    Result noOut = cli("ad-join", "--bootstrap", b, "--shows-topic", "a", "--clicks-topic", "b", "--factors-topic",
        "c");
    assertEquals(2, noOut.code());
    assertTrue(noOut.err().contains("--out-topic"), noOut.err());
    Result same = cli("ad-join", "--bootstrap", b, "--shows-topic", "a", "--clicks-topic", "b", "--factors-topic",
        "c", "--out-topic", "a");
    assertEquals(2, same.code());
    assertTrue(same.err().contains("--out-topic: 'a' is also the --shows-topic"), same.err());
    Result maps = cli("ad-join", "--bootstrap", b, "--shows-topic", "a", "--clicks-topic", "b", "--factors-topic",
        "c", "--out-topic", "d", "--store", "memory-maps");
    assertEquals(2, maps.code());
    assertTrue(maps.err().contains("--store memory-maps"), maps.err());
    Result noKafka = cli("ad-join", "--store", "memory");
    assertEquals(2, noKafka.code());
    assertTrue(noKafka.err().contains("--bootstrap"), noKafka.err());
    Result missing = cli("ad-join", "--bootstrap", b, "--shows-topic", "nope-1", "--clicks-topic", "nope-2",
        "--factors-topic", "nope-3", "--out-topic", "nope-4", "--store", "memory");
    assertEquals(2, missing.code());
    assertTrue(missing.err().contains("--shows-topic: topic 'nope-1' does not exist"), missing.err());
  }
}
