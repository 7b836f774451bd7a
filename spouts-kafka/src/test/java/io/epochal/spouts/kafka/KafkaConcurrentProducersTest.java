package io.epochal.spouts.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.pipeline.Pipeline;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Producers append while the pipeline runs: two idempotent producers and a transactional one that aborts every third
 * transaction. The pipeline follows the topic the whole time; after the producers stop, a final drain, and the
 * counts equal a recount of the topic (read_committed).
 */
class KafkaConcurrentProducersTest {
  @RegisterExtension
  static final TestBroker.Use BROKER = new TestBroker.Use();
  private static TestBroker broker;

  @BeforeAll
  static void startBroker() {
    broker = BROKER.get();
  }

  @Test
  void theTransactionalSpoutFollowingAppendingProducersCountsExactly() throws Exception {
    followAndDrain(false);
  }

  @Test
  void theOpaqueSpoutFollowingAppendingProducersCountsExactly() throws Exception {
    followAndDrain(true);
  }

  private void followAndDrain(boolean opaque) throws Exception {
    String topic = TestBroker.newTopic(opaque ? "appending-opaque" : "appending-tx");
    broker.createTopic(topic, 4);
    KafkaSpoutConfig<String, String> cfg = KafkaSpoutConfig.strings("words").bootstrapServers(broker.bootstrap())
        .topics(topic).maxRecordsPerPartition(50).apiTimeout(Duration.ofSeconds(10)).build();
    try (CountWorld world = CountWorld.inMemory();
        Pipeline pipeline = world.pipeline("follow", opaque ? KafkaSpouts.opaque(cfg) : KafkaSpouts.transactional(cfg),
            b -> b.partitions(4).threads(2).maxBatchesInFlight(2))) {
      AtomicBoolean following = new AtomicBoolean(true);
      CompletableFuture<Void> follower = CompletableFuture.runAsync(() -> {
        while (following.get()) {
          pipeline.runUntilIdle();
          try {
            Thread.sleep(5);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
          }
        }
      });
      List<CompletableFuture<Void>> producers = new ArrayList<>();
      for (int n = 0; n < 2; n++) {
        int id = n;
        producers.add(CompletableFuture.runAsync(() -> {
          try (KafkaProducer<String, String> p = broker.producer()) {
            for (int burst = 0; burst < 30; burst++) {
              for (int i = 0; i < 50; i++) {
                long k = id * 1_000_000L + burst * 50L + i;
                p.send(new ProducerRecord<>(topic, (int) (k % 4), null, TestBroker.sentence(51 + id, k)));
              }
              p.flush();
              Thread.sleep(20);
            }
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        }));
      }
      producers.add(CompletableFuture.runAsync(() -> {
        try (KafkaProducer<String, String> tx = broker.producer(Map.of("transactional.id", "appending-" + topic))) {
          tx.initTransactions();
          for (int t = 0; t < 30; t++) {
            tx.beginTransaction();
            for (int i = 0; i < 20; i++) {
              tx.send(new ProducerRecord<>(topic, (t + i) % 4, null, (t % 3 == 2 ? "aborted " : "")
                  + TestBroker.sentence(53, t * 20L + i)));
            }
            if (t % 3 == 2) {
              tx.flush();
              tx.abortTransaction();
            } else {
              tx.commitTransaction();
            }
            Thread.sleep(15);
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }));
      CompletableFuture.allOf(producers.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
      long whileProducing = pipeline.lastCommittedTxid();
      following.set(false);
      follower.get(60, TimeUnit.SECONDS);
      broker.awaitTransactionsSettled(topic); // the last commit's markers may still be on their way
      pipeline.runUntilIdle(); // the final drain
      List<String> values = broker.values(topic);
      assertEquals(2 * 30 * 50 + 20 * 20, values.size());
      assertTrue(values.stream().noneMatch(v -> v.startsWith("aborted")));
      assertTrue(whileProducing > 5, "batches were committed while the producers appended: " + whileProducing);
      assertEquals(CountWorld.recount(values), world.counts("follow"));
      assertEquals(CountWorld.recount(values), world.opaqueCounts("follow"));
    }
  }
}
