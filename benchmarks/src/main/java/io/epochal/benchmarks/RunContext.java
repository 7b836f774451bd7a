package io.epochal.benchmarks;

import java.nio.file.Path;
import java.util.Properties;

/**
 * What a child run gets: the corpus, a private work directory, its options, the meter of its timed section, and
 * extra result properties to fill.
 */
public record RunContext(Path corpus, Path work, Options options, Meter meter, Properties extra) {
  public int batch() {
    return options.intValue("batch", 10_000);
  }

  public int threads() {
    return options.intValue("threads", 2);
  }

  public int partitions() {
    return options.intValue("partitions", 2);
  }

  public int inFlight() {
    return options.intValue("inflight", 2);
  }

  /** The PostgreSQL variants' server (the password comes in {@link PostgresServer#PASSWORD_ENV}). */
  public String jdbcUrl() {
    String url = options.get("jdbc", null);
    if (url == null) {
      throw new IllegalStateException("a PostgreSQL variant needs jdbc=<url> (the harness passes it)");
    }
    return url;
  }

  public String jdbcUser() {
    return options.get("jdbcUser", "postgres");
  }

  /** The Kafka variants' broker (the harness passes it). */
  public String kafkaBootstrap() {
    String b = options.get("kafka", null);
    if (b == null) {
      throw new IllegalStateException("a Kafka variant needs kafka=<bootstrap> (the harness passes it)");
    }
    return b;
  }

  /** The Kafka variants' topic (the corpus, loaded by the harness). */
  public String topic() {
    return options.get("topic", "e2e");
  }

  /** The partitions of {@link #topic()}. */
  public int topicPartitions() {
    return options.intValue("topicPartitions", 4);
  }

  /** The PostgreSQL schema of this run (created by the run, dropped after it). */
  public String schema() {
    return options.get("schema", "e2e");
  }
}
