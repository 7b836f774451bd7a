package io.epochal.spouts.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.pipeline.BatchReport;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineListener;
import io.epochal.pipeline.RetryPolicy;
import io.epochal.spout.BatchAttempt;
import io.epochal.spout.LagReporting;
import io.epochal.spout.PartitionLag;
import io.epochal.store.rocksdb.RocksDbTableStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The broker node is shut down in the middle of a run and started again on the same port and log directories: the
 * pipeline's batches fail with retryable Kafka errors while it is down, the engine retries them with backoff, and
 * once the broker is back the run finishes with exact counts (RocksDB epoch store, both spout kinds).
 */
class KafkaBrokerRestartIT {
  private static TestBroker broker;

  @TempDir
  Path dir;

  @BeforeAll
  static void startBroker() throws Exception {
    broker = TestBroker.start();
  }

  @AfterAll
  static void stopBroker() throws Exception {
    broker.close();
  }

  @Test
  void aTransactionalPipelineSurvivesABrokerRestartWithExactCounts() throws Exception {
    restartMidRun(false);
  }

  @Test
  void anOpaquePipelineSurvivesABrokerRestartWithExactCounts() throws Exception {
    restartMidRun(true);
  }

  private void restartMidRun(boolean opaque) throws Exception {
    String topic = TestBroker.newTopic(opaque ? "restart-opaque" : "restart-tx");
    broker.createTopic(topic, 4);
    broker.produceSentences(topic, 4, 41, 0, 20_000);
    KafkaSpoutConfig<String, String> cfg = KafkaSpoutConfig.strings("words").bootstrapServers(broker.bootstrap())
        .topics(topic).maxRecordsPerPartition(40).apiTimeout(Duration.ofSeconds(2)).build();
    AtomicLong committed = new AtomicLong();
    AtomicLong failedAttempts = new AtomicLong();
    Path state = dir.resolve(opaque ? "opaque" : "tx");
    var spout = opaque ? KafkaSpouts.opaque(cfg) : KafkaSpouts.transactional(cfg);
    try (RocksDbTableStore store = RocksDbTableStore.builder(state).build();
        CountWorld world = new CountWorld(store);
        Pipeline pipeline = world.pipeline("restart", spout,
            b -> b.partitions(4).threads(2).maxBatchesInFlight(2)
                .retryPolicy(new RetryPolicy(200, Duration.ofMillis(50), Duration.ofMillis(500)))
                .listener(new PipelineListener() {
                  @Override
                  public void onBatchCommitted(BatchReport report) {
                    committed.set(report.txid());
                  }

                  @Override
                  public void onAttemptFailed(BatchAttempt attempt, Throwable error) {
                    failedAttempts.incrementAndGet();
                  }
                }))) {
      CompletableFuture<Void> run = CompletableFuture.runAsync(pipeline::runUntilIdle);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (committed.get() < 10 && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      assertTrue(committed.get() >= 10, "the pipeline got going");
      assertTrue(!run.isDone(), "the broker goes down in the middle of the run");
      long atStop = committed.get();
      broker.stopBroker();
      long stopped = System.nanoTime();
      // the lag report fails within its timeout (a gauge then reads NaN), and does not disturb the pipeline
      assertThrows(KafkaSpoutException.class, () -> ((LagReporting) spout).sourceLag());
      Thread.sleep(Math.max(0, 3000 - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stopped)));
      broker.startBroker();
      run.get(180, TimeUnit.SECONDS);
      for (PartitionLag lag : ((LagReporting) spout).sourceLag().values()) {
        assertEquals(0, lag.lag(), "drained once the broker is back: " + lag);
      }
      assertEquals(CountWorld.recount(broker.values(topic)), world.counts("restart"));
      assertEquals(CountWorld.recount(broker.values(topic)), world.opaqueCounts("restart"));
      assertTrue(failedAttempts.get() > 0, "attempts failed while the broker was down");
      System.out.printf("KafkaBrokerRestartIT %s: broker restarted after txid %d, %d failed attempts, %d batches%n",
          opaque ? "opaque" : "transactional", atStop, failedAttempts.get(), pipeline.lastCommittedTxid());
    }
  }
}
