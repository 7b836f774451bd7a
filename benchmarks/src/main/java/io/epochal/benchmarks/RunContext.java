package io.epochal.benchmarks;

import java.nio.file.Path;
import java.util.Properties;

/**
 * What a child run gets: the corpus, a private work directory, its options, the meter of its timed section, and
 * extra result properties to fill.
 */
public record RunContext(Path corpus, Path work, Options options, Meter meter, Properties extra) {
  /** @return the tuples per batch, option {@code batch=} (default 10 000) */
  public int batch() {
    return options.intValue("batch", 10_000);
  }

  /** @return the worker threads, option {@code threads=} (default 2) */
  public int threads() {
    return options.intValue("threads", 2);
  }

  /** @return the spout partitions the corpus is split into, option {@code partitions=} (default 2) */
  public int partitions() {
    return options.intValue("partitions", 2);
  }

  /** @return the batches allowed in flight at once, option {@code inflight=} (default 2) */
  public int inFlight() {
    return options.intValue("inflight", 2);
  }

  /**
   * The PostgreSQL variants' server (the password comes in {@link PostgresServer#PASSWORD_ENV}).
   *
   * @return the JDBC URL of option {@code jdbc=}
   * @throws IllegalStateException if the option is absent (a non-PostgreSQL run)
   */
  public String jdbcUrl() {
    String url = options.get("jdbc", null);
    if (url == null) {
      throw new IllegalStateException("a PostgreSQL variant needs jdbc=<url> (the harness passes it)");
    }
    return url;
  }

  /** @return the PostgreSQL user, option {@code jdbcUser=} (default {@code postgres}) */
  public String jdbcUser() {
    return options.get("jdbcUser", "postgres");
  }

  /**
   * The Kafka variants' broker (the harness passes it).
   *
   * @return the bootstrap servers of option {@code kafka=}
   * @throws IllegalStateException if the option is absent (a non-Kafka run)
   */
  public String kafkaBootstrap() {
    String b = options.get("kafka", null);
    if (b == null) {
      throw new IllegalStateException("a Kafka variant needs kafka=<bootstrap> (the harness passes it)");
    }
    return b;
  }

  /**
   * The Kafka variants' topic (the corpus, loaded by the harness).
   *
   * @return the topic name of option {@code topic=} (default {@code e2e})
   */
  public String topic() {
    return options.get("topic", "e2e");
  }

  /**
   * The partitions of {@link #topic()}.
   *
   * @return the partition count of option {@code topicPartitions=} (default 4)
   */
  public int topicPartitions() {
    return options.intValue("topicPartitions", 4);
  }

  /**
   * The PostgreSQL schema of this run (created by the run, dropped after it).
   *
   * @return the schema name of option {@code schema=} (default {@code e2e})
   */
  public String schema() {
    return options.get("schema", "e2e");
  }
}
