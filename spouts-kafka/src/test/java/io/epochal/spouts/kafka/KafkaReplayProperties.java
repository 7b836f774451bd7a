package io.epochal.spouts.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.epochal.codec.Codecs;
import io.epochal.pipeline.Aggregators;
import io.epochal.pipeline.GroupedStream;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.RetryPolicy;
import io.epochal.spout.Spout;
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
import io.epochal.testing.TriesScale;
import io.epochal.testkit.Fault;
import io.epochal.testkit.FaultInjector;
import io.epochal.testkit.Parallelism;
import io.epochal.testkit.ReplayArbitraries;
import io.epochal.testkit.ReplayHarness;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import net.jqwik.api.lifecycle.BeforeContainer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Replay properties of the Kafka spouts against the real broker, through the testkit's fault points: generated
 * failure schedules (a retryable failure or a process crash with restart, at every point of the protocol: after
 * emission, before and inside state writes, after them, inside and during the checkpoint commit), parallelism and
 * per-partition caps, over a plain topic and one with aborted transactions. Each crash builds a new spout (a new
 * consumer), as a restarted process would. The final counts must equal a recount of the topic.
 *
 * <p>Each try runs a pipeline against the broker, so the tries are fixed here (not {@code epochal.tries}), times
 * {@code epochal.tries.scale} (a quarter in the default build). The broker is the JVM's shared one.
 */
@AddLifecycleHook(TriesScale.class) // a share of the tries by default: -Depochal.tries.scale=1 runs all
class KafkaReplayProperties {
  private static final AtomicInteger RUNS = new AtomicInteger();
  private static TestBroker broker;
  private static String plain;
  private static String aborted;
  private static final Map<String, Map<String, Long>> RECOUNTS = new HashMap<>();

  @BeforeContainer
  static void start() throws Exception {
    broker = TestBroker.shared();
    plain = TestBroker.newTopic("replay-plain");
    broker.createTopic(plain, 4);
    broker.produceSentences(plain, 4, 31, 0, 240);
    aborted = TestBroker.newTopic("replay-aborted");
    broker.createTopic(aborted, 2);
    try (KafkaProducer<String, String> tx = broker.producer(Map.of("transactional.id", "replay-aborting"))) {
      tx.initTransactions();
      for (int round = 0; round < 12; round++) {
        tx.beginTransaction();
        for (int i = 0; i < 7; i++) {
          tx.send(new ProducerRecord<>(aborted, (round + i) % 2, null, TestBroker.sentence(32, round * 10 + i)));
        }
        if (round % 3 == 1) {
          tx.flush();
          tx.abortTransaction();
        } else {
          tx.commitTransaction();
        }
      }
    }
    broker.awaitTransactionsSettled(aborted);
    RECOUNTS.put(plain, CountWorld.recount(broker.values(plain)));
    RECOUNTS.put(aborted, CountWorld.recount(broker.values(aborted)));
  }

  @Property(tries = 30)
  void theTransactionalSpoutIsExactlyOnceUnderFaultsOnBothProtocols(@ForAll("faults") List<Fault> faults,
      @ForAll("parallelism") Parallelism par, @ForAll @IntRange(min = 1, max = 40) int cap,
      @ForAll boolean abortedTopic, @ForAll boolean perKey) {
    String topic = abortedTopic ? aborted : plain;
    assertEquals(RECOUNTS.get(topic), run(false, topic, faults, par, cap, perKey),
        "faults " + faults + ", " + par + ", cap " + cap + (perKey ? ", per-key protocol" : ", epoch protocol"));
  }

  @Property(tries = 30)
  void theOpaqueSpoutIsExactlyOnceUnderFaultsOnTheEpochProtocol(@ForAll("faults") List<Fault> faults,
      @ForAll("parallelism") Parallelism par, @ForAll @IntRange(min = 1, max = 40) int cap,
      @ForAll boolean abortedTopic) {
    String topic = abortedTopic ? aborted : plain;
    assertEquals(RECOUNTS.get(topic), run(true, topic, faults, par, cap, false),
        "faults " + faults + ", " + par + ", cap " + cap);
  }

  @Provide
  Arbitrary<List<Fault>> faults() {
    return ReplayArbitraries.faultSchedules(12, 5);
  }

  @Provide
  Arbitrary<Parallelism> parallelism() {
    return ReplayArbitraries.parallelism(3, 3, 2);
  }

  private Map<String, Long> run(boolean opaque, String topic, List<Fault> faults, Parallelism par, int cap,
      boolean perKey) {
    String name = "replay-" + RUNS.incrementAndGet();
    FaultInjector injector = new FaultInjector(faults);
    TableStore store = TableStores.inMemoryBuilder().commitHook(injector.commitHook()).build();
    InMemoryCheckpointStore perKeyCheckpoints = new InMemoryCheckpointStore();
    InMemoryBackingMap<String, TransactionalValue<Long>> perKeyCells = new InMemoryBackingMap<>("cells");
    KafkaSpoutConfig<String, String> cfg = KafkaSpoutConfig.strings("words").bootstrapServers(broker.bootstrap())
        .topics(topic).maxRecordsPerPartition(cap).apiTimeout(Duration.ofSeconds(10)).build();
    try {
      ReplayHarness.runToEnd(incarnation -> {
        Spout<KafkaRecord<String, String>, ?> spout = opaque ? injector.wrap(KafkaSpouts.opaque(cfg))
            : injector.wrap(KafkaSpouts.transactional(cfg));
        PipelineBuilder b = Pipeline.newBuilder(name).partitions(par.partitions()).threads(par.threads())
            .maxBatchesInFlight(par.maxBatchesInFlight())
            .retryPolicy(new RetryPolicy(20, Duration.ZERO, Duration.ZERO));
        StateFactory<MapState<String, Long>> counts;
        if (perKey) {
          b.checkpointStore(injector.wrap(perKeyCheckpoints));
          counts = TransactionalMap.factory(injector.wrap(perKeyCells));
        } else {
          TableCheckpointStore checkpoints = TableCheckpointStore.builder(store).owner("worker-" + incarnation).build();
          b.checkpointStore(injector.wrap(checkpoints));
          counts = TransactionalTableLayout.factory(TableStates.builder(KeyCodec.strings("word"),
              Codecs.longs()).layer(injector.layer()));
        }
        GroupedStream<String, String> words = b.source(spout).flatMap(CountWorld::words).groupBy(w -> w);
        words.persistentAggregate("counts", counts, Aggregators.count());
        return b.build();
      }, 20);
      if (perKey) {
        Map<String, Long> out = new HashMap<>();
        perKeyCells.snapshot().forEach((k, v) -> out.put(k, v.value()));
        return out;
      }
      return CountWorld.read(store, name + "/counts", true);
    } finally {
      store.close();
    }
  }
}
