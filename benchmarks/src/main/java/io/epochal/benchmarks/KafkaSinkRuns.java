package io.epochal.benchmarks;

import io.epochal.codec.Codecs;
import io.epochal.pipeline.Aggregators;
import io.epochal.pipeline.BatchReport;
import io.epochal.pipeline.KeyValue;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.PipelineListener;
import io.epochal.sinks.kafka.KafkaSinkConfig;
import io.epochal.sinks.kafka.KafkaSinks;
import io.epochal.spouts.FileSpout;
import io.epochal.state.transactional.TransactionalTableLayout;
import io.epochal.store.rocksdb.RocksDbTableStore;
import io.epochal.store.table.KeyCodec;
import io.epochal.store.table.TableCheckpointStore;
import io.epochal.store.table.TableStates;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The Kafka sink variants: the word count of the corpus file in batches of {@code batch} lines, each batch's new
 * counts ({@code word → count after the batch}, key = word, value = the count as text) written to a fresh topic of
 * {@code topicPartitions} partitions:
 * <ul>
 *   <li>{@code kafka-sink-plain}: one thread reads the file, counts into a {@link HashMap} and, after each batch,
 *       sends the touched words' counts with one plain idempotent producer ({@code acks=all}), flushed at the end.
 *       At-least-once at best, nothing durable;</li>
 *   <li>{@code epochal-kafka-sink}: {@code epochal-rocksdb-tx}'s pipeline (transactional file spout, RocksDB
 *       TransactionalMap, epoch protocol) with {@code newValuesStream().to(KafkaSinks.exactlyOnce(..))}: each batch's
 *       outputs kept in the checkpoint's outbox, then one Kafka transaction per engine partition with its txid
 *       marker.</li>
 * </ul>
 * Both timed sections start before the first client is created and end once the last record is acknowledged
 * (plain: flushed; Epochal: the last batch committed and published). After it each run reads the topic back
 * ({@code read_committed}) and returns the last value of every word: the harness checks them against the recount,
 * and a word whose values do not strictly increase (a duplicate) fails the run.
 */
public final class KafkaSinkRuns {
  private KafkaSinkRuns() {
  }

