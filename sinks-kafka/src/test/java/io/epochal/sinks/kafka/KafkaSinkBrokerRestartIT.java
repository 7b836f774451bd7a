package io.epochal.sinks.kafka;

import io.epochal.spouts.kafka.TestBroker;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.pipeline.BatchReport;
import io.epochal.pipeline.KeyValue;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineListener;
import io.epochal.pipeline.RetryPolicy;
import io.epochal.store.table.TableCheckpointStore;
import io.epochal.store.table.TableStore;
import io.epochal.store.table.TableStores;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The broker node is shut down in the middle of a run with the Kafka sink and started again on the same port and log
 * directories: the sink's transactions fail while it is down and are retried within the publish timeout (aborted,
 * or settled by a new producer that reads the marker first), and a read_committed consumer then reads every output
 * exactly once.
 */
class KafkaSinkBrokerRestartIT {
  private static TestBroker broker;

  @BeforeAll
  static void startBroker() throws Exception {
    broker = TestBroker.start();
  }

  @AfterAll
  static void stopBroker() throws Exception {
    broker.close();
  }

  @Test
  void everyOutputIsReadExactlyOnceAfterABrokerRestartMidRun() throws Exception {
    String topic = TestBroker.newTopic("sink-restart");
    broker.createTopic(topic, 4);
    long sentences = 20_000;
    int batch = 50;
    KafkaSinkConfig<KeyValue<String, Long>> cfg = SinkWorld.config(broker.bootstrap(), topic, "restart").build();
    AtomicLong committed = new AtomicLong();
    TableStore store = TableStores.inMemory();
    TableCheckpointStore tables = TableCheckpointStore.builder(store).owner("w").build();
    long atStop;
    try (Pipeline pipeline = SinkWorld.pipeline("restart", SinkWorld.spout(5, sentences, batch), tables, tables, null,
        KafkaSinks.exactlyOnce(cfg), b -> b.partitions(3).threads(2).maxBatchesInFlight(2)
            .retryPolicy(new RetryPolicy(50, java.time.Duration.ofMillis(50), java.time.Duration.ofMillis(500)))
            .listener(new PipelineListener() {
              @Override
              public void onBatchCommitted(BatchReport report) {
                committed.set(report.txid());
              }
            }))) {
      CompletableFuture<Void> run = CompletableFuture.runAsync(pipeline::runUntilIdle);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (committed.get() < 10 && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      assertTrue(committed.get() >= 10, "the pipeline got going");
      assertFalse(run.isDone(), "the broker goes down in the middle of the run");
      atStop = committed.get();
      broker.stopBroker();
      Thread.sleep(3000);
      broker.startBroker();
      run.get(180, TimeUnit.SECONDS);
      assertEquals(sentences / batch, pipeline.lastCommittedTxid());
    }
    List<String> expected = SinkWorld.all(SinkWorld.expected(5, sentences, batch));
    List<String> read = SinkWorld.published(broker, topic);
    SinkWorld.assertExactlyOnce(expected, read, "read_committed consumer");
    System.out.printf("KafkaSinkBrokerRestartIT: broker stopped after txid %d for 3 s, %d batches, %d outputs read"
        + " exactly once%n", atStop, sentences / batch, read.size());
  }
}
