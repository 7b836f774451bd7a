package io.epochal.store.ytsaurus;

import static io.epochal.store.ytsaurus.internal.BuilderOptions.once;
import static io.epochal.store.ytsaurus.internal.BuilderOptions.positive;

import io.epochal.api.Evolving;
import io.epochal.pipeline.Sleeper;
import io.epochal.store.ytsaurus.internal.ConsumerAdvances;
import io.epochal.store.ytsaurus.internal.YtCypress;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * The settings of a YTsaurus queue spout ({@link YtQueueSpouts}): where the queue is, how rows are decoded, the
 * per-partition caps, the queue consumer and whether epoch commits advance it.
 *
 * <pre>{@code
 * YtQueueSpoutConfig<String> config = YtQueueSpoutConfig.builder("clicks", "yt.example.com", "//home/app/clicks")
 *     .decoder(YtRowDecoder.utf8("text"))
 *     .consumer("//home/app/clicks_consumer")            // start where the consumer is
 *     .advanceConsumerIn(ytStore, "click-counts")         // and advance it inside every epoch commit
 *     .build();
 * }</pre>
 *
 * <p>Immutable and thread-safe. Built by {@link Builder}, whose options may each be set once
 * ({@link IllegalStateException} otherwise; a bad value is {@link IllegalArgumentException}).
 *
 * @param <T> what the spout emits
 * @since 0.4.0
 */
@Evolving
public final class YtQueueSpoutConfig<T> {
  private final String name;
  private final String proxy;
  private final String queuePath;
  private final Optional<String> token;
  private final YtRowDecoder<T> decoder;
  private final int maxRowsPerPartition;
  private final long maxBytesPerPartition;
  private final Optional<String> consumerPath;
  private final boolean readThroughConsumer;
  private final Optional<YtTableStore> advanceStore;
  private final Optional<String> pipeline;
  private final YtTrimmedRowsPolicy trimmedRows;
  private final Duration partitionDiscoveryInterval;
  private final Duration requestTimeout;
  private final Duration connectTimeout;
  private final int maxAttempts;
  private final Duration initialBackoff;
  private final Duration maxBackoff;
  private final Sleeper sleeper;

  @SuppressWarnings("unchecked")
  private YtQueueSpoutConfig(Builder<?> b) {
    this.name = b.name;
    this.proxy = b.proxy;
    this.queuePath = b.queuePath;
    this.token = Optional.ofNullable(b.token);
    this.decoder = (YtRowDecoder<T>) b.decoder;
    this.maxRowsPerPartition = b.maxRows;
    this.maxBytesPerPartition = b.maxBytes;
    this.consumerPath = Optional.ofNullable(b.consumer);
    this.readThroughConsumer = b.readThroughConsumer;
    this.advanceStore = Optional.ofNullable(b.advanceStore);
    this.pipeline = Optional.ofNullable(b.pipeline);
    this.trimmedRows = b.trimmedRows == null ? YtTrimmedRowsPolicy.FAIL : b.trimmedRows;
    this.partitionDiscoveryInterval = b.discovery == null ? Duration.ofSeconds(10) : b.discovery;
    this.requestTimeout = b.requestTimeout == null ? Duration.ofSeconds(30) : b.requestTimeout;
    this.connectTimeout = b.connectTimeout == null ? Duration.ofSeconds(5) : b.connectTimeout;
    this.maxAttempts = b.maxAttempts;
    this.initialBackoff = b.initialBackoff;
    this.maxBackoff = b.maxBackoff;
    this.sleeper = b.sleeper == null ? Sleeper.system() : b.sleeper;
  }

