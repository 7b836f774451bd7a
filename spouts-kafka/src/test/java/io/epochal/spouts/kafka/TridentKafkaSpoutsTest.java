package io.epochal.spouts.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.codec.Codecs;
import io.epochal.pipeline.Aggregators;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.RetryPolicy;
import io.epochal.spout.OpaqueSpout;
import io.epochal.spout.Spout;
import io.epochal.spout.TransactionalSpout;
import io.epochal.state.InMemoryBackingMap;
import io.epochal.state.MapState;
import io.epochal.state.StateFactory;
import io.epochal.state.transactional.TransactionalMap;
import io.epochal.state.transactional.TransactionalTableLayout;
import io.epochal.state.transactional.TransactionalValue;
import io.epochal.store.InMemoryCheckpointStore;
import io.epochal.store.table.KeyCodec;
import io.epochal.store.table.TableCheckpointStore;
import io.epochal.store.table.TableStates;
import io.epochal.store.table.TableStore;
import io.epochal.store.table.TableStores;
import io.epochal.testkit.Fault;
import io.epochal.testkit.FaultInjector;
import io.epochal.testkit.FaultPoint;
import io.epochal.testkit.ReplayHarness;
import io.epochal.trident.EpochalTrident;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.storm.kafka.spout.trident.KafkaTridentSpoutConfig;
import org.apache.storm.kafka.spout.trident.KafkaTridentSpoutOpaque;
import org.apache.storm.kafka.spout.trident.KafkaTridentSpoutTransactional;
import org.apache.storm.trident.tuple.TridentTuple;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Trident users' own Kafka spouts, unchanged: storm-kafka-client's {@code KafkaTridentSpoutOpaque} and
 * {@code KafkaTridentSpoutTransactional} run through {@link EpochalTrident#spout} against the real broker, with
 * injected retryable failures and process crashes at every fault point of the testkit (a crash builds a new Trident
 * spout, as a restarted worker would), and must count exactly. The opaque one runs on the epoch protocol (Epochal
 * refuses it with a per-key OpaqueMap), the transactional one on both protocols.
 */
class TridentKafkaSpoutsTest {
  @RegisterExtension
  static final TestBroker.Use BROKER = new TestBroker.Use();
  private static final AtomicInteger RUNS = new AtomicInteger();
  private static TestBroker broker;
  private static String topic;
  private static Map<String, Long> recount;

  /** Every point, retryable and crash, spread over the first batches. */
  static final List<Fault> FAULTS = List.of(
      Fault.fail(FaultPoint.AFTER_EMIT, 1), Fault.crash(FaultPoint.AFTER_EMIT, 2),
      Fault.fail(FaultPoint.BEFORE_STATE_WRITE, 3), Fault.crash(FaultPoint.INSIDE_MULTIPUT, 4).withPrefix(2),
      Fault.fail(FaultPoint.AFTER_STATE_WRITES, 5), Fault.crash(FaultPoint.AFTER_STATE_WRITES, 6),
      Fault.fail(FaultPoint.INSIDE_CHECKPOINT_COMMIT, 7).withPrefix(1),
      Fault.crash(FaultPoint.INSIDE_CHECKPOINT_COMMIT, 8), Fault.crash(FaultPoint.DURING_CHECKPOINT_COMMIT, 10),
      Fault.crash(FaultPoint.BEFORE_STATE_WRITE, 11), Fault.fail(FaultPoint.INSIDE_MULTIPUT, 12).withPrefix(1),
      Fault.fail(FaultPoint.DURING_CHECKPOINT_COMMIT, 14));

  @BeforeAll
  static void fillTopic() throws Exception {
    broker = BROKER.get();
    topic = TestBroker.newTopic("trident");
    broker.createTopic(topic, 4);
    broker.produceSentences(topic, 4, 61, 0, 1200);
    try (KafkaProducer<String, String> tx = broker.producer(Map.of("transactional.id", "trident-" + topic))) {
      tx.initTransactions();
      tx.beginTransaction();
      tx.send(new ProducerRecord<>(topic, 0, null, "aborted by the producer"));
      tx.flush();
      tx.abortTransaction();
    }
    broker.awaitTransactionsSettled(topic);
    recount = CountWorld.recount(broker.values(topic));
  }

  static KafkaTridentSpoutConfig<String, String> tridentConfig() {
    return KafkaTridentSpoutConfig.builder(broker.bootstrap(), topic)
        .setProp("isolation.level", "read_committed")
        .setProp("max.poll.records", 25)
        .build();
  }

  @Test
  void kafkaTridentSpoutOpaqueIsExactlyOnceUnderFaultsOnTheEpochProtocol() {
    assertEquals(recount, run(() -> EpochalTrident.spout("kafka", new KafkaTridentSpoutOpaque<>(tridentConfig())),
        false));
  }

  @Test
  void kafkaTridentSpoutTransactionalIsExactlyOnceUnderFaultsOnTheEpochProtocol() {
    assertEquals(recount, run(() -> EpochalTrident.spout("kafka",
        new KafkaTridentSpoutTransactional<>(tridentConfig())), false));
  }

  @Test
  void kafkaTridentSpoutTransactionalIsExactlyOnceUnderFaultsOnThePerKeyProtocol() {
    assertEquals(recount, run(() -> EpochalTrident.spout("kafka",
        new KafkaTridentSpoutTransactional<>(tridentConfig())), true));
  }

  /**
   * Runs the pipeline through the faults until the topic is consumed. Storm's Kafka Trident emitters poll once per
   * batch, so a poll that returns nothing in time (a new consumer after a restart) makes an empty batch, which looks
   * idle: the run is repeated (a new incarnation over the same stores) until every word is counted or 30 rounds.
   */
  private Map<String, Long> run(java.util.function.Supplier<Spout<TridentTuple, ?>> spouts, boolean perKey) {
    String name = "trident-" + RUNS.incrementAndGet();
    FaultInjector injector = new FaultInjector(new ArrayList<>(FAULTS));
    TableStore store = perKey ? null : TableStores.inMemoryBuilder().commitHook(injector.commitHook()).build();
    InMemoryCheckpointStore perKeyCheckpoints = new InMemoryCheckpointStore();
    InMemoryBackingMap<String, TransactionalValue<Long>> cells = new InMemoryBackingMap<>("cells");
    long expectedWords = recount.values().stream().mapToLong(Long::longValue).sum();
    AtomicInteger incarnations = new AtomicInteger();
    try {
      Map<String, Long> counts = Map.of();
      long restarts = 0;
      for (int round = 0; round < 30; round++) {
        ReplayHarness.Outcome outcome = ReplayHarness.runToEnd(ignored -> {
          int incarnation = incarnations.getAndIncrement();
          Spout<TridentTuple, ?> spout = wrap(injector, spouts.get());
          PipelineBuilder b = Pipeline.newBuilder(name).partitions(3).threads(2).maxBatchesInFlight(2)
              .retryPolicy(new RetryPolicy(20, Duration.ZERO, Duration.ZERO));
          StateFactory<MapState<String, Long>> state;
          if (perKey) {
            b.checkpointStore(injector.wrap(perKeyCheckpoints));
            state = TransactionalMap.factory(injector.wrap(cells));
          } else {
            TableCheckpointStore checkpoints = TableCheckpointStore.builder(store).owner("worker-" + incarnation)
                .build();
            b.checkpointStore(injector.wrap(checkpoints));
            state = TransactionalTableLayout.factory(TableStates.builder(KeyCodec.strings("word"),
                Codecs.longs()).layer(injector.layer()));
          }
          b.source(spout) // the wrapped spout is no longer EpochalTrident's, but its tuples keep their fields
              .flatMap(t -> Arrays.asList(t.getStringByField("value").split(" ")))
              .groupBy(w -> w)
              .persistentAggregate("counts", state, Aggregators.count());
          return b.build();
        }, 20);
        restarts += outcome.restarts();
        if (perKey) {
          Map<String, Long> out = new HashMap<>();
          cells.snapshot().forEach((k, v) -> out.put(k, v.value()));
          counts = out;
        } else {
          counts = CountWorld.read(store, name + "/counts", true);
        }
        if (counts.values().stream().mapToLong(Long::longValue).sum() >= expectedWords) {
          break;
        }
      }
      assertEquals(List.of(), injector.unfired(), "every fault fired");
      assertTrue(restarts >= 5, "the crashes restarted the pipeline: " + restarts);
      return counts;
    } finally {
      if (store != null) {
        store.close();
      }
    }
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static Spout<TridentTuple, ?> wrap(FaultInjector injector, Spout<TridentTuple, ?> spout) {
    if (spout instanceof OpaqueSpout opaque) {
      return injector.wrap((OpaqueSpout<TridentTuple, Object>) opaque);
    }
    return injector.wrap((TransactionalSpout<TridentTuple, Object>) spout);
  }
}