  /**
   * Variant {@code kafka-sink-plain}: a HashMap word count sending each batch's new counts through one idempotent
   * producer ({@code acks=all}) to a topic of its own; the records sent go to the extra property
   * {@code sinkRecordsSent}.
   *
   * @param ctx the run: corpus, {@code kafka=}, {@code batch=} and the meter
   * @return the last value of every word read back from the topic
   * @throws IllegalStateException if a send failed, or a word's published values do not strictly increase
   */
  public static Map<String, Long> plain(RunContext ctx) {
    String topic = createTopic(ctx, "sink-plain");
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, ctx.kafkaBootstrap());
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
    long sent = 0;
    AtomicReference<Exception> failure = new AtomicReference<>();
    ctx.meter().start();
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(),
        new StringSerializer()); BufferedReader in = Files.newBufferedReader(ctx.corpus(), StandardCharsets.UTF_8)) {
      HashMap<String, long[]> counts = new HashMap<>(1 << 18);
      HashMap<String, long[]> touched = new HashMap<>();
      int lines = 0;
      for (String line = in.readLine(); ; line = in.readLine()) {
        if (line != null) {
          for (String w : line.split(" ")) {
            long[] c = counts.computeIfAbsent(w, k -> new long[1]);
            c[0]++;
            touched.put(w, c);
          }
          lines++;
        }
        if ((line == null || lines == ctx.batch()) && !touched.isEmpty()) {
          for (Map.Entry<String, long[]> e : touched.entrySet()) {
            producer.send(new ProducerRecord<>(topic, e.getKey(), Long.toString(e.getValue()[0])), (md, ex) -> {
              if (ex != null) {
                failure.compareAndSet(null, ex);
              }
            });
            sent++;
          }
          touched.clear();
          lines = 0;
        }
        if (line == null) {
          break;
        }
      }
      producer.flush();
      ctx.meter().stop();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (failure.get() != null) {
      throw new IllegalStateException("a send failed", failure.get());
    }
    ctx.extra().setProperty("sinkRecordsSent", Long.toString(sent));
    return readBack(ctx, topic);
  }

  /**
   * Variant {@code epochal-kafka-sink}: the RocksDB transactional word count with each batch's new counts published
   * by the exactly-once Kafka sink to a topic of its own.
   *
   * @param ctx the run: corpus, work directory, {@code kafka=}, {@code batch=}, {@code threads=},
   *     {@code partitions=}, {@code inflight=} and the meter
   * @return the last value of every word read back from the topic
   * @throws IllegalStateException if a word's published values do not strictly increase (a duplicate)
   */
  public static Map<String, Long> exactlyOnce(RunContext ctx) {
    String topic = createTopic(ctx, "sink-epochal");
    KafkaSinkConfig<KeyValue<String, Long>> cfg = KafkaSinkConfig.<KeyValue<String, Long>>strings(KeyValue::key,
        kv -> Long.toString(kv.value())).bootstrapServers(ctx.kafkaBootstrap()).topic(topic)
        .transactionalIdPrefix(topic).build();
    List<Long> commitNanos = new ArrayList<>();
    try (RocksDbTableStore store = RocksDbTableStore.builder(ctx.work().resolve("rocksdb")).build()) {
      TableCheckpointStore checkpoints = TableCheckpointStore.on(store);
      TableStates.Builder<String, Long> states =
          TableStates.builder(KeyCodec.strings("word"), Codecs.longs());
      PipelineBuilder b = Pipeline.newBuilder(EpochalRuns.PIPELINE).partitions(ctx.partitions())
          .threads(ctx.threads()).maxBatchesInFlight(ctx.inFlight()).checkpointStore(checkpoints)
          .listener(new PipelineListener() {
            @Override
            public void onBatchCommitted(BatchReport report) {
              commitNanos.add(report.commitNanos());
            }
          });
      b.source(FileSpout.transactional("corpus", List.of(ctx.corpus()), ctx.batch()))
          .flatMap(line -> Arrays.asList(line.split(" ")))
          .groupBy(w -> w)
          .persistentAggregate(EpochalRuns.STATE, TransactionalTableLayout.factory(states), Aggregators.count())
          .newValuesStream().to("counts-out", KafkaSinks.exactlyOnce(cfg));
      ctx.meter().start();
      try (Pipeline pipeline = b.build()) {
        pipeline.runUntilIdle();
      }
      ctx.meter().stop();
    }
    EpochalRuns.recordCommits(ctx, commitNanos);
    return readBack(ctx, topic);
  }

  private static String createTopic(RunContext ctx, String what) {
    String topic = what + "-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, ctx.kafkaBootstrap());
    try (Admin admin = Admin.create(p)) {
      admin.createTopics(List.of(new NewTopic(topic, ctx.topicPartitions(), (short) 1))).all()
          .get(60, TimeUnit.SECONDS);
      for (int i = 0; admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic)
          .partitions().stream().anyMatch(tp -> tp.leader() == null); i++) {
        if (i > 400) {
          throw new IllegalStateException("topic " + topic + " has no leaders");
        }
        Thread.sleep(50);
      }
    } catch (Exception e) {
      throw new IllegalStateException("cannot create topic " + topic, e);
    }
    return topic;
  }

  /**
   * Reads {@code topic} back ({@code read_committed}) after the timed section: the last value of each word, whose
   * values must strictly increase along its partition (a repeated or older value is a duplicate).
   */
  private static Map<String, Long> readBack(RunContext ctx, String topic) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, ctx.kafkaBootstrap());
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "10000");
    Map<String, Long> last = new HashMap<>();
    long records = 0;
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
    try (KafkaConsumer<String, String> c = new KafkaConsumer<>(p, new StringDeserializer(),
        new StringDeserializer())) {
      List<TopicPartition> tps = c.partitionsFor(topic, Duration.ofSeconds(30)).stream()
          .map(i -> new TopicPartition(topic, i.partition())).toList();
      c.assign(tps);
      c.seekToBeginning(tps);
      Map<TopicPartition, Long> end = c.endOffsets(tps, Duration.ofSeconds(30));
      while (tps.stream().anyMatch(tp -> c.position(tp) < end.get(tp))) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("cannot read " + topic + " back to " + end);
        }
        for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
          long v = Long.parseLong(r.value());
          Long before = last.put(r.key(), v);
          if (before != null && before >= v) {
            throw new IllegalStateException("word '" + r.key() + "' published " + v + " after " + before
                + " at " + r.topic() + "-" + r.partition() + "@" + r.offset() + ": a duplicate");
          }
          records++;
        }
      }
    }
    ctx.extra().setProperty("sinkRecordsRead", Long.toString(records));
    return last;
  }
}
