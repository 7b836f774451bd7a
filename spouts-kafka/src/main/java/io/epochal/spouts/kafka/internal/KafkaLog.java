package io.epochal.spouts.kafka.internal;

import io.epochal.spouts.kafka.KafkaOffsetOutOfRangeException;
import io.epochal.spouts.kafka.KafkaSpoutConfig;
import io.epochal.spouts.kafka.KafkaSpoutException;
import io.epochal.spouts.kafka.KafkaTopicNotFoundException;
import io.epochal.spouts.kafka.KafkaUnavailableException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The spout's view of its topics through one {@link KafkaConsumer} of raw bytes, manually assigned (no group
 * membership, no auto commit, no auto offset reset, no topic auto-creation): partition discovery, end offsets and log
 * starts per batch ("cycle"), and exact reads of offset ranges.
 *
 * <p><b>Reads</b> of offset ranges, the per-partition cursors and the read-ahead are {@link KafkaReads}'; every
 * call here first waits for a read-ahead in progress, so the consumer is used by one thread at a time.
 *
 * <p><b>Bounded.</b> Every blocking call has the API timeout; a read that makes no progress for the API timeout
 * fails. Failures become {@link KafkaSpoutException}s; after one the caller calls {@link #invalidate()}.
 *
 * <p>Not thread-safe: one thread at a time (the engine's coordinator).
 */
final class KafkaLog implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaLog.class);
  private static final Comparator<TopicPartition> ORDER =
      Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);

  private final KafkaSpoutConfig<?, ?> config;
  private final String spout;
  private final Duration apiTimeout;
  private final Map<String, Object> consumerProperties;
  private final KafkaReads reads;
  private Consumer<byte[], byte[]> consumer;
  private Admin admin;

  private List<TopicPartition> partitions = List.of();
  private boolean discoveryDue = true;
  private long discoveredAtNanos;

  private long cycle = -1;
  private Map<TopicPartition, Long> ends;
  /** Whether {@code ends} came from the read-ahead. */
  private boolean endsAhead;
  private final Map<TopicPartition, Long> starts = new HashMap<>();

  KafkaLog(KafkaSpoutConfig<?, ?> config) {
    this.config = config;
    this.spout = config.name();
    this.apiTimeout = config.apiTimeout();
    this.consumerProperties = consumerProperties(config);
    this.reads = new KafkaReads(this, config);
  }

  /** The properties of the spout's consumer (also given to the deserializers' {@code configure}). */
  static Map<String, Object> consumerProperties(KafkaSpoutConfig<?, ?> config) {
    Map<String, Object> p = new HashMap<>(config.properties());
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, config.isolationLevel().toString().toLowerCase(Locale.ROOT));
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
    p.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, "false");
    p.putIfAbsent(ConsumerConfig.CLIENT_ID_CONFIG, "epochal-" + config.name());
    p.putIfAbsent(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, Integer.toString(
        Math.min(config.maxRecordsPerPartition(), 10_000)));
    // The spout reads up to end offsets it already knows, so a broker holding a fetch open for new data only delays
    // the fetch of the next partition (one fetch per broker at a time).
    p.putIfAbsent(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "10");
    long api = config.apiTimeout().toMillis();
    p.putIfAbsent(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, Long.toString(api));
    p.putIfAbsent(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, Long.toString(Math.min(api, 30_000)));
    config.mirrorGroup().ifPresent(g -> p.put(ConsumerConfig.GROUP_ID_CONFIG, g));
    p.remove(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG);
    p.remove(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG);
    return p;
  }

  Map<String, Object> consumerProperties() {
    return consumerProperties;
  }

  Consumer<byte[], byte[]> consumer() {
    if (consumer == null) {
      try {
        consumer = new KafkaConsumer<>(consumerProperties, new ByteArrayDeserializer(), new ByteArrayDeserializer());
      } catch (KafkaException e) {
        throw new KafkaSpoutException("Kafka spout '" + spout + "': cannot create its consumer for "
            + config.bootstrapServers() + ": " + e.getMessage(), e, false, spout, null, -1, -1, 0);
      }
    }
    return consumer;
  }

  // ------------------------------------------------------------------------------------------------ cycles

  /**
   * Starts a call for batch {@code txid}. End offsets and log starts are fetched again when {@code fresh} (a
   * coordinator call: cutting a batch, asking whether one is ready) or for another txid, except the end offsets a
   * read-ahead read since the last call (see {@link #dropEndsReadAhead}); an emission right after the cut of the
   * same txid reuses them. A coordinator call is always fresh, since an idle spout is asked again about
   * the same txid until data arrives.
   */
  void beginCycle(long txid, boolean fresh) {
    reads.settle();
    if (fresh || txid != cycle) {
      cycle = txid;
      Map<TopicPartition, Long> ahead = reads.takeEnds();
      ends = ahead == null ? null : new HashMap<>(ahead);
      endsAhead = ahead != null;
      starts.clear();
    }
  }

  /**
   * Whether this cycle's end offsets are the ones the read-ahead read (a moment before the cycle began); if so they
   * are dropped, and read again when next needed. A spout that finds nothing new with them asks again, so that "nothing
   * new" is always said on end offsets read during the call.
   */
  boolean dropEndsReadAhead() {
    reads.settle();
    if (!endsAhead) {
      return false;
    }
    ends = null;
    endsAhead = false;
    return true;
  }

  /** After a failure: forget what may be stale (snapshots, partition list, cursors, the assignment). */
  void invalidate() {
    cycle = -1;
    ends = null;
    reads.settle();
    starts.clear();
    discoveryDue = true;
    reads.clear();
    if (consumer != null) {
      try {
        consumer.assign(List.of());
      } catch (RuntimeException e) {
        LOG.debug("Kafka spout '{}': clearing the assignment failed", spout, e);
      }
    }
  }

  // ------------------------------------------------------------------------------------------------ metadata

  /**
   * The partitions of every configured topic, sorted; listed again at the discovery interval. Listed by an admin
   * client: a consumer answers from its metadata cache, which would not see partitions added to a topic it reads.
   */
  List<TopicPartition> partitions(long txid) {
    reads.settle();
    long now = System.nanoTime();
    if (!discoveryDue && now - discoveredAtNanos < config.partitionDiscoveryInterval().toNanos()) {
      return partitions;
    }
    List<TopicPartition> found = new ArrayList<>();
    for (String topic : config.topics()) {
      Optional<List<Integer>> listed = describe(topic, apiTimeout, txid);
      if (listed.isEmpty()) {
        throw new KafkaTopicNotFoundException(spout, topic, txid, "the cluster's metadata does not list it");
      }
      for (int partition : listed.get()) {
        found.add(new TopicPartition(topic, partition));
      }
    }
    found.sort(ORDER);
    if (!found.equals(partitions) && !partitions.isEmpty()) {
      LOG.info("Kafka spout '{}': partitions changed from {} to {} (txid {})", spout, partitions.size(), found.size(),
          txid);
    }
    partitions = List.copyOf(found);
    discoveryDue = false;
    discoveredAtNanos = now;
    return partitions;
  }

  /** The partitions of {@code topic} from the cluster now; empty if it does not exist. */
  private Optional<List<Integer>> describe(String topic, Duration timeout, long txid) {
    try {
      TopicDescription d = admin().describeTopics(List.of(topic)).allTopicNames()
          .get(timeout.toMillis(), TimeUnit.MILLISECONDS).get(topic);
      List<Integer> out = new ArrayList<>();
      for (TopicPartitionInfo p : d.partitions()) {
        out.add(p.partition());
      }
      return out.isEmpty() ? Optional.empty() : Optional.of(out);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof UnknownTopicOrPartitionException) {
        return Optional.empty();
      }
      if (e.getCause() instanceof KafkaException k) {
        throw failure("listing the partitions of topic " + topic, new TopicPartition(topic, -1), txid, k, false);
      }
      throw new KafkaSpoutException("Kafka spout '" + spout + "': listing the partitions of topic " + topic
          + " failed: " + e.getCause(), e.getCause(), true, spout, topic, -1, -1, txid);
    } catch (java.util.concurrent.TimeoutException e) {
      throw new KafkaUnavailableException("Kafka spout '" + spout + "': listing the partitions of topic " + topic
          + " got no answer within " + timeout.toMillis() + " ms from " + config.bootstrapServers() + " (txid "
          + txid + ")", e, spout, topic, -1, txid);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new KafkaSpoutException("Kafka spout '" + spout + "': interrupted while listing the partitions of topic "
          + topic, e, false, spout, topic, -1, -1, txid);
    }
  }

  /** The properties of an admin client beside the consumer: those of the consumer it knows, client id + suffix. */
  static Map<String, Object> adminProperties(Map<String, Object> consumerProperties, String clientIdSuffix) {
    Map<String, Object> p = new HashMap<>();
    Set<String> known = AdminClientConfig.configNames();
    consumerProperties.forEach((k, v) -> {
      if (known.contains(k)) {
        p.put(k, v);
      }
    });
    p.put(AdminClientConfig.CLIENT_ID_CONFIG, consumerProperties.get(ConsumerConfig.CLIENT_ID_CONFIG) + clientIdSuffix);
    return p;
  }

  private Admin admin() {
    if (admin == null) {
      try {
        admin = Admin.create(adminProperties(consumerProperties, "-admin"));
      } catch (KafkaException e) {
        throw new KafkaSpoutException("Kafka spout '" + spout + "': cannot create its admin client for "
            + config.bootstrapServers() + ": " + e.getMessage(), e, false, spout, null, -1, -1, 0);
      }
    }
    return admin;
  }

  /** The end offset of {@code tp} in this cycle (the last stable offset under {@code read_committed}). */
  long end(TopicPartition tp, long txid) {
    reads.settle();
    if (ends == null || !ends.containsKey(tp)) {
      Set<TopicPartition> ask = new HashSet<>(partitions);
      ask.add(tp);
      Map<TopicPartition, Long> got;
      try {
        got = consumer().endOffsets(ask, apiTimeout);
      } catch (KafkaException e) {
        throw failure("reading the end offsets of " + ask.size() + " partition(s)", tp, txid, e, true);
      }
      ends = new HashMap<>(got);
    }
    Long end = ends.get(tp);
    if (end == null) {
      throw failure("reading the end offset of " + tp, tp, txid, new UnknownTopicOrPartitionException(
          "no end offset returned for " + tp), true);
    }
    return end;
  }

  /** The first offset of {@code tp}'s log in this cycle. */
  long logStart(TopicPartition tp, long txid) {
    reads.settle();
    Long start = starts.get(tp);
    if (start == null) {
      try {
        start = consumer().beginningOffsets(List.of(tp), apiTimeout).get(tp);
      } catch (KafkaException e) {
        throw failure("reading the log start of " + tp, tp, txid, e, true);
      }
      if (start == null) {
        throw failure("reading the log start of " + tp, tp, txid, new UnknownTopicOrPartitionException(
            "no beginning offset returned for " + tp), true);
      }
      starts.put(tp, start);
    }
    return start;
  }

  /** An out-of-range error for {@code offset}, with the log's start and end read again now. */
  KafkaOffsetOutOfRangeException outOfRange(TopicPartition tp, long offset, long txid, Throwable cause) {
    starts.remove(tp);
    if (ends != null) {
      ends.remove(tp);
    }
    return new KafkaOffsetOutOfRangeException(spout, tp.topic(), tp.partition(), offset, logStart(tp, txid),
        end(tp, txid), txid, cause);
  }

  // ------------------------------------------------------------------------------------------------ reads

  /** See {@link KafkaReads#read}. */
  Chunk read(TopicPartition tp, long from, long limit, int maxRecords, long maxBytes, long txid) {
    reads.settle();
    return reads.read(tp, from, limit, maxRecords, maxBytes, txid);
  }

  /**
   * Starts reading ahead, in the background, every partition read so far up to this cycle's end offsets (see
   * {@link KafkaReads#readAhead}); the next call of this log waits for it. Called after an emission, when the engine
   * turns to the batches' state phases.
   */
  void readAhead() {
    reads.settle();
    if (consumer != null && ends != null) {
      reads.readAhead(Map.copyOf(ends), partitions);
    }
  }

  /** Waits for a read-ahead in progress, if any (every other call does it first). */
  void awaitReadAhead() {
    reads.settle();
  }

  // ------------------------------------------------------------------------------------------------ mirror

  /** Commits {@code offsets} to the mirror group; failures are logged, never thrown. */
  void mirror(Map<TopicPartition, Long> offsets, long txid) {
    reads.settle();
    if (config.mirrorGroup().isEmpty() || offsets.isEmpty()) {
      return;
    }
    Map<TopicPartition, OffsetAndMetadata> commit = new HashMap<>();
    offsets.forEach((tp, o) -> commit.put(tp, new OffsetAndMetadata(o, "epochal txid " + txid)));
    try {
      consumer().commitSync(commit, apiTimeout);
    } catch (RuntimeException e) {
      LOG.warn("Kafka spout '{}': mirroring the offsets of committed txid {} to consumer group '{}' failed (the "
          + "checkpoint holds them; lag tools see older offsets until a later batch mirrors): {}", spout, txid,
          config.mirrorGroup().get(), e.toString());
    }
  }

  // ------------------------------------------------------------------------------------------------ errors

  /**
   * Maps a client failure to a typed one. A timeout (or an unknown partition) is diagnosed: a topic the cluster no
   * longer lists is {@link KafkaTopicNotFoundException}, otherwise {@link KafkaUnavailableException}.
   */
  KafkaSpoutException failure(String what, TopicPartition tp, long txid, KafkaException e,
      boolean diagnose) {
    discoveryDue = true;
    String topic = tp == null ? null : tp.topic();
    int partition = tp == null ? -1 : tp.partition();
    if (e instanceof InterruptException || e instanceof WakeupException) {
      Thread.currentThread().interrupt();
      return new KafkaSpoutException("Kafka spout '" + spout + "': interrupted while " + what, e, false, spout,
          topic, partition, -1, txid);
    }
    if (e instanceof AuthenticationException || e instanceof AuthorizationException
        || e instanceof InvalidTopicException || e instanceof ConfigException
        || e instanceof UnsupportedVersionException) {
      return new KafkaSpoutException("Kafka spout '" + spout + "': " + what + " failed, and no retry can fix it: "
          + e, e, false, spout, topic, partition, -1, txid);
    }
    if (e instanceof TimeoutException || e instanceof UnknownTopicOrPartitionException) {
      if (diagnose && tp != null) {
        KafkaSpoutException diagnosed = diagnose(tp, txid);
        if (diagnosed != null) {
          diagnosed.addSuppressed(e);
          return diagnosed;
        }
      }
      return new KafkaUnavailableException("Kafka spout '" + spout + "': " + what + " got no answer within "
          + apiTimeout.toMillis() + " ms from " + config.bootstrapServers() + " (txid " + txid + "): " + e, e, spout,
          topic, partition, txid);
    }
    return new KafkaSpoutException("Kafka spout '" + spout + "': " + what + " failed (txid " + txid + "): " + e, e,
        true, spout, topic, partition, -1, txid);
  }

  /** A topic or partition that no longer exists, as a typed error; null if it exists or the check itself failed. */
  KafkaSpoutException diagnose(TopicPartition tp, long txid) {
    Duration check = apiTimeout.compareTo(Duration.ofSeconds(5)) < 0 ? apiTimeout : Duration.ofSeconds(5);
    Optional<List<Integer>> listed;
    try {
      listed = describe(tp.topic(), check, txid);
    } catch (RuntimeException e) {
      return null;
    }
    if (listed.isEmpty()) {
      return new KafkaTopicNotFoundException(spout, tp.topic(), txid, "the cluster's metadata no longer lists it");
    }
    if (tp.partition() >= 0 && !listed.get().contains(tp.partition())) {
      return new KafkaTopicNotFoundException(spout, tp.topic(), txid, "partition " + tp.partition()
          + " is not in the cluster's metadata, which lists " + listed.get().size() + " partition(s)");
    }
    return null;
  }

  @Override
  public void close() {
    reads.close();
    if (admin != null) {
      try {
        admin.close(apiTimeout);
      } catch (RuntimeException e) {
        LOG.warn("Kafka spout '{}': closing its admin client failed", spout, e);
      }
      admin = null;
    }
    if (consumer != null) {
      try {
        consumer.close(CloseOptions.timeout(apiTimeout));
      } catch (RuntimeException e) {
        LOG.warn("Kafka spout '{}': closing its consumer failed", spout, e);
      }
      consumer = null;
    }
  }
}
