package io.epochal.spouts.kafka;

import io.epochal.codec.Codecs;
import io.epochal.pipeline.Aggregators;
import io.epochal.pipeline.GroupedStream;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.spout.Spout;
import io.epochal.state.opaque.OpaqueTableLayout;
import io.epochal.state.transactional.TransactionalTableLayout;
import io.epochal.store.table.KeyCodec;
import io.epochal.store.table.Row;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableCheckpointStore;
import io.epochal.store.table.TableStates;
import io.epochal.store.table.TableStore;
import io.epochal.store.table.TableStores;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * A word count over a Kafka spout on a table store with the epoch protocol: values split on spaces, counted into a
 * TransactionalMap table ({@code counts_tx}) and an OpaqueMap table ({@code counts_opaque}). The store survives
 * pipeline rebuilds (a restart).
 */
final class CountWorld implements AutoCloseable {
  static final String TX = "counts_tx";
  static final String OPAQUE = "counts_opaque";

  final TableStore store;
  final TableCheckpointStore checkpoints;

  CountWorld(TableStore store) {
    this.store = store;
    this.checkpoints = TableCheckpointStore.builder(store).owner("test-" + ProcessHandle.current().pid()).build();
  }

  static CountWorld inMemory() {
    return new CountWorld(TableStores.inMemory());
  }

  static List<String> words(KafkaRecord<String, String> r) {
    return r.value().map(v -> Arrays.asList(v.split(" "))).orElse(List.of());
  }

  /** Builds the word-count pipeline over {@code spout}; {@code tweak} adjusts the builder (partitions, threads...). */
  Pipeline pipeline(String name, Spout<KafkaRecord<String, String>, ?> spout, Consumer<PipelineBuilder> tweak) {
    return declare(name, spout, tweak).build();
  }

  /** Declares the word-count pipeline over {@code spout}, not built (for a {@code PipelineService}). */
  PipelineBuilder declare(String name, Spout<KafkaRecord<String, String>, ?> spout, Consumer<PipelineBuilder> tweak) {
    PipelineBuilder b = Pipeline.newBuilder(name).checkpointStore(checkpoints);
    tweak.accept(b);
    GroupedStream<String, String> words = b.source(spout).flatMap(CountWorld::words).groupBy(w -> w);
    words.persistentAggregate(TX, TransactionalTableLayout.factory(
        TableStates.builder(KeyCodec.strings("word"), Codecs.longs())), Aggregators.count());
    words.persistentAggregate(OPAQUE, OpaqueTableLayout.factory(
        TableStates.builder(KeyCodec.strings("word"), Codecs.longs())), Aggregators.count());
    return b;
  }

  /** The committed TransactionalMap counts of pipeline {@code name}. */
  Map<String, Long> counts(String name) {
    return read(store, name + "/" + TX, true);
  }

  /** The committed OpaqueMap counts of pipeline {@code name}. */
  Map<String, Long> opaqueCounts(String name) {
    return read(store, name + "/" + OPAQUE, false);
  }

  static Map<String, Long> read(TableStore store, String path, boolean transactional) {
    Optional<Table> table = store.findTable(path);
    Map<String, Long> out = new HashMap<>();
    if (table.isEmpty()) {
      return out;
    }
    TransactionalTableLayout<Long> tx = new TransactionalTableLayout<>(Codecs.longs(), v -> false);
    OpaqueTableLayout<Long> op = new OpaqueTableLayout<>(Codecs.longs(), v -> false);
    try (StoreTransaction t = store.begin()) {
      for (Row row : t.scan(table.get())) {
        out.put(row.getString("word"), transactional ? tx.read(row).value() : op.read(row).curr());
      }
    }
    return out;
  }

  /** Counts the words of the values of {@code records}. */
  static Map<String, Long> recount(Iterable<String> values) {
    Map<String, Long> out = new HashMap<>();
    for (String v : values) {
      if (v != null) {
        for (String w : v.split(" ")) {
          out.merge(w, 1L, Long::sum);
        }
      }
    }
    return out;
  }

  @Override
  public void close() {
    store.close();
  }

  /**
   * Opens the RocksDB state directory {@code dir} of {@link KafkaWordCountWorker} and checks both count tables
   * against a recount of the records of {@code topic} below the committed offsets of each partition.
   *
   * @param where added to failure messages (a seed, a run number)
   * @return the committed txid
   */
  static long verifyBelowCommittedOffsets(TestBroker broker, java.nio.file.Path dir, String topic, String where) {
    Map<Integer, List<org.apache.kafka.clients.consumer.ConsumerRecord<String, String>>> log = broker.readAll(topic);
    try (io.epochal.store.rocksdb.RocksDbTableStore store = io.epochal.store.rocksdb.RocksDbTableStore.builder(dir)
        .openTimeout(java.time.Duration.ofSeconds(30)).build()) {
      io.epochal.store.Checkpoint cp = TableCheckpointStore.builder(store).owner("kafka-test-checker").build()
          .load(KafkaWordCountWorker.PIPELINE);
      Map<String, OffsetRange> ranges = new HashMap<>();
      if (cp.hasCommitted()) {
        ranges.putAll(io.epochal.spout.PartitionedMetadata.codec(OffsetRange.codec()).decode(cp.committedMetadata())
            .partitions());
      }
      List<String> committed = new java.util.ArrayList<>();
      for (var e : log.entrySet()) {
        OffsetRange r = ranges.get(topic + "-" + e.getKey());
        long to = r == null ? 0 : r.to();
        for (var rec : e.getValue()) {
          if (rec.offset() < to) {
            committed.add(rec.value());
          }
        }
      }
      Map<String, Long> expected = recount(committed);
      String at = " after committed txid " + cp.committedTxid() + " at " + ranges + " (" + where + ")";
      org.junit.jupiter.api.Assertions.assertEquals(expected,
          read(store, KafkaWordCountWorker.PIPELINE + "/" + TX, true), "TransactionalMap counts" + at);
      org.junit.jupiter.api.Assertions.assertEquals(expected,
          read(store, KafkaWordCountWorker.PIPELINE + "/" + OPAQUE, false), "OpaqueMap counts" + at);
      return cp.committedTxid();
    }
  }
}
