package io.epochal.benchmarks;

import java.util.Arrays;

/** One way of running the word count, each in its own child JVM. */
public enum Variant {
  /** The baseline: a single-threaded HashMap word count with no state store and no recovery. */
  RAW("raw", "raw HashMap loop (1 thread)", Peer.PLAIN, "io.epochal.benchmarks.RawLoop", "run"),
  /** A hand-written single-threaded loop writing each micro-batch to RocksDB, no Epochal code. */
  ROCKSDB_BARE("rocksdb-bare", "bare RocksDB micro-batch loop (1 thread)", Peer.PLAIN,
      "io.epochal.benchmarks.BareRocksLoop", "run"),
  /** Epochal with a TransactionalMap over the in-memory table store. */
  EPOCHAL_MEM_TX("epochal-mem-tx", "Epochal in-memory, TransactionalMap", Peer.PLAIN,
      "io.epochal.benchmarks.EpochalRuns", "memTx"),
  /** Epochal with an OpaqueMap over the in-memory table store. */
  EPOCHAL_MEM_OPAQUE("epochal-mem-opaque", "Epochal in-memory table store, OpaqueMap, epoch", Peer.PLAIN,
      "io.epochal.benchmarks.EpochalRuns", "memOpaque"),
  /** Epochal with a TransactionalMap over the RocksDB store. */
  EPOCHAL_ROCKSDB_TX("epochal-rocksdb-tx", "Epochal RocksDB, TransactionalMap, epoch", Peer.PLAIN,
      "io.epochal.benchmarks.EpochalRuns", "rocksTx"),
  /** Epochal with an OpaqueMap over the RocksDB store. */
  EPOCHAL_ROCKSDB_OPAQUE("epochal-rocksdb-opaque", "Epochal RocksDB, OpaqueMap, epoch", Peer.PLAIN,
      "io.epochal.benchmarks.EpochalRuns", "rocksOpaque"),
  /** {@code epochal-rocksdb-tx} under {@code AT_LEAST_ONCE}: no pending write per batch, applied cells re-applied. */
  EPOCHAL_ROCKSDB_TX_ALO("epochal-rocksdb-tx-alo", "Epochal RocksDB, TransactionalMap, epoch, AT_LEAST_ONCE",
      Peer.PLAIN, "io.epochal.benchmarks.EpochalRuns", "rocksTxAtLeastOnce"),
  /** {@code epochal-rocksdb-tx} under {@code AT_MOST_ONCE}: each position recorded before processing. */
  EPOCHAL_ROCKSDB_TX_AMO("epochal-rocksdb-tx-amo", "Epochal RocksDB, TransactionalMap, epoch, AT_MOST_ONCE",
      Peer.PLAIN, "io.epochal.benchmarks.EpochalRuns", "rocksTxAtMostOnce"),
  /** {@code epochal-rocksdb-opaque} under {@code AT_LEAST_ONCE} (an opaque spout writes no pending metadata anyway). */
  EPOCHAL_ROCKSDB_OPAQUE_ALO("epochal-rocksdb-opaque-alo", "Epochal RocksDB, OpaqueMap, epoch, AT_LEAST_ONCE",
      Peer.PLAIN, "io.epochal.benchmarks.EpochalRuns", "rocksOpaqueAtLeastOnce"),
  /** {@code epochal-rocksdb-opaque} under {@code AT_MOST_ONCE}: one pending write per batch more. */
  EPOCHAL_ROCKSDB_OPAQUE_AMO("epochal-rocksdb-opaque-amo", "Epochal RocksDB, OpaqueMap, epoch, AT_MOST_ONCE",
      Peer.PLAIN, "io.epochal.benchmarks.EpochalRuns", "rocksOpaqueAtMostOnce"),
  /** A hand-written single-threaded JDBC loop writing each micro-batch to PostgreSQL, no Epochal code. */
  PG_BARE("pg-bare", "bare JDBC micro-batch loop on PostgreSQL (1 thread)", Peer.PLAIN,
      "io.epochal.benchmarks.BarePostgresLoop", "run"),
  /** Epochal with a TransactionalMap over the PostgreSQL store. */
  EPOCHAL_PG_TX("epochal-pg-tx", "Epochal PostgreSQL, TransactionalMap, epoch", Peer.PLAIN,
      "io.epochal.benchmarks.EpochalRuns", "pgTx"),
  /** Epochal with an OpaqueMap over the PostgreSQL store. */
  EPOCHAL_PG_OPAQUE("epochal-pg-opaque", "Epochal PostgreSQL, OpaqueMap, epoch", Peer.PLAIN,
      "io.epochal.benchmarks.EpochalRuns", "pgOpaque"),
  /** {@code epochal-pg-tx} with a CachedMap between the TransactionalMap and the PostgreSQL store. */
  EPOCHAL_PG_TX_CACHED("epochal-pg-tx-cached", "Epochal PostgreSQL, TransactionalMap over a CachedMap, epoch",
      Peer.PLAIN, "io.epochal.benchmarks.EpochalRuns", "pgTxCached"),
  /** The Kafka peer: a single-threaded KafkaConsumer poll loop counting into a HashMap, no exactly-once. */
  KAFKA_PLAIN("kafka-plain", "plain KafkaConsumer poll loop, HashMap (1 thread)", Peer.PLAIN,
      "io.epochal.benchmarks.KafkaRuns", "plain"),
  /** Epochal reading the topic with the Kafka transactional spout into a RocksDB TransactionalMap. */
  EPOCHAL_KAFKA_TX("epochal-kafka-tx", "Epochal Kafka transactional spout, RocksDB TransactionalMap, epoch",
      Peer.PLAIN, "io.epochal.benchmarks.KafkaRuns", "transactional"),
  /** Epochal reading the topic with the Kafka opaque spout into a RocksDB OpaqueMap. */
  EPOCHAL_KAFKA_OPAQUE("epochal-kafka-opaque", "Epochal Kafka opaque spout, RocksDB OpaqueMap, epoch", Peer.PLAIN,
      "io.epochal.benchmarks.KafkaRuns", "opaque"),
  /** The spout's share: the Kafka transactional spout into the in-memory state of {@code epochal-mem-tx}. */
  EPOCHAL_KAFKA_MEM_TX("epochal-kafka-mem-tx", "Epochal Kafka transactional spout, in-memory TransactionalMap",
      Peer.PLAIN, "io.epochal.benchmarks.KafkaRuns", "memory"),
  /** The sink's peer: word count, each batch's new counts sent by one plain idempotent producer. */
  KAFKA_SINK_PLAIN("kafka-sink-plain", "plain HashMap loop + idempotent KafkaProducer of each batch's new counts",
      Peer.PLAIN, "io.epochal.benchmarks.KafkaSinkRuns", "plain"),
  /** {@code epochal-rocksdb-tx} with its new counts published by the exactly-once Kafka sink. */
  EPOCHAL_KAFKA_SINK("epochal-kafka-sink", "Epochal RocksDB TransactionalMap, new counts to the EO Kafka sink",
      Peer.PLAIN, "io.epochal.benchmarks.KafkaSinkRuns", "exactlyOnce"),
  /** Storm Trident 2.8.3 in local mode with a transactional spout and a TransactionalMap state. */
  STORM_TX("storm-tx", "Storm Trident 2.8.3, TransactionalMap", Peer.STORM,
      "io.epochal.benchmarks.storm.TridentRun", "transactional"),
  /** Storm Trident 2.8.3 in local mode with an opaque spout and an opaque MemoryMapState. */
  STORM_OPAQUE("storm-opaque", "Storm Trident 2.8.3, opaque MemoryMapState", Peer.STORM,
      "io.epochal.benchmarks.storm.TridentRun", "opaque"),
  /** Flink 2.2 on a MiniCluster, heap state backend, exactly-once checkpoints every second. */
  FLINK_HEAP("flink-heap", "Flink 2.2 MiniCluster, heap backend, EO checkpoints 1 s", Peer.FLINK,
      "io.epochal.benchmarks.flink.FlinkRun", "heap"),
  /** Flink 2.2 on a MiniCluster, RocksDB state backend, exactly-once checkpoints every second. */
  FLINK_ROCKSDB("flink-rocksdb", "Flink 2.2 MiniCluster, RocksDB backend, EO checkpoints 1 s", Peer.FLINK,
      "io.epochal.benchmarks.flink.FlinkRun", "rocksdb"),
  /** The scale run: {@code epochal-rocksdb-tx} over a state prefilled with {@code prefill=} keys. */
  EPOCHAL_ROCKSDB_SCALE("epochal-rocksdb-scale", "Epochal RocksDB, TransactionalMap, prefilled state", Peer.PLAIN,
      "io.epochal.benchmarks.EpochalRuns", "rocksScale");

