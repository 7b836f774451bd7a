package io.epochal.examples;

import io.epochal.errors.EpochalException;
import io.epochal.spout.PartitionedMetadata;
import io.epochal.spout.Spout;
import io.epochal.spouts.kafka.KafkaHeader;
import io.epochal.spouts.kafka.KafkaRecord;
import io.epochal.spouts.kafka.KafkaSpoutConfig;
import io.epochal.spouts.kafka.KafkaSpouts;
import io.epochal.spouts.kafka.OffsetRange;
import io.epochal.store.Checkpoint;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * The examples' Kafka input ({@code --bootstrap HOST:PORT} with the topic options): the spouts over the topics
 * (UTF-8 string keys and values, {@code read_committed}), the end offsets read at the start (the stop condition of
 * {@code --until end}), and the verification's read-back: every record below the committed offsets of the
 * pipeline's checkpoint, read by a plain {@code read_committed} consumer with the same deserializer.
 *
 * <p>{@link #open} contacts the broker before any store is opened: an unreachable broker is an
 * {@link Unavailable} after {@value #PROBES} attempts of {@code TIMEOUT} each (exit code 3), a missing topic a usage
 * error naming its option (exit code 2); nothing is created in both cases. Not thread-safe (one consumer).
 */
final class KafkaInput implements AutoCloseable {
  /** The bound of every client call of the spouts and of this class, and of one probe. */
  static final Duration TIMEOUT = Duration.ofSeconds(10);
  static final int PROBES = 3;
  private static final Duration PROBE = Duration.ofSeconds(3);

  /**
   * What the command line says about the Kafka input.
   *
   * @param bootstrap {@code HOST:PORT[,HOST:PORT...]}
   * @param topics the topics, in the order of {@code topicOptions}
   * @param topicOptions the options that named them ({@code topic}; {@code shows-topic}, {@code clicks-topic})
   * @param until {@code end}: stop once every partition reached its end offset read at the start; {@code idle}:
   *     at the first batch that finds nothing new; {@code stop}: keep reading new records until SIGTERM or Ctrl-C
   * @param outTopic the output topic ({@code ad-join}'s {@code --out-topic}), empty for the counting examples
   */
  record Settings(String bootstrap, List<String> topics, List<String> topicOptions, String until,
      Optional<String> outTopic) {
  }

  /** The broker did not answer: the run stops before it began (exit code 3). */
  static final class Unavailable extends EpochalException {
    private static final long serialVersionUID = 1L;

    Unavailable(String message, Throwable cause) {
      super(message, cause, true, io.epochal.errors.ErrorContext.NONE);
    }
  }

  private final Settings settings;
  /** Called with every spout made ({@code --metrics-port} binds its lag gauges); does nothing unless set. */
  private java.util.function.Consumer<Spout<?, ?>> onSpout = s -> { };
  private final KafkaConsumer<String, String> consumer;
  private final List<TopicPartition> partitions;
  private final Map<TopicPartition, Long> starts;
  private final Map<TopicPartition, Long> ends;

  private KafkaInput(Settings settings, KafkaConsumer<String, String> consumer, List<TopicPartition> partitions,
      Map<TopicPartition, Long> starts, Map<TopicPartition, Long> ends) {
    this.settings = settings;
    this.consumer = consumer;
    this.partitions = partitions;
    this.starts = starts;
    this.ends = ends;
  }

  /**
   * Contacts the broker: lists the topics (up to {@value #PROBES} attempts), checks that every topic exists, and reads
   * every partition's log start and end offset ({@code read_committed}: the last stable offset).
   *
   * @throws Unavailable if the broker does not answer
   * @throws Main.UsageException naming the option of a topic that does not exist
   */
  static KafkaInput open(Settings settings) {
    KafkaConsumer<String, String> consumer = consumer(settings.bootstrap());
    try {
      Map<String, List<PartitionInfo>> listed = null;
      KafkaException last = null;
      for (int attempt = 1; attempt <= PROBES && listed == null; attempt++) {
        try {
          listed = consumer.listTopics(PROBE);
        } catch (org.apache.kafka.common.errors.TimeoutException e) {
          last = e;
        }
      }
      if (listed == null) {
        throw new Unavailable("Kafka at " + settings.bootstrap() + " did not answer (" + PROBES + " attempts of "
            + PROBE.toSeconds() + " s each): is a broker running there? Nothing was created", last);
      }
      List<TopicPartition> partitions = new ArrayList<>();
      for (int i = 0; i < settings.topics().size(); i++) {
        String topic = settings.topics().get(i);
        List<PartitionInfo> infos = listed.get(topic);
        if (infos == null || infos.isEmpty()) {
          throw new Main.UsageException("--" + settings.topicOptions().get(i) + ": topic '" + topic
              + "' does not exist at " + settings.bootstrap() + " (topics there: "
              + String.join(", ", new TreeMap<>(listed).keySet()) + "); `produce` creates and fills it");
        }
        infos.forEach(p -> partitions.add(new TopicPartition(p.topic(), p.partition())));
      }
      Map<TopicPartition, Long> starts = consumer.beginningOffsets(partitions, TIMEOUT);
      Map<TopicPartition, Long> ends = consumer.endOffsets(partitions, TIMEOUT);
      return new KafkaInput(settings, consumer, List.copyOf(partitions), starts, ends);
    } catch (RuntimeException e) {
      consumer.close(CloseOptions.timeout(Duration.ZERO));
      if (e instanceof KafkaException k) {
        throw new Unavailable("Kafka at " + settings.bootstrap() + " failed: " + k, k);
      }
      throw e;
    }
  }

  /** A plain consumer of UTF-8 strings, {@code read_committed}, without a group. */
  static KafkaConsumer<String, String> consumer(String bootstrap) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.CLIENT_ID_CONFIG, "epochal-examples-verifier");
    p.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, Long.toString(TIMEOUT.toMillis()));
    p.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, Long.toString(PROBE.toMillis()));
    try {
      return new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer());
    } catch (KafkaException e) {
      throw new Unavailable("cannot create a Kafka consumer for " + bootstrap + ": " + e.getMessage(), e);
    }
  }

  Settings settings() {
    return settings;
  }

  /**
   * A spout over the topics.
   *
   * @param name the spout's name (the key of its offsets in the checkpoint)
   * @param kind {@code transactional} or {@code opaque}
   * @param maxRecordsPerPartition the most records of one Kafka partition in one batch
   */
  Spout<KafkaRecord<String, String>, ?> spout(String name, String kind, int maxRecordsPerPartition) {
    KafkaSpoutConfig<String, String> config = KafkaSpoutConfig.strings(name).bootstrapServers(settings.bootstrap())
        .topics(settings.topics()).maxRecordsPerPartition(maxRecordsPerPartition).apiTimeout(TIMEOUT).build();
    Spout<KafkaRecord<String, String>, ?> spout = kind.equals("opaque") ? KafkaSpouts.opaque(config)
        : KafkaSpouts.transactional(config);
    onSpout.accept(spout);
    return spout;
  }

  /** Calls {@code action} with every spout {@link #spout} makes from now on. */
  void onSpout(java.util.function.Consumer<Spout<?, ?>> action) {
    this.onSpout = java.util.Objects.requireNonNull(action, "action");
  }

  /** For the run header: the topics, their partitions and how many offsets they held at the start. */
  String describe() {
    long offsets = 0;
    for (TopicPartition tp : partitions) {
      offsets += ends.get(tp) - starts.get(tp);
    }
    return String.format("Kafka %s, topic%s %s (%d partitions, %,d offsets at the start, read_committed)",
        settings.bootstrap(), settings.topics().size() > 1 ? "s" : "", String.join(" and ", settings.topics()),
        partitions.size(), offsets);
  }

  /** The committed position of every partition in {@code checkpoint} ({@code to} of its last range). */
  static Map<TopicPartition, Long> committedOffsets(Checkpoint checkpoint) {
    Map<TopicPartition, Long> out = new HashMap<>();
    if (!checkpoint.hasCommitted()) {
      return out;
    }
    PartitionedMetadata<OffsetRange> meta = PartitionedMetadata.codec(OffsetRange.codec())
        .decode(checkpoint.committedMetadata());
    meta.partitions().forEach((name, range) -> {
      int dash = name.lastIndexOf('-');
      out.put(new TopicPartition(name.substring(0, dash), Integer.parseInt(name.substring(dash + 1))), range.to());
    });
    return out;
  }

  /** Whether every partition's committed position reached its end offset read at the start. */
  boolean reachedStartEnds(Checkpoint checkpoint) {
    Map<TopicPartition, Long> committed = committedOffsets(checkpoint);
    for (TopicPartition tp : partitions) {
      if (committed.getOrDefault(tp, starts.get(tp)) < ends.get(tp)) {
        return false;
      }
    }
    return true;
  }

  /**
   * Every record below the committed offsets of {@code checkpoint}, read again from the topics with a plain
   * {@code read_committed} consumer (aborted records are not returned, as the spouts never emit them).
   *
   * @throws Unavailable if the records cannot be read within a minute without progress
   */
  List<KafkaRecord<String, String>> committedRecords(Checkpoint checkpoint) {
    Map<TopicPartition, Long> to = committedOffsets(checkpoint);
    to.values().removeIf(offset -> offset == 0);
    List<KafkaRecord<String, String>> out = new ArrayList<>();
    if (to.isEmpty()) {
      return out;
    }
    try {
      consumer.assign(to.keySet());
      consumer.seekToBeginning(to.keySet());
      Set<TopicPartition> open = new java.util.HashSet<>(to.keySet());
      long lastProgress = System.nanoTime();
      while (!open.isEmpty()) {
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
          if (r.offset() < to.get(new TopicPartition(r.topic(), r.partition()))) {
            out.add(record(r));
          }
        }
        boolean progress = open.removeIf(tp -> consumer.position(tp, TIMEOUT) >= to.get(tp));
        if (progress) {
          lastProgress = System.nanoTime();
          consumer.pause(to.keySet().stream().filter(tp -> !open.contains(tp)).toList());
        } else if (System.nanoTime() - lastProgress > Duration.ofMinutes(1).toNanos()) {
          throw new Unavailable("cannot read back the committed records of " + open + " from "
              + settings.bootstrap() + " to verify the counts (no progress for a minute)", null);
        }
      }
      return out;
    } catch (KafkaException e) {
      throw new Unavailable("cannot read back the committed records from " + settings.bootstrap()
          + " to verify the counts: " + e, e);
    } finally {
      consumer.assign(List.of());
    }
  }

  private static KafkaRecord<String, String> record(ConsumerRecord<String, String> r) {
    List<KafkaHeader> headers = new ArrayList<>();
    for (Header h : r.headers()) {
      headers.add(new KafkaHeader(h.key(), h.value()));
    }
    return new KafkaRecord<>(r.topic(), r.partition(), r.offset(), r.timestamp(), r.timestampType(),
        Optional.ofNullable(r.key()), Optional.ofNullable(r.value()), headers);
  }

  @Override
  public void close() {
    consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
  }
}
