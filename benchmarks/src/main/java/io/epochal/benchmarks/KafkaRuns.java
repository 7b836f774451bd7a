package io.epochal.benchmarks;

import io.epochal.codec.Codecs;
import io.epochal.pipeline.Aggregators;
import io.epochal.pipeline.BatchReport;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.PipelineListener;
import io.epochal.spout.Spout;
import io.epochal.spouts.kafka.KafkaRecord;
import io.epochal.spouts.kafka.KafkaSpoutConfig;
import io.epochal.spouts.kafka.KafkaSpouts;
import io.epochal.state.InMemoryBackingMap;
import io.epochal.state.MapState;
import io.epochal.state.StateFactory;
import io.epochal.state.opaque.OpaqueTableLayout;
import io.epochal.state.transactional.TransactionalMap;
import io.epochal.state.transactional.TransactionalTableLayout;
import io.epochal.state.transactional.TransactionalValue;
import io.epochal.store.CheckpointStore;
import io.epochal.store.rocksdb.RocksDbTableStore;
import io.epochal.store.table.KeyCodec;
import io.epochal.store.table.TableCheckpointStore;
import io.epochal.store.table.TableStates;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * The Kafka variants: the word count of the harness' topic (the corpus, one line per record value), every record
 * read {@code read_committed} and deserialized with Kafka's {@link StringDeserializer}:
 * <ul>
 *   <li>{@code kafka-plain}: one thread, one {@link KafkaConsumer} assigned to every partition from the start, a
 *       poll loop splitting each value and counting in a {@link HashMap} of mutable counters until every partition
 *       reached its end offset. No batches, no fault tolerance, nothing durable;</li>
 *   <li>{@code epochal-kafka-tx} / {@code epochal-kafka-opaque}: Epochal's Kafka spout (transactional or opaque),
 *       {@code flatMap(split) → groupBy(word) → persistentAggregate(count)} exactly-once on
 *       {@link RocksDbTableStore} (epoch protocol: every dirty row, the batch's offset ranges and the txid in one
 *       RocksDB write batch), {@code TransactionalMap} or {@code OpaqueMap} rows; batches of {@code batch} records
 *       ({@code batch / topicPartitions} per Kafka partition);</li>
 *   <li>{@code epochal-kafka-mem-tx}: the transactional spout into {@code epochal-mem-tx}'s state (a
 *       {@code TransactionalMap} over an {@code InMemoryBackingMap}, per-key protocol): what the spout and the engine
 *       cost without the RocksDB store.</li>
 * </ul>
 * Both timed sections start before the first client is created and end after the last record is counted
 * (Epochal: committed).
 */
public final class KafkaRuns {
  private KafkaRuns() {
  }