  /** Which dependencies a child needs (see {@link Classpaths}). */
  public enum Peer {
    /** The benchmarks module's own classpath (Epochal, RocksDB, PostgreSQL, Kafka clients). */
    PLAIN,
    /** The plain classpath plus Storm and its dependencies. */
    STORM,
    /** The plain classpath plus Flink and its dependencies. */
    FLINK
  }

  final String id;
  final String label;
  final Peer peer;
  final String className;
  final String method;

  Variant(String id, String label, Peer peer, String className, String method) {
    this.id = id;
    this.label = label;
    this.peer = peer;
    this.className = className;
    this.method = method;
  }

  /** @return the variant's name on the command line and in result files, such as {@code epochal-rocksdb-tx} */
  public String id() {
    return id;
  }

  /** @return the human-readable description of the variant used in reports and charts */
  public String label() {
    return label;
  }

  /** @return which dependencies the variant's child JVM needs on its classpath */
  public Peer peer() {
    return peer;
  }

  /** @return whether the variant runs on the harness' PostgreSQL server */
  public boolean onPostgres() {
    return this == PG_BARE || this == EPOCHAL_PG_TX || this == EPOCHAL_PG_OPAQUE || this == EPOCHAL_PG_TX_CACHED;
  }

  /** @return whether the variant writes the word count's new counts to a Kafka topic of its own */
  public boolean isKafkaSink() {
    return this == KAFKA_SINK_PLAIN || this == EPOCHAL_KAFKA_SINK;
  }

  /** @return whether the variant uses the harness' Kafka broker (reads its topic, or writes a topic of its own) */
  public boolean onKafka() {
    return this == KAFKA_PLAIN || this == EPOCHAL_KAFKA_TX || this == EPOCHAL_KAFKA_OPAQUE
        || this == EPOCHAL_KAFKA_MEM_TX || this == KAFKA_SINK_PLAIN || this == EPOCHAL_KAFKA_SINK;
  }

  /**
   * Looks a variant up by its {@link #id()}.
   *
   * @param id the variant's command-line name, matched exactly (case-sensitive)
   * @return the variant with that id
   * @throws IllegalArgumentException if no variant has that id; the message lists the known ids
   */
  public static Variant of(String id) {
    return Arrays.stream(values()).filter(v -> v.id.equals(id)).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("unknown variant " + id + "; known: "
            + Arrays.toString(Arrays.stream(values()).map(Variant::id).toArray())));
  }
}
