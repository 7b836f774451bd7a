package io.epochal.sinks.kafka;

import io.epochal.spouts.kafka.TestBroker;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.epochal.pipeline.RetryPolicy;
import io.epochal.store.table.TableCheckpointStore;
import io.epochal.store.table.TableStore;
import io.epochal.store.table.TableStores;
import io.epochal.testkit.Fault;
import io.epochal.testkit.FaultInjector;
import io.epochal.testkit.Parallelism;
import io.epochal.testkit.ReplayArbitraries;
import io.epochal.testkit.ReplayHarness;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * The word count with the Kafka sink under random schedules of the testkit's faults (failed and crashed attempts
 * around the state writes and the checkpoint commit, a commit that lands but whose call fails, zombies whose lease
 * was taken; each crash rebuilds the pipeline, its sink and producers over the same stores): a read_committed
 * consumer of the sink topic reads exactly the outputs of every batch, once. Tries: 8 (each creates a topic and runs
 * Kafka transactions against the real broker).
 */
class KafkaSinkReplayProperties {
  private static final long SENTENCES = 1200;
  private static final int BATCH = 100;
  private static final List<String> EXPECTED = SinkWorld.all(SinkWorld.expected(11, SENTENCES, BATCH));
  private static final AtomicInteger RUNS = new AtomicInteger();
  private static TestBroker broker;

  @BeforeContainer
  static void start() throws Exception {
    broker = TestBroker.shared();
  }

  @Property(tries = 8)
  void everyOutputIsPublishedExactlyOnceUnderRandomFaults(@ForAll("faults") List<Fault> faults,
      @ForAll("parallelism") Parallelism par) throws Exception {
    String name = "replay-" + RUNS.incrementAndGet();
    String topic = TestBroker.newTopic("sink-replay");
    broker.createTopic(topic, 2);
    FaultInjector injector = new FaultInjector(faults);
    TableStore store = TableStores.inMemoryBuilder().commitHook(injector.commitHook()).build();
    KafkaSinkConfig<io.epochal.pipeline.KeyValue<String, Long>> cfg = SinkWorld.config(broker.bootstrap(), topic,
        name).build();
    try {
      ReplayHarness.runToEnd(incarnation -> {
        TableCheckpointStore tables = TableCheckpointStore.builder(injector.withLeaseFaults(store))
            .owner("worker-" + incarnation).build();
        return SinkWorld.pipeline(name, injector.wrap(SinkWorld.spout(11, SENTENCES, BATCH)), tables,
            injector.wrap(tables), injector.layer(), KafkaSinks.exactlyOnce(cfg),
            b -> b.partitions(par.partitions()).threads(par.threads()).maxBatchesInFlight(par.maxBatchesInFlight())
                .retryPolicy(new RetryPolicy(20, Duration.ZERO, Duration.ZERO)));
      }, 30);
    } finally {
      store.close();
    }
    List<String> read = SinkWorld.published(broker, topic);
    SinkWorld.assertExactlyOnce(EXPECTED, read, "faults " + faults + " fired " + injector.fired() + ", " + par);
    assertEquals(List.of(), injector.fencingViolations());
  }

  @Provide
  Arbitrary<List<Fault>> faults() {
    return ReplayArbitraries.faultSchedules(12, 5);
  }

  @Provide
  Arbitrary<Parallelism> parallelism() {
    return ReplayArbitraries.parallelism(3, 3, 2);
  }
}
