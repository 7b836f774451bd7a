package io.epochal.spouts.kafka;

import io.epochal.pipeline.BatchReport;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.PipelineListener;
import io.epochal.pipeline.PipelineService;
import io.epochal.pipeline.RestartPolicy;
import io.epochal.pipeline.RetryPolicy;
import io.epochal.spout.Spout;
import io.epochal.store.rocksdb.RocksDbTableStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * The word count of {@link KafkaCrashIT}, run in a child JVM that the test SIGKILLs: a Kafka spout over a
 * 4-partition topic, words counted into a TransactionalMap and an OpaqueMap table of one {@link RocksDbTableStore}
 * on the epoch protocol (state rows, offset ranges and txid in one RocksDB write per batch).
 *
 * <p>Arguments: {@code <state dir> <bootstrap> <topic> <transactional|opaque> <cap> <follow|drain|service>}.
 * Prints {@code READY <txid>} once the pipeline is built (recovered) and {@code C <txid>} after every commit.
 * {@code follow} keeps running as records arrive, until killed; {@code drain} runs until idle, prints
 * {@code DONE <txid>} and exits; {@code service} runs the pipeline in a {@link PipelineService} stopped by SIGTERM
 * ({@link PipelineService#stopOnShutdown()}), printing {@code READY} when it runs.
 */
public final class KafkaWordCountWorker {
  static final String PIPELINE = "kafka-wc";

  private KafkaWordCountWorker() {
  }

  static Spout<KafkaRecord<String, String>, ?> spout(String bootstrap, String topic, boolean opaque, int cap) {
    KafkaSpoutConfig<String, String> cfg = KafkaSpoutConfig.strings("words").bootstrapServers(bootstrap)
        .topics(topic).maxRecordsPerPartition(cap).apiTimeout(Duration.ofSeconds(10)).build();
    return opaque ? KafkaSpouts.opaque(cfg) : KafkaSpouts.transactional(cfg);
  }

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    String bootstrap = args[1];
    String topic = args[2];
    boolean opaque = args[3].equals("opaque");
    int cap = Integer.parseInt(args[4]);
    boolean follow = args[5].equals("follow");
    Consumer<PipelineBuilder> settings = b -> b.partitions(4).threads(2).maxBatchesInFlight(2)
        .retryPolicy(new RetryPolicy(50, Duration.ofMillis(20), Duration.ofMillis(500)))
        .listener(new PipelineListener() {
          @Override
          public void onBatchCommitted(BatchReport report) {
            System.out.println("C " + report.txid());
          }
        });
    if (args[5].equals("service")) {
      serve(dir, () -> spout(bootstrap, topic, opaque, cap), settings);
      return;
    }
    try (RocksDbTableStore store = RocksDbTableStore.builder(dir).openTimeout(Duration.ofSeconds(30)).build();
        CountWorld world = new CountWorld(store);
        Pipeline pipeline = world.pipeline(PIPELINE, spout(bootstrap, topic, opaque, cap), settings)) {
      System.out.println("READY " + pipeline.lastCommittedTxid());
      do {
        pipeline.runUntilIdle();
        if (follow) {
          Thread.sleep(20);
        }
      } while (follow);
      System.out.println("DONE " + pipeline.lastCommittedTxid());
    }
  }

  /** Runs the word count as a service until SIGTERM; the service thread ends after the batch being committed. */
  private static void serve(Path dir, java.util.function.Supplier<Spout<KafkaRecord<String, String>, ?>> spouts,
      Consumer<PipelineBuilder> settings) throws InterruptedException {
    RocksDbTableStore store = RocksDbTableStore.builder(dir).openTimeout(Duration.ofSeconds(30)).build();
    CountWorld world = new CountWorld(store);
    PipelineService service = PipelineService.builder(PIPELINE, () -> world.declare(PIPELINE, spouts.get(), settings))
        .idleWait(Duration.ofMillis(20)).restartPolicy(RestartPolicy.defaults()).build();
    service.stopOnShutdown().start();
    while (!service.health().ready() && service.health().live()) {
      Thread.sleep(5);
    }
    System.out.println("READY " + service.health().lastCommittedTxid());
    // The JVM exits when the shutdown hook (the graceful stop) returns; the store is not closed (a crash to RocksDB).
    service.awaitTermination(Duration.ofDays(1));
  }
}
