package io.epochal.benchmarks;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Settings of one harness run. */
final class E2ESettings {
  long sentences = 1_000_000;
  int rounds = 3;
  List<Variant> variants = new ArrayList<>(Arrays.asList(Variant.RAW, Variant.ROCKSDB_BARE,
      Variant.EPOCHAL_MEM_TX, Variant.EPOCHAL_MEM_OPAQUE, Variant.EPOCHAL_ROCKSDB_TX,
      Variant.EPOCHAL_ROCKSDB_OPAQUE, Variant.EPOCHAL_ROCKSDB_TX_ALO, Variant.EPOCHAL_ROCKSDB_TX_AMO,
      Variant.EPOCHAL_ROCKSDB_OPAQUE_ALO, Variant.EPOCHAL_ROCKSDB_OPAQUE_AMO, Variant.PG_BARE, Variant.EPOCHAL_PG_TX, Variant.EPOCHAL_PG_OPAQUE,
      Variant.EPOCHAL_PG_TX_CACHED,
      Variant.KAFKA_PLAIN, Variant.EPOCHAL_KAFKA_TX, Variant.EPOCHAL_KAFKA_OPAQUE, Variant.EPOCHAL_KAFKA_MEM_TX,
      Variant.KAFKA_SINK_PLAIN, Variant.EPOCHAL_KAFKA_SINK,
      Variant.STORM_TX, Variant.STORM_OPAQUE, Variant.FLINK_HEAP, Variant.FLINK_ROCKSDB));
  int threads = 2;
  int partitions = 2;
  int inflight = 2;
  int batch = 10_000;
  String xmx = "2g";
  /** Null: the default, which depends on the variants (see {@link #scaleKeys()}). */
  Long scaleKeys;
  String scaleXmx = "512m";
  /** Null: the default, which depends on the variants (see {@link #latencyBatches()}). */
  List<Integer> latencyBatches;
  String jdbcUrl;
  String jdbcUser = "postgres";
  /** The Kafka variants' broker; null: one started in the harness' JVM. */
  String kafkaBootstrap;
  int kafkaPartitions = 4;
  List<String> jvmArgs = new ArrayList<>();
  Path out = Path.of("target", "e2e");
  Path chart;
  boolean groupPeers;

  /** The latency and scale runs measure epochal-rocksdb-tx: by default only when it is among the variants. */
  private boolean rocksTxSelected() {
    return variants.contains(Variant.EPOCHAL_ROCKSDB_TX);
  }

  long scaleKeys() {
    return scaleKeys != null ? scaleKeys : rocksTxSelected() ? 10_000_000 : 0;
  }

  List<Integer> latencyBatches() {
    return latencyBatches != null ? latencyBatches
        : rocksTxSelected() ? List.of(1_000, 10_000, 100_000) : List.of();
  }

  boolean needsKafka() {
    return variants.stream().anyMatch(Variant::onKafka);
  }

  boolean needsPostgres() {
    return variants.stream().anyMatch(Variant::onPostgres);
  }

  static E2ESettings parse(String[] args) {
    E2ESettings s = new E2ESettings();
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      String v = i + 1 < args.length ? args[i + 1] : null;
      switch (a) {
        case "--sentences" -> s.sentences = Long.parseLong(v.replace("_", "").replace(",", ""));
        case "--rounds" -> s.rounds = Integer.parseInt(v);
        case "--variants" -> s.variants = Arrays.stream(v.split(",")).map(Variant::of).toList();
        case "--threads" -> s.threads = Integer.parseInt(v);
        case "--partitions" -> s.partitions = Integer.parseInt(v);
        case "--inflight" -> s.inflight = Integer.parseInt(v);
        case "--batch" -> s.batch = Integer.parseInt(v);
        case "--xmx" -> s.xmx = v;
        case "--scale-keys" -> s.scaleKeys = Long.parseLong(v.replace("_", "").replace(",", ""));
        case "--scale-xmx" -> s.scaleXmx = v;
        case "--latency-batches" -> s.latencyBatches = v.isBlank() || v.equals("none") ? List.of()
            : Arrays.stream(v.split(",")).map(Integer::parseInt).toList();
        case "--jvm-arg" -> s.jvmArgs.add(v);
        case "--jdbc-url" -> s.jdbcUrl = v;
        case "--jdbc-user" -> s.jdbcUser = v;
        case "--kafka-bootstrap" -> s.kafkaBootstrap = v;
        case "--kafka-partitions" -> s.kafkaPartitions = Integer.parseInt(v);
        case "--out" -> s.out = Path.of(v);
        case "--chart" -> s.chart = Path.of(v);
        case "--group-peers" -> {
          s.groupPeers = true;
          i--;
        }
        default -> throw new IllegalArgumentException("unknown argument " + a + " (see the E2E javadoc)");
      }
      i++;
    }
    return s;
  }
}
