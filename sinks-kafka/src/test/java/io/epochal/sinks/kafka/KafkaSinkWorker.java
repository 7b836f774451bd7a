package io.epochal.sinks.kafka;

import io.epochal.pipeline.BatchReport;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineListener;
import io.epochal.pipeline.RetryPolicy;
import io.epochal.store.rocksdb.RocksDbTableStore;
import io.epochal.store.table.TableCheckpointStore;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The pipeline of {@link KafkaSinkCrashIT}, run in a child JVM that the test SIGKILLs: {@link SinkWorld}'s word count
 * over generated sentences on a {@link RocksDbTableStore} (state rows, spout range, txid and the sink's outbox in one
 * RocksDB write per batch), its new counts published by the exactly-once Kafka sink.
 *
 * <p>Arguments: {@code <state dir> <bootstrap> <topic> <seed> <sentences> <batch size>}. Prints {@code READY <txid>}
 * once the pipeline is built (its checkpoint recovered; the sink opens when it runs), {@code C <txid>} after every commit, and
 * {@code DONE <txid>} when the input is exhausted, then exits.
 */
public final class KafkaSinkWorker {
  static final String PIPELINE = "kafka-sink-wc";

  private KafkaSinkWorker() {
  }

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    String bootstrap = args[1];
    String topic = args[2];
    long seed = Long.parseLong(args[3]);
    long sentences = Long.parseLong(args[4]);
    int batch = Integer.parseInt(args[5]);
    try (RocksDbTableStore store = RocksDbTableStore.builder(dir).openTimeout(Duration.ofSeconds(30)).build()) {
      TableCheckpointStore tables = TableCheckpointStore.builder(store).owner("worker-" + ProcessHandle.current().pid())
          .build();
      KafkaSinkConfig<io.epochal.pipeline.KeyValue<String, Long>> cfg = SinkWorld.config(bootstrap, topic, PIPELINE)
          .build();
      try (Pipeline pipeline = SinkWorld.pipeline(PIPELINE, SinkWorld.spout(seed, sentences, batch), tables, tables,
          null, KafkaSinks.exactlyOnce(cfg), b -> b.partitions(3).threads(2).maxBatchesInFlight(2)
              .retryPolicy(new RetryPolicy(50, Duration.ofMillis(20), Duration.ofMillis(500)))
              .listener(new PipelineListener() {
                @Override
                public void onBatchCommitted(BatchReport report) {
                  System.out.println("C " + report.txid());
                }
              }))) {
        System.out.println("READY " + pipeline.lastCommittedTxid());
        pipeline.runUntilIdle();
        System.out.println("DONE " + pipeline.lastCommittedTxid());
      }
    }
  }
}
