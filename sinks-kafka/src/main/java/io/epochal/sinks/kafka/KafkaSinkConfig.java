package io.epochal.sinks.kafka;

import io.epochal.api.Evolving;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * The configuration of an exactly-once Kafka sink ({@link KafkaSinks#exactlyOnce}): the cluster, the topic, how a
 * record becomes a Kafka record ({@link KafkaOutput}), the transactional id prefix, and timeouts.
 *
 * <p>The {@linkplain #transactionalIdPrefix() transactional id prefix} is required and must be stable for the
 * pipeline and sink and unique to them: engine partition {@code p} publishes with {@code transactional.id =
 * prefix-p}, so a restarted process fences the producers of its predecessor, and the txid marker of each partition is
 * kept in the consumer group of that name. Changing it loses the record of what was published.
 *
 * <p>Immutable and thread-safe; build with {@link #builder(KafkaOutput)} or {@link #strings(Function, Function)}.
 *
 * @param <T> the record type
 * @param bootstrapServers the cluster's bootstrap servers
 * @param topic the topic published to
 * @param output the mapping of a record to a Kafka record
 * @param transactionalIdPrefix the prefix of the producers' transactional ids and marker groups
 * @param apiTimeout the bound of one blocking client call (producer {@code max.block.ms}, delivery timeout, admin
 *     calls)
 * @param publishTimeout the bound of one publication (or read-back), retries included: past it a transient failure
 *     is a {@link KafkaSinkUnavailableException}
 * @param transactionTimeout the producers' {@code transaction.timeout.ms}: how long the broker keeps a dead
 *     process's open transaction before aborting it (a restart aborts it at once)
 * @param clientProperties extra properties of the producers and the admin client (security, for example)
 * @since 0.4.0
 */
@Evolving
public record KafkaSinkConfig<T>(String bootstrapServers, String topic, KafkaOutput<T> output,
    String transactionalIdPrefix, Duration apiTimeout, Duration publishTimeout, Duration transactionTimeout,
    Map<String, Object> clientProperties) {

  /**
   * Makes the configuration, checking every value and copying {@code clientProperties}.
   *
   * @param bootstrapServers the cluster's bootstrap servers ({@code host:port,...}), not blank
   * @param topic the topic published to, not blank
   * @param output the mapping of a record to a Kafka record
   * @param transactionalIdPrefix the prefix of the producers' transactional ids and marker groups, not blank
   * @param apiTimeout the bound of one blocking client call, positive
   * @param publishTimeout the bound of one publication with its retries, positive
   * @param transactionTimeout the producers' {@code transaction.timeout.ms}, positive
   * @param clientProperties extra properties of the producers and the admin client, without
   *     {@code transactional.id}, {@code enable.idempotence} and {@code bootstrap.servers} (the sink sets them)
   * @throws NullPointerException if {@code output} or {@code clientProperties} is null, or holds a null key or value
   * @throws IllegalArgumentException if a value is missing, blank or not positive, or a client property is one the
   *     sink sets
   */
  public KafkaSinkConfig {
    requireText(bootstrapServers, "bootstrapServers");
    requireText(topic, "topic");
    Objects.requireNonNull(output, "output");
    requireText(transactionalIdPrefix, "transactionalIdPrefix");
    requirePositive(apiTimeout, "apiTimeout");
    requirePositive(publishTimeout, "publishTimeout");
    requirePositive(transactionTimeout, "transactionTimeout");
    clientProperties = Map.copyOf(clientProperties);
    for (String k : clientProperties.keySet()) {
      if (k.equals("transactional.id") || k.equals("enable.idempotence") || k.equals("bootstrap.servers")) {
        throw new IllegalArgumentException("client property '" + k + "' is set by the sink; use the config's own"
            + " setting");
      }
    }
  }

  /**
   * A builder of a sink publishing what {@code output} makes of each record.
   *
   * @param <T> the record type
   * @param output the mapping of a record to a Kafka record
   * @return a builder with the default timeouts and no client property
   * @throws NullPointerException if {@code output} is null
   */
  public static <T> Builder<T> builder(KafkaOutput<T> output) {
    return new Builder<>(output);
  }

  /**
   * A builder of a sink publishing records as UTF-8 string keys and values.
   *
   * @param <T> the record type
   * @param key extracts a record's key, {@code null} for none
   * @param value extracts a record's value, {@code null} for a tombstone
   * @return a builder with the default timeouts and no client property
   * @throws NullPointerException if an argument is null
   */
  public static <T> Builder<T> strings(Function<? super T, String> key, Function<? super T, String> value) {
    return new Builder<>(KafkaOutput.strings(key, value));
  }

  private static void requireText(String s, String what) {
    if (s == null || s.isBlank()) {
      throw new IllegalArgumentException(what + " is required");
    }
  }

  private static void requirePositive(Duration d, String what) {
    if (d == null || d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(what + " must be positive, was " + d);
    }
  }

  /**
   * Builds a {@link KafkaSinkConfig}; bootstrap servers, topic and transactional id prefix are required. Not
   * thread-safe.
   *
   * @param <T> the record type
   */
  public static final class Builder<T> {
    private final KafkaOutput<T> output;
    private String bootstrapServers;
    private String topic;
    private String prefix;
    private Duration apiTimeout = Duration.ofSeconds(30);
    private Duration publishTimeout = Duration.ofMinutes(2);
    private Duration transactionTimeout = Duration.ofMinutes(1);
    private final Map<String, Object> clientProperties = new HashMap<>();

    private Builder(KafkaOutput<T> output) {
      this.output = Objects.requireNonNull(output, "output");
    }

    /**
     * Sets the cluster's bootstrap servers (required).
     *
     * @param servers {@code host:port,...}; checked by {@link #build()}
     * @return this builder
     */
    public Builder<T> bootstrapServers(String servers) {
      this.bootstrapServers = servers;
      return this;
    }

    /**
     * Sets the topic published to (required; it must exist).
     *
     * @param name the topic's name; checked by {@link #build()}
     * @return this builder
     */
    public Builder<T> topic(String name) {
      this.topic = name;
      return this;
    }

    /**
     * Sets the transactional id prefix (required), stable per pipeline and sink; see {@link KafkaSinkConfig}.
     *
     * @param value the prefix; checked by {@link #build()}
     * @return this builder
     */
    public Builder<T> transactionalIdPrefix(String value) {
      this.prefix = value;
      return this;
    }

    /**
     * Sets the bound of one blocking client call; default 30 s.
     *
     * @param value the bound, positive; checked by {@link #build()}
     * @return this builder
     */
    public Builder<T> apiTimeout(Duration value) {
      this.apiTimeout = value;
      return this;
    }

    /**
     * Sets the bound of one publication with its retries; default 2 min.
     *
     * @param value the bound, positive; checked by {@link #build()}
     * @return this builder
     */
    public Builder<T> publishTimeout(Duration value) {
      this.publishTimeout = value;
      return this;
    }

    /**
     * Sets the producers' transaction timeout; default 1 min.
     *
     * @param value the {@code transaction.timeout.ms} of the producers, positive; checked by {@link #build()}
     * @return this builder
     */
    public Builder<T> transactionTimeout(Duration value) {
      this.transactionTimeout = value;
      return this;
    }

    /**
     * Adds an extra property of the producers and the admin client, replacing an earlier value of {@code key}.
     *
     * @param key the property's name; one the sink sets is rejected by {@link #build()}
     * @param value the property's value
     * @return this builder
     * @throws NullPointerException if an argument is null
     */
    public Builder<T> clientProperty(String key, Object value) {
      clientProperties.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
      return this;
    }

    /**
     * Builds the configuration.
     *
     * @return the configuration of the values set
     * @throws IllegalArgumentException if a required value is missing or blank, a timeout is not positive, or a
     *     client property is one the sink sets
     */
    public KafkaSinkConfig<T> build() {
      return new KafkaSinkConfig<>(bootstrapServers, topic, output, prefix, apiTimeout, publishTimeout,
          transactionTimeout, clientProperties);
    }
  }
}