  /**
   * Variant {@code kafka-plain}: one {@code read_committed} KafkaConsumer assigned every partition, polled from the
   * beginning to the end offsets read at the start, counting into a HashMap; the poll count goes to the extra
   * property {@code polls}.
   *
   * @param ctx the run: {@code kafka=}, {@code topic=}, {@code topicPartitions=}, {@code batch=} and the meter
   * @return the count of every word of the topic
   */
  public static Map<String, Long> plain(RunContext ctx) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, ctx.kafkaBootstrap());
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, Integer.toString(maxPollRecords(ctx)));
    ctx.meter().start();
    HashMap<String, long[]> counts = new HashMap<>(1 << 18);
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p, new StringDeserializer(),
        new StringDeserializer())) {
      List<TopicPartition> tps = new ArrayList<>();
      consumer.partitionsFor(ctx.topic(), Duration.ofSeconds(30))
          .forEach(i -> tps.add(new TopicPartition(i.topic(), i.partition())));
      consumer.assign(tps);
      consumer.seekToBeginning(tps);
      Map<TopicPartition, Long> end = consumer.endOffsets(tps, Duration.ofSeconds(30));
      List<TopicPartition> open = new ArrayList<>(tps);
      long polls = 0;
      while (!open.isEmpty()) {
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(100))) {
          for (String word : r.value().split(" ")) {
            long[] c = counts.get(word);
            if (c == null) {
              counts.put(word, new long[] {1});
            } else {
              c[0]++;
            }
          }
        }
        polls++;
        open.removeIf(tp -> consumer.position(tp) >= end.get(tp));
      }
      ctx.meter().stop();
      ctx.extra().setProperty("polls", Long.toString(polls));
    }
    Map<String, Long> out = new HashMap<>(counts.size() * 2);
    counts.forEach((w, c) -> out.put(w, c[0]));
    return out;
  }

  /** The plain loop's {@code max.poll.records}: the spout's own choice for its cap (at most 10,000). */
  private static int maxPollRecords(RunContext ctx) {
    return Math.min(10_000, perPartition(ctx));
  }

  private static int perPartition(RunContext ctx) {
    return Math.max(1, ctx.batch() / ctx.topicPartitions());
  }

  /**
   * Variant {@code epochal-kafka-tx}: the Kafka transactional spout into a RocksDB TransactionalMap.
   *
   * @param ctx the run: {@code kafka=}, {@code topic=}, {@code topicPartitions=}, {@code batch=}, {@code threads=},
   *     {@code partitions=}, {@code inflight=}, the work directory and the meter
   * @return the committed counts, read back from the state after the timed section
   */
  public static Map<String, Long> transactional(RunContext ctx) {
    return epochal(ctx, false);
  }

  /**
   * Variant {@code epochal-kafka-opaque}: the Kafka opaque spout into a RocksDB OpaqueMap.
   *
   * @param ctx the run: {@code kafka=}, {@code topic=}, {@code topicPartitions=}, {@code batch=}, {@code threads=},
   *     {@code partitions=}, {@code inflight=}, the work directory and the meter
   * @return the committed counts, read back from the state after the timed section
   */
  public static Map<String, Long> opaque(RunContext ctx) {
    return epochal(ctx, true);
  }

  /**
   * Variant {@code epochal-kafka-mem-tx}: the Kafka transactional spout into an in-memory TransactionalMap, the spout's share of the cost.
   *
   * @param ctx the run: {@code kafka=}, {@code topic=}, {@code topicPartitions=}, {@code batch=}, {@code threads=},
   *     {@code partitions=}, {@code inflight=} and the meter
   * @return the committed counts, read back from the state after the timed section
   */
  public static Map<String, Long> memory(RunContext ctx) {
    InMemoryBackingMap<String, TransactionalValue<Long>> store = new InMemoryBackingMap<>("counts");
    run(ctx, spout(ctx, false), TransactionalMap.factory(store), null);
    Map<String, Long> out = new HashMap<>();
    store.snapshot().forEach((w, cell) -> out.put(w, cell.value()));
    return out;
  }

  private static Spout<KafkaRecord<String, String>, ?> spout(RunContext ctx, boolean opaque) {
    KafkaSpoutConfig<String, String> config = KafkaSpoutConfig.strings("corpus").bootstrapServers(ctx.kafkaBootstrap())
        .topics(ctx.topic()).maxRecordsPerPartition(perPartition(ctx)).build();
    return opaque ? KafkaSpouts.opaque(config) : KafkaSpouts.transactional(config);
  }

  private static Map<String, Long> epochal(RunContext ctx, boolean opaque) {
    try (RocksDbTableStore store = RocksDbTableStore.builder(ctx.work().resolve("rocksdb")).build()) {
      TableCheckpointStore checkpoints = TableCheckpointStore.on(store);
      TableStates.Builder<String, Long> states =
          TableStates.builder(KeyCodec.strings("word"), Codecs.longs());
      run(ctx, spout(ctx, opaque), opaque ? OpaqueTableLayout.factory(states)
          : TransactionalTableLayout.factory(states), checkpoints);
      return EpochalRuns.scan(store, EpochalRuns.PIPELINE + "/" + EpochalRuns.STATE);
    }
  }

  private static void run(RunContext ctx, Spout<KafkaRecord<String, String>, ?> spout,
      StateFactory<? extends MapState<String, Long>> counts, CheckpointStore checkpoints) {
    List<Long> commitNanos = new ArrayList<>();
    PipelineBuilder b = Pipeline.newBuilder(EpochalRuns.PIPELINE).partitions(ctx.partitions())
        .threads(ctx.threads()).maxBatchesInFlight(ctx.inFlight())
        .listener(new PipelineListener() {
          @Override
          public void onBatchCommitted(BatchReport report) {
            commitNanos.add(report.commitNanos());
          }
        });
    if (checkpoints != null) {
      b.checkpointStore(checkpoints);
    }
    b.source(spout)
        .flatMap(r -> Arrays.asList(r.value().orElseThrow().split(" ")))
        .groupBy(w -> w)
        .persistentAggregate(EpochalRuns.STATE, counts, Aggregators.count());
    try (Pipeline pipeline = b.build()) {
      ctx.meter().start();
      pipeline.runUntilIdle();
      ctx.meter().stop();
    }
    EpochalRuns.recordCommits(ctx, commitNanos);
  }
}
