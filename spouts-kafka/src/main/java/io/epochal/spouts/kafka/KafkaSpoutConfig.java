package io.epochal.spouts.kafka;

import io.epochal.api.Evolving;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * The settings of a Kafka spout: where to read, how much per batch, how to decode, what to do when things go wrong.
 * Build with {@link #builder(String, Supplier, Supplier)} (or {@link #strings(String)}), then pass to
 * {@link KafkaSpouts}.
 *
 * <p>Defaults: {@code read_committed}, start at the log start ({@link StartPosition#earliest()}), at most 5000
 * records and 4 MiB per partition per batch, {@link OffsetOutOfRangePolicy#FAIL}, partitions discovered every 10 s,
 * API timeout 30 s, poll timeout 100 ms, no consumer-group mirror.
 *
 * <p>The spout owns these client settings and refuses them in {@link Builder#property}: {@code bootstrap.servers}
 * ({@link Builder#bootstrapServers}), {@code isolation.level} ({@link Builder#isolationLevel}), {@code group.id}
 * ({@link Builder#mirrorToConsumerGroup}), {@code key.deserializer}/{@code value.deserializer} (the builder's
 * deserializers), {@code enable.auto.commit} (always false), {@code auto.offset.reset} (always none: the spout
 * decides, see {@link OffsetOutOfRangePolicy}) and {@code allow.auto.create.topics} (always false: a deleted topic
 * must not come back empty).
 *
 * <p>Immutable and thread-safe. Each spout built from a config calls the deserializer suppliers once and owns (and
 * closes) what they return.
 *
 * @param <K> the key type
 * @param <V> the value type
 * @since 0.1.0
 */
@Evolving
public final class KafkaSpoutConfig<K, V> {
  private static final Pattern TOPIC = Pattern.compile("[a-zA-Z0-9._-]{1,249}");
  private static final Set<String> OWNED = Set.of("bootstrap.servers", "isolation.level", "group.id",
      "key.deserializer", "value.deserializer", "enable.auto.commit", "auto.offset.reset",
      "allow.auto.create.topics");

  private final String name;
  private final String bootstrapServers;
  private final List<String> topics;
  private final Map<String, String> properties;
  private final Supplier<? extends Deserializer<K>> keyDeserializer;
  private final Supplier<? extends Deserializer<V>> valueDeserializer;
  private final int maxRecordsPerPartition;
  private final long maxBytesPerPartition;
  private final IsolationLevel isolationLevel;
  private final StartPosition startPosition;
  private final OffsetOutOfRangePolicy offsetOutOfRange;
  private final Optional<String> mirrorGroup;
  private final Duration partitionDiscoveryInterval;
  private final Duration apiTimeout;
  private final Duration pollTimeout;

  private KafkaSpoutConfig(Builder<K, V> b) {
    this.name = b.name;
    this.bootstrapServers = b.bootstrapServers;
    this.topics = List.copyOf(b.topics);
    this.properties = Collections.unmodifiableMap(new LinkedHashMap<>(b.properties));
    this.keyDeserializer = b.keyDeserializer;
    this.valueDeserializer = b.valueDeserializer;
    this.maxRecordsPerPartition = b.maxRecordsPerPartition;
    this.maxBytesPerPartition = b.maxBytesPerPartition;
    this.isolationLevel = b.isolationLevel;
    this.startPosition = b.startPosition;
    this.offsetOutOfRange = b.offsetOutOfRange;
    this.mirrorGroup = b.mirrorGroup;
    this.partitionDiscoveryInterval = b.partitionDiscoveryInterval;
    this.apiTimeout = b.apiTimeout;
    this.pollTimeout = b.pollTimeout;
  }

  /**
   * A builder.
   *
   * @param name the spout's name, unique within the pipeline (the key of its metadata in the checkpoint)
   * @param keyDeserializer makes the key deserializer of each spout, e.g. {@code StringDeserializer::new}
   * @param valueDeserializer makes the value deserializer of each spout
   * @param <K> the key type
   * @param <V> the value type
   * @return a new builder
   */
  public static <K, V> Builder<K, V> builder(String name, Supplier<? extends Deserializer<K>> keyDeserializer,
      Supplier<? extends Deserializer<V>> valueDeserializer) {
    return new Builder<>(name, keyDeserializer, valueDeserializer);
  }

  /**
   * A builder with UTF-8 string keys and values ({@link StringDeserializer}).
   *
   * @param name the spout's name
   * @return a new builder
   */
  public static Builder<String, String> strings(String name) {
    return builder(name, StringDeserializer::new, StringDeserializer::new);
  }

  /**
   * The spout's name, named in its errors and logs.
   *
   * @return the spout's name
   */
  public String name() {
    return name;
  }

  /**
   * The brokers the consumer first connects to.
   *
   * @return the bootstrap servers, {@code host:port[,host:port...]}
   */
  public String bootstrapServers() {
    return bootstrapServers;
  }

  /**
   * The topics the spout reads.
   *
   * @return the topics, in the order given, without duplicates
   */
  public List<String> topics() {
    return topics;
  }

  /**
   * The consumer properties set with {@code property}, none of them one the spout owns.
   *
   * @return the properties by name, as strings; unmodifiable
   */
  public Map<String, String> properties() {
    return properties;
  }

  /**
   * Makes a key deserializer with the supplier given to the builder.
   *
   * @return a new key deserializer (not yet configured)
   */
  public Deserializer<K> newKeyDeserializer() {
    return Objects.requireNonNull(keyDeserializer.get(), "the key deserializer supplier returned null");
  }

  /**
   * Makes a value deserializer with the supplier given to the builder.
   *
   * @return a new value deserializer (not yet configured)
   */
  public Deserializer<V> newValueDeserializer() {
    return Objects.requireNonNull(valueDeserializer.get(), "the value deserializer supplier returned null");
  }

  /**
   * The bound on the records a batch takes from one partition.
   *
   * @return the most records of one partition in one batch
   */
  public int maxRecordsPerPartition() {
    return maxRecordsPerPartition;
  }

  /**
   * The bound on the bytes a batch takes from one partition.
   *
   * @return the most bytes (keys, values and headers as stored) of one partition in one batch; a single larger
   *     record still makes a batch of its own
   */
  public long maxBytesPerPartition() {
    return maxBytesPerPartition;
  }

  /**
   * Which records of transactional producers the spout reads.
   *
   * @return the isolation level, {@code READ_COMMITTED} unless set
   */
  public IsolationLevel isolationLevel() {
    return isolationLevel;
  }

  /**
   * Where the spout starts reading a partition.
   *
   * @return where partitions without a committed offset start
   */
  public StartPosition startPosition() {
    return startPosition;
  }

  /**
   * What the spout does when an offset it must read is not in the log.
   *
   * @return what to do with an offset outside the log
   */
  public OffsetOutOfRangePolicy offsetOutOfRange() {
    return offsetOutOfRange;
  }

  /**
   * The consumer group committed offsets are mirrored to, for lag monitoring.
   *
   * @return the group, empty if offsets are not mirrored
   */
  public Optional<String> mirrorGroup() {
    return mirrorGroup;
  }

  /**
   * How often the spout looks for new partitions of its topics.
   *
   * @return how often the topics' partitions are listed again ({@link Duration#ZERO}: every batch)
   */
  public Duration partitionDiscoveryInterval() {
    return partitionDiscoveryInterval;
  }

  /**
   * The bound of the spout's blocking calls to the Kafka client.
   *
   * @return the bound of every blocking client call (metadata, offsets, commits) and of a fetch that makes no
   *     progress; past it the batch fails with a retryable {@link KafkaUnavailableException}
   */
  public Duration apiTimeout() {
    return apiTimeout;
  }

  /**
   * The bound of one poll of the consumer.
   *
   * @return the bound of one {@code poll}, positive
   */
  public Duration pollTimeout() {
    return pollTimeout;
  }

  @Override
  public String toString() {
    return "KafkaSpoutConfig{" + name + ", " + bootstrapServers + ", topics " + topics + ", " + isolationLevel
        + ", start " + startPosition + ", max " + maxRecordsPerPartition + " records / " + maxBytesPerPartition
        + " bytes per partition, out of range: " + offsetOutOfRange + mirrorGroup.map(g -> ", mirror to " + g)
        .orElse("") + "}";
  }

  /**
   * Builds a {@link KafkaSpoutConfig}. Not thread-safe. Every setter checks its argument at once
   * ({@link NullPointerException}, {@link IllegalArgumentException}); {@link #build()} checks that bootstrap servers
   * and topics were given.
   *
   * @param <K> the key type
   * @param <V> the value type
   */
  public static final class Builder<K, V> {
    private final String name;
    private final Supplier<? extends Deserializer<K>> keyDeserializer;
    private final Supplier<? extends Deserializer<V>> valueDeserializer;
    private String bootstrapServers;
    private final LinkedHashSet<String> topics = new LinkedHashSet<>();
    private final LinkedHashMap<String, String> properties = new LinkedHashMap<>();
    private int maxRecordsPerPartition = 5000;
    private long maxBytesPerPartition = 4L << 20;
    private IsolationLevel isolationLevel = IsolationLevel.READ_COMMITTED;
    private StartPosition startPosition = StartPosition.earliest();
    private OffsetOutOfRangePolicy offsetOutOfRange = OffsetOutOfRangePolicy.FAIL;
    private Optional<String> mirrorGroup = Optional.empty();
    private Duration partitionDiscoveryInterval = Duration.ofSeconds(10);
    private Duration apiTimeout = Duration.ofSeconds(30);
    private Duration pollTimeout = Duration.ofMillis(100);

    private Builder(String name, Supplier<? extends Deserializer<K>> keyDeserializer,
        Supplier<? extends Deserializer<V>> valueDeserializer) {
      this.name = Objects.requireNonNull(name, "name");
      if (name.isBlank()) {
        throw new IllegalArgumentException("the spout name must not be blank");
      }
      this.keyDeserializer = Objects.requireNonNull(keyDeserializer, "keyDeserializer");
      this.valueDeserializer = Objects.requireNonNull(valueDeserializer, "valueDeserializer");
    }

    /**
     * Sets the brokers the consumer first connects to (required).
     *
     * @param servers {@code host:port[,host:port...]}, not blank
     * @return this builder
     * @throws IllegalArgumentException if {@code servers} is blank
     */
    public Builder<K, V> bootstrapServers(String servers) {
      Objects.requireNonNull(servers, "servers");
      if (servers.isBlank()) {
        throw new IllegalArgumentException("bootstrap servers must not be blank");
      }
      this.bootstrapServers = servers;
      return this;
    }

    /**
     * Adds topics to read (duplicates are ignored).
     *
     * @param topics valid Kafka topic names (letters, digits, {@code .}, {@code _}, {@code -}; not {@code .} or
     *     {@code ..})
     * @return this builder
     * @throws IllegalArgumentException if a name is not a valid topic name
     */
    public Builder<K, V> topics(String... topics) {
      return topics(List.of(topics));
    }

    /**
     * Adds topics to read (duplicates are ignored).
     *
     * @param topics valid Kafka topic names, as for {@link #topics(String...)}
     * @return this builder
     * @throws IllegalArgumentException if a name is not a valid topic name
     */
    public Builder<K, V> topics(List<String> topics) {
      for (String t : topics) {
        Objects.requireNonNull(t, "topic");
        if (!TOPIC.matcher(t).matches() || t.equals(".") || t.equals("..")) {
          throw new IllegalArgumentException("not a valid Kafka topic name: '" + t + "'");
        }
        this.topics.add(t);
      }
      return this;
    }

    /**
     * Sets a consumer property (security, fetch sizes, client id, ...).
     *
     * @param key the consumer property name, one the spout does not own
     * @param value the property's value, stored as {@code String.valueOf(value)}
     * @return this builder
     * @throws IllegalArgumentException for a property the spout owns (see {@link KafkaSpoutConfig})
     */
    public Builder<K, V> property(String key, Object value) {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(value, "value");
      if (OWNED.contains(key)) {
        throw new IllegalArgumentException("consumer property '" + key + "' is set by the Kafka spout itself; "
            + switch (key) {
              case "bootstrap.servers" -> "use bootstrapServers(...)";
              case "isolation.level" -> "use isolationLevel(...)";
              case "group.id" -> "the spout reads no group; use mirrorToConsumerGroup(...) to publish its offsets";
              case "key.deserializer", "value.deserializer" -> "pass the deserializers to KafkaSpoutConfig.builder";
              case "auto.offset.reset" -> "use startPosition(...) and offsetOutOfRange(...)";
              default -> "it cannot be changed";
            });
      }
      properties.put(key, String.valueOf(value));
      return this;
    }

    /**
     * Sets several consumer properties, as {@link #property} does.
     *
     * @param values the properties by name; none of them one the spout owns
     * @return this builder
     * @throws IllegalArgumentException for a property the spout owns (the properties before it are set)
     */
    public Builder<K, V> properties(Map<String, ?> values) {
      values.forEach(this::property);
      return this;
    }

    /**
     * Bounds the records a batch takes from one partition.
     *
     * @param max the most records of one partition in one batch, {@code >= 1}
     * @return this builder
     * @throws IllegalArgumentException if {@code max < 1}
     */
    public Builder<K, V> maxRecordsPerPartition(int max) {
      if (max < 1) {
        throw new IllegalArgumentException("maxRecordsPerPartition must be >= 1, was " + max);
      }
      this.maxRecordsPerPartition = max;
      return this;
    }

    /**
     * Bounds the bytes a batch takes from one partition.
     *
     * @param max the most bytes of one partition in one batch, {@code >= 1} (one larger record still passes)
     * @return this builder
     * @throws IllegalArgumentException if {@code max < 1}
     */
    public Builder<K, V> maxBytesPerPartition(long max) {
      if (max < 1) {
        throw new IllegalArgumentException("maxBytesPerPartition must be >= 1, was " + max);
      }
      this.maxBytesPerPartition = max;
      return this;
    }

    /**
     * Sets which records of transactional producers the spout reads.
     *
     * @param level {@code READ_COMMITTED} (the default: aborted records are never emitted, batches end at the last
     *     stable offset) or {@code READ_UNCOMMITTED}
     * @return this builder
     */
    public Builder<K, V> isolationLevel(IsolationLevel level) {
      this.isolationLevel = Objects.requireNonNull(level, "level");
      return this;
    }

    /**
     * Sets where the spout starts reading a partition.
     *
     * @param start where partitions without a committed offset start
     * @return this builder
     */
    public Builder<K, V> startPosition(StartPosition start) {
      this.startPosition = Objects.requireNonNull(start, "start");
      return this;
    }

    /**
     * Sets what the spout does when an offset it must read is no longer (or not yet) in the log.
     *
     * @param policy what to do with an offset outside the log; anything but FAIL gives up exactly-once
     * @return this builder
     */
    public Builder<K, V> offsetOutOfRange(OffsetOutOfRangePolicy policy) {
      this.offsetOutOfRange = Objects.requireNonNull(policy, "policy");
      return this;
    }

    /**
     * After each committed batch, also commits its offsets to consumer group {@code group} (best effort, for lag
     * monitoring). The spout never reads them back: the checkpoint stays the truth.
     *
     * @param group the consumer group id, not blank
     * @return this builder
     * @throws IllegalArgumentException if {@code group} is blank
     */
    public Builder<K, V> mirrorToConsumerGroup(String group) {
      Objects.requireNonNull(group, "group");
      if (group.isBlank()) {
        throw new IllegalArgumentException("the consumer group must not be blank");
      }
      this.mirrorGroup = Optional.of(group);
      return this;
    }

    /**
     * Sets how often the spout looks for new partitions of its topics.
     *
     * @param interval how often partitions are listed again, {@code >= 0} ({@link Duration#ZERO}: every batch)
     * @return this builder
     * @throws IllegalArgumentException if {@code interval} is negative
     */
    public Builder<K, V> partitionDiscoveryInterval(Duration interval) {
      Objects.requireNonNull(interval, "interval");
      if (interval.isNegative()) {
        throw new IllegalArgumentException("partitionDiscoveryInterval must be >= 0, was " + interval);
      }
      this.partitionDiscoveryInterval = interval;
      return this;
    }

    /**
     * Bounds the spout's blocking calls to the Kafka client.
     *
     * @param timeout the bound of every blocking client call and of a stalled fetch, {@code > 0}
     * @return this builder
     * @throws IllegalArgumentException if {@code timeout} is zero or negative
     */
    public Builder<K, V> apiTimeout(Duration timeout) {
      Objects.requireNonNull(timeout, "timeout");
      if (timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("apiTimeout must be > 0, was " + timeout);
      }
      this.apiTimeout = timeout;
      return this;
    }

    /**
     * Bounds one poll of the consumer.
     *
     * @param timeout the bound of one poll, {@code > 0}
     * @return this builder
     * @throws IllegalArgumentException if {@code timeout} is zero or negative
     */
    public Builder<K, V> pollTimeout(Duration timeout) {
      Objects.requireNonNull(timeout, "timeout");
      if (timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("pollTimeout must be > 0, was " + timeout);
      }
      this.pollTimeout = timeout;
      return this;
    }

    /**
     * Builds the configuration.
     *
     * @return the config
     * @throws IllegalStateException if no bootstrap servers or no topic were given, or the poll timeout exceeds the
     *     API timeout
     */
    public KafkaSpoutConfig<K, V> build() {
      List<String> missing = new ArrayList<>();
      if (bootstrapServers == null) {
        missing.add("bootstrapServers(...)");
      }
      if (topics.isEmpty()) {
        missing.add("topics(...)");
      }
      if (!missing.isEmpty()) {
        throw new IllegalStateException("Kafka spout '" + name + "' needs " + String.join(" and ", missing));
      }
      if (pollTimeout.compareTo(apiTimeout) > 0) {
        throw new IllegalStateException("pollTimeout (" + pollTimeout + ") must not exceed apiTimeout ("
            + apiTimeout + ")");
      }
      return new KafkaSpoutConfig<>(this);
    }
  }
}