  /**
   * Starts a builder of a spout emitting {@link YtQueueRow}s (change with {@link Builder#decoder}).
   *
   * @param name the spout's name, unique within the pipeline
   * @param proxy the HTTP proxy: {@code host}, {@code host:port} or {@code http(s)://host:port}
   * @param queuePath the queue's Cypress path (an ordered dynamic table), e.g. {@code //home/app/events}
   * @return a builder
   */
  public static Builder<YtQueueRow> builder(String name, String proxy, String queuePath) {
    return new Builder<>(name, proxy, queuePath);
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
   * The proxy the spout sends its requests to.
   *
   * @return the HTTP proxy the spout reads through
   */
  public String proxy() {
    return proxy;
  }

  /**
   * The queue the spout reads.
   *
   * @return the queue's Cypress path
   */
  public String queuePath() {
    return queuePath;
  }

  /**
   * The OAuth token set on the builder.
   *
   * @return the OAuth token; empty: {@code YT_TOKEN}, else {@code ~/.yt/token}, else none
   */
  public Optional<String> token() {
    return token;
  }

  /**
   * How rows become the spout's records.
   *
   * @return the row decoder
   */
  public YtRowDecoder<T> decoder() {
    return decoder;
  }

  /**
   * The bound on the rows a batch takes from one partition.
   *
   * @return the most rows one partition contributes to one batch
   */
  public int maxRowsPerPartition() {
    return maxRowsPerPartition;
  }

  /**
   * The bound on the data weight a batch takes from one partition.
   *
   * @return the most data weight (bytes, YTsaurus' measure) one partition contributes to one batch
   */
  public long maxBytesPerPartition() {
    return maxBytesPerPartition;
  }

  /**
   * The queue consumer the spout starts from.
   *
   * @return the consumer whose offsets a partition without committed metadata starts from, empty if none was set
   */
  public Optional<String> consumerPath() {
    return consumerPath;
  }

  /**
   * Tells whether rows are read through the consumer.
   *
   * @return whether rows are read with {@code pull_queue_consumer} (needs a registered consumer)
   */
  public boolean readThroughConsumer() {
    return readThroughConsumer;
  }

  /**
   * The pipeline whose epoch commits advance the consumer.
   *
   * @return the pipeline, empty if commits do not advance the consumer
   */
  public Optional<String> advancingPipeline() {
    return pipeline;
  }

  /**
   * What the spout does with rows trimmed before the pipeline committed them.
   *
   * @return the policy for trimmed rows
   */
  public YtTrimmedRowsPolicy trimmedRows() {
    return trimmedRows;
  }

  /**
   * How often the spout looks for new tablets of the queue.
   *
   * @return how often the tablet count is read again ({@code Duration.ZERO}: every batch)
   */
  public Duration partitionDiscoveryInterval() {
    return partitionDiscoveryInterval;
  }

  /**
   * The bound of one HTTP exchange.
   *
   * @return the timeout
   */
  public Duration requestTimeout() {
    return requestTimeout;
  }

  /**
   * The bound of the TCP connect.
   *
   * @return the timeout
   */
  public Duration connectTimeout() {
    return connectTimeout;
  }

  /**
   * How often the client tries a request.
   *
   * @return attempts per request before the spout fails the batch
   */
  public int maxAttempts() {
    return maxAttempts;
  }

  /**
   * The wait after the first failed attempt.
   *
   * @return the first backoff; it doubles per retry up to {@link #maxBackoff()}
   */
  public Duration initialBackoff() {
    return initialBackoff;
  }

  /**
   * The longest wait between attempts.
   *
   * @return the backoff cap
   */
  public Duration maxBackoff() {
    return maxBackoff;
  }

  /**
   * How the client waits between attempts.
   *
   * @return the sleeper
   */
  public Sleeper sleeper() {
    return sleeper;
  }

  /** @return the staging of the store whose epoch commits advance the consumer, if they do (internal) */
  Optional<ConsumerAdvances> consumerAdvances() {
    return advanceStore.map(YtTableStore::consumerAdvances);
  }

  @Override
  public String toString() {
    return "YtQueueSpoutConfig[" + name + ", " + queuePath + " via " + proxy + consumerPath.map(c -> ", consumer "
        + c + pipeline.map(p -> " advanced by pipeline '" + p + "'").orElse("")).orElse("") + ", caps "
        + maxRowsPerPartition + " rows / " + maxBytesPerPartition + " bytes, trimmed rows: " + trimmedRows + "]";
  }

  /**
   * Builds a {@link YtQueueSpoutConfig}. Not thread-safe. {@link #build()} does not change the builder.
   *
   * @param <T> what the spout will emit
   * @since 0.4.0
   */
  public static final class Builder<T> {
    private final String name;
    private final String proxy;
    private final String queuePath;
    private String token;
    private YtRowDecoder<?> decoder = YtRowDecoder.rows();
    private boolean decoderSet;
    private int maxRows = 5000;
    private boolean maxRowsSet;
    private long maxBytes = 4L << 20;
    private boolean maxBytesSet;
    private String consumer;
    private boolean readThroughConsumer;
    private YtTableStore advanceStore;
    private String pipeline;
    private YtTrimmedRowsPolicy trimmedRows;
    private Duration discovery;
    private Duration requestTimeout;
    private Duration connectTimeout;
    private int maxAttempts = 5;
    private Duration initialBackoff = Duration.ofMillis(50);
    private Duration maxBackoff = Duration.ofSeconds(2);
    private boolean retriesSet;
    private Sleeper sleeper;

    private Builder(String name, String proxy, String queuePath) {
      this.name = requireText(name, "name");
      this.proxy = requireText(proxy, "proxy").trim();
      YtCypress.checkAbsolute(requireText(queuePath, "queuePath"));
      this.queuePath = queuePath;
    }

    private static String requireText(String s, String what) {
      Objects.requireNonNull(s, what);
      if (s.isBlank()) {
        throw new IllegalArgumentException(what + " must not be blank");
      }
      return s;
    }

    /**
     * Sets the OAuth token.
     *
     * @param token the OAuth token; default: {@code YT_TOKEN}, else {@code ~/.yt/token}, else none
     * @return this
     */
    public Builder<T> token(String token) {
      once(this.token != null, "token");
      this.token = Objects.requireNonNull(token, "token");
      return this;
    }

    /**
     * Sets how rows become the spout's records.
     *
     * @param decoder how rows become records; default {@link YtRowDecoder#rows()}
     * @param <U> the new record type
     * @return this builder, now of {@code U}
     */
    @SuppressWarnings("unchecked")
    public <U> Builder<U> decoder(YtRowDecoder<U> decoder) {
      once(decoderSet, "decoder");
      this.decoder = Objects.requireNonNull(decoder, "decoder");
      decoderSet = true;
      return (Builder<U>) this;
    }

    /**
     * Bounds the rows a batch takes from one partition.
     *
     * @param rows the most rows of one partition per batch (YTsaurus' {@code max_row_count}); default 5000
     * @return this
     */
    public Builder<T> maxRowsPerPartition(int rows) {
      once(maxRowsSet, "maxRowsPerPartition");
      if (rows < 1) {
        throw new IllegalArgumentException("maxRowsPerPartition must be >= 1, got " + rows);
      }
      this.maxRows = rows;
      maxRowsSet = true;
      return this;
    }

    /**
     * Bounds the data weight a batch takes from one partition.
     *
     * @param bytes the most data weight of one partition per batch (YTsaurus' {@code max_data_weight}; one larger row
     *     still passes, alone); default 4 MiB
     * @return this
     */
    public Builder<T> maxBytesPerPartition(long bytes) {
      once(maxBytesSet, "maxBytesPerPartition");
      if (bytes < 1) {
        throw new IllegalArgumentException("maxBytesPerPartition must be >= 1, got " + bytes);
      }
      this.maxBytes = bytes;
      maxBytesSet = true;
      return this;
    }

    /**
     * The queue consumer (a consumer table, {@code create type=queue_consumer}): a partition without committed
     * metadata starts at the consumer's offset of it (0 when the consumer has no row for it), and the consumer is
     * what {@link #advanceConsumerIn} advances. Without a consumer a partition starts at its first row still there.
     *
     * @param consumerPath the consumer's Cypress path
     * @return this
     */
    public Builder<T> consumer(String consumerPath) {
      once(consumer != null, "consumer");
      YtCypress.checkAbsolute(requireText(consumerPath, "consumerPath"));
      this.consumer = consumerPath;
      return this;
    }

    /**
     * Reads rows with {@code pull_queue_consumer} (the consumer must be registered for the queue,
     * {@code register_queue_consumer}) instead of {@code pull_queue} (read access to the queue suffices). Needs
     * {@link #consumer}. Offsets are always given explicitly.
     *
     * @return this
     */
    public Builder<T> readThroughConsumer() {
      once(readThroughConsumer, "readThroughConsumer");
      readThroughConsumer = true;
      return this;
    }

    /**
     * Advances the {@link #consumer} inside the epoch commits of {@code pipeline} on {@code store}: the commit of
     * batch {@code txid}, one tablet transaction, also calls {@code advance_queue_consumer(partition, old_offset =
     * range start, new_offset = range end)} for every partition in the batch, so the consumer's offsets, the states
     * and the checkpoint commit atomically (as in YTsaurus Flow). An old offset the consumer does not hold fails the
     * commit with {@link YtConsumerOffsetMismatchException}. The pipeline must use a {@code TableCheckpointStore} on
     * {@code store}, and {@code store} must be in {@link YtMode#PINNED} mode.
     *
     * @param store the pipeline's YTsaurus table store
     * @param pipeline the pipeline's name
     * @return this
     */
    public Builder<T> advanceConsumerIn(YtTableStore store, String pipeline) {
      once(advanceStore != null, "advanceConsumerIn");
      Objects.requireNonNull(store, "store");
      if (store.mode() != YtMode.PINNED) {
        throw new IllegalArgumentException("advanceConsumerIn needs a store in PINNED mode (a tablet transaction "
            + "to advance the consumer in); " + store.describe() + " is not");
      }
      this.pipeline = requireText(pipeline, "pipeline");
      this.advanceStore = store;
      return this;
    }

    /**
     * Sets what the spout does with rows trimmed before the pipeline committed them.
     *
     * @param policy what to do with rows trimmed before they were committed; default {@link YtTrimmedRowsPolicy#FAIL}
     * @return this
     */
    public Builder<T> trimmedRows(YtTrimmedRowsPolicy policy) {
      once(trimmedRows != null, "trimmedRows");
      this.trimmedRows = Objects.requireNonNull(policy, "policy");
      return this;
    }

    /**
     * Sets how often the spout looks for new tablets of the queue.
     *
     * @param interval how often the queue's tablet count is read again to pick up new tablets; default 10 s;
     *     {@code Duration.ZERO}: every batch
     * @return this
     */
    public Builder<T> partitionDiscoveryInterval(Duration interval) {
      once(discovery != null, "partitionDiscoveryInterval");
      Objects.requireNonNull(interval, "interval");
      if (interval.isNegative()) {
        throw new IllegalArgumentException("partitionDiscoveryInterval must not be negative, got " + interval);
      }
      this.discovery = interval;
      return this;
    }

    /**
     * Bounds one HTTP exchange.
     *
     * @param timeout the timeout of one HTTP exchange; default 30 s
     * @return this
     */
    public Builder<T> requestTimeout(Duration timeout) {
      once(requestTimeout != null, "requestTimeout");
      this.requestTimeout = positive(timeout, "requestTimeout");
      return this;
    }

    /**
     * Bounds the TCP connect.
     *
     * @param timeout the TCP connect timeout; default 5 s
     * @return this
     */
    public Builder<T> connectTimeout(Duration timeout) {
      once(connectTimeout != null, "connectTimeout");
      this.connectTimeout = positive(timeout, "connectTimeout");
      return this;
    }

    /**
     * Retries of one request (a transport failure, HTTP 503/429, a retryable YTsaurus code) before the spout fails
     * the batch with a retryable error; the engine's retry policy then replays the batch.
     *
     * @param maxAttempts attempts per request, at least 1; default 5
     * @param initialBackoff first backoff, doubled per retry with jitter; default 50 ms
     * @param maxBackoff backoff cap; default 2 s
     * @return this
     */
    public Builder<T> retries(int maxAttempts, Duration initialBackoff, Duration maxBackoff) {
      once(retriesSet, "retries");
      if (maxAttempts < 1) {
        throw new IllegalArgumentException("maxAttempts must be at least 1, got " + maxAttempts);
      }
      this.maxAttempts = maxAttempts;
      this.initialBackoff = positive(initialBackoff, "initialBackoff");
      this.maxBackoff = positive(maxBackoff, "maxBackoff");
      retriesSet = true;
      return this;
    }

    /**
     * Sets how the client waits between attempts.
     *
     * @param sleeper how retries wait (tests inject a virtual one); default {@link Sleeper#system()}
     * @return this
     */
    public Builder<T> sleeper(Sleeper sleeper) {
      once(this.sleeper != null, "sleeper");
      this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
      return this;
    }

    /**
     * Builds the configuration.
     *
     * @return the settings
     * @throws IllegalStateException if {@link #readThroughConsumer()} or {@link #advanceConsumerIn} was set without
     *     {@link #consumer}
     */
    public YtQueueSpoutConfig<T> build() {
      if (consumer == null && (readThroughConsumer || advanceStore != null)) {
        throw new IllegalStateException((readThroughConsumer ? "readThroughConsumer()" : "advanceConsumerIn(..)")
            + " needs consumer(path)");
      }
      return new YtQueueSpoutConfig<>(this);
    }
  }
}
