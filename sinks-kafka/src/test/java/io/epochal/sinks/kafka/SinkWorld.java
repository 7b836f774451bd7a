package io.epochal.sinks.kafka;

import io.epochal.spouts.kafka.TestBroker;
import io.epochal.codec.Codecs;
import io.epochal.pipeline.Aggregators;
import io.epochal.pipeline.KeyValue;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.sink.Sink;
import io.epochal.spout.Spout;
import io.epochal.spouts.GeneratedSpout;
import io.epochal.state.transactional.TransactionalTableLayout;
import io.epochal.store.CheckpointStore;
import io.epochal.store.table.BackingMapLayer;
import io.epochal.store.table.KeyCodec;
import io.epochal.store.table.TableCheckpointStore;
import io.epochal.store.table.TableStates;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.LongFunction;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The pipeline of the sink tests: generated sentences (a transactional spout: a replay re-emits exactly the same
 * batch) split into words, counted into a TransactionalMap table, and every batch's new counts ({@code word=count})
 * sent to the sink. Its outputs are a pure function of (seed, sentences, batch size): batch {@code t} holds sentences
 * {@code [(t-1)B, tB)} and emits, for each word it contains, the running count after it. {@link #expected} computes
 * them with a plain loop, by txid; {@link #published} reads what a read_committed consumer sees on the topic.
 */
final class SinkWorld {
  static final String SINK = "counts-out";

  private SinkWorld() {
  }

  static GeneratedSpout<String> spout(long seed, long sentences, int batch) {
    return GeneratedSpout.sentences("sentences", seed, sentences, batch);
  }

  static KafkaSinkConfig.Builder<KeyValue<String, Long>> config(String bootstrap, String topic, String prefix) {
    return KafkaSinkConfig.<KeyValue<String, Long>>strings(KeyValue::key, kv -> String.valueOf(kv.value()))
        .bootstrapServers(bootstrap).topic(topic).transactionalIdPrefix(prefix).apiTimeout(Duration.ofSeconds(10))
        .publishTimeout(Duration.ofSeconds(60));
  }

  /**
   * The word count over {@code spout} on {@code tables} (whose store must keep the outbox), publishing to
   * {@code sink}; {@code checkpoints} is what the pipeline commits through (the table store itself, or a fault
   * injector's wrapper of it).
   */
  static Pipeline pipeline(String name, Spout<String, ?> spout, TableCheckpointStore tables,
      CheckpointStore checkpoints, BackingMapLayer layer, Sink<KeyValue<String, Long>> sink,
      Consumer<PipelineBuilder> tweak) {
    PipelineBuilder b = Pipeline.newBuilder(name).checkpointStore(checkpoints);
    tweak.accept(b);
    TableStates.Builder<String, Long> states = TableStates.builder(KeyCodec.strings("word"), Codecs.longs());
    b.source(spout).flatMap(s -> Arrays.asList(s.split(" "))).groupBy(w -> w)
        .persistentAggregate("counts", TransactionalTableLayout.factory(layer == null ? states : states.layer(layer)),
            Aggregators.count())
        .newValuesStream().to(SINK, sink);
    return b.build();
  }

  /** The outputs of each txid, in txid order: {@code word=count} after that batch, sorted within a batch. */
  static Map<Long, List<String>> expected(long seed, long sentences, int batch) {
    LongFunction<String> gen = GeneratedSpout.sentences(seed);
    Map<String, Long> counts = new HashMap<>();
    Map<Long, List<String>> out = new LinkedHashMap<>();
    long txid = 0;
    for (long start = 0; start < sentences; start += batch) {
      txid++;
      TreeMap<String, Long> touched = new TreeMap<>();
      for (long i = start; i < Math.min(sentences, start + batch); i++) {
        for (String w : gen.apply(i).split(" ")) {
          touched.put(w, counts.merge(w, 1L, Long::sum));
        }
      }
      List<String> outputs = new ArrayList<>();
      touched.forEach((w, c) -> outputs.add(w + "=" + c));
      out.put(txid, outputs);
    }
    return out;
  }

  /** Every expected output of every txid, sorted. */
  static List<String> all(Map<Long, List<String>> expected) {
    return sorted(expected.values().stream().flatMap(List::stream).toList());
  }

  /** The outputs of txids {@code <= upTo}, sorted. */
  static List<String> upTo(Map<Long, List<String>> expected, long upTo) {
    return sorted(expected.entrySet().stream().filter(e -> e.getKey() <= upTo).flatMap(e -> e.getValue().stream())
        .toList());
  }

  /** What a read_committed consumer reads from {@code topic}, as {@code key=value}, sorted. */
  static List<String> published(TestBroker broker, String topic) throws InterruptedException {
    broker.awaitTransactionsSettled(topic);
    return visible(broker, topic);
  }

  /**
   * What a read_committed consumer reads from {@code topic} now (up to each partition's last stable offset: a
   * killed producer's open transaction hides what follows it until the next producer of its id aborts it), sorted.
   */
  static List<String> visible(TestBroker broker, String topic) {
    List<String> out = new ArrayList<>();
    for (List<ConsumerRecord<String, String>> rs : broker.readAll(topic).values()) {
      for (ConsumerRecord<String, String> r : rs) {
        out.add(r.key() + "=" + r.value());
      }
    }
    return sorted(out);
  }

  /** Fails, with the differences only, unless {@code actual} holds exactly the records of {@code expected}. */
  static void assertExactlyOnce(List<String> expected, List<String> actual, String context) {
    if (!expected.equals(actual)) {
      throw new AssertionError(context + ": " + diff(expected, actual));
    }
  }

  /** The records of {@code actual} that {@code expected} does not hold, and those it holds more often, for messages. */
  static String diff(List<String> expected, List<String> actual) {
    Map<String, Integer> surplus = new TreeMap<>();
    actual.forEach(a -> surplus.merge(a, 1, Integer::sum));
    expected.forEach(e -> surplus.merge(e, -1, Integer::sum));
    Map<String, Integer> dup = new TreeMap<>();
    Map<String, Integer> lost = new TreeMap<>();
    surplus.forEach((k, v) -> {
      if (v > 0) {
        dup.put(k, v);
      } else if (v < 0) {
        lost.put(k, -v);
      }
    });
    return "duplicated/unexpected " + first(dup) + ", lost " + first(lost) + " (" + expected.size() + " expected, "
        + actual.size() + " read)";
  }

  private static String first(Map<String, Integer> m) {
    return m.size() + " " + m.entrySet().stream().limit(10).toList();
  }

  private static List<String> sorted(List<String> in) {
    List<String> out = new ArrayList<>(in);
    Collections.sort(out);
    return out;
  }
}
