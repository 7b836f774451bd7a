package io.epochal.flow;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.epochal.codec.Codecs;
import io.epochal.flow.EventScript.Ev;
import io.epochal.flow.FlowTesting.ListSpout;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.RetryPolicy;
import io.epochal.sink.CollectingSink;
import io.epochal.store.table.Row;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.TableCheckpointStore;
import io.epochal.store.table.TableStore;
import io.epochal.store.table.TableStores;
import io.epochal.testkit.Fault;
import io.epochal.testkit.FaultInjector;
import io.epochal.testkit.FaultPoint;
import io.epochal.testkit.ReplayArbitraries;
import io.epochal.testkit.ReplayHarness;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.statistics.Statistics;

/**
 * State TTL under the testkit's fault schedules: random writes, clears and reads of a few keys over random batches,
 * TTLs, expiration bounds, partitions and batches in flight, in processing time (clock {@code 10 * txid}) or event
 * time (a watermark from the records' timestamps); failures and crash-restarts after the state writes, inside and
 * during the checkpoint commit (so expirations fire in attempts that fail, and restarts fall between a write and its
 * expiration). The committed outputs per txid (what every read saw), the final state rows, the deadlines and the
 * pending expiration timers equal those of the same input run without failures. A second computation {@code j}
 * ({@link JoinReader}) reads the state through a joiner on the same {@code get} commands (its cache's clock jumps past
 * the joiner's cache TTL at every reading, so that it serves nothing stale): its outputs per txid equal the failure-free
 * run's, and each of its reads agrees with the writer's read of the key at the batch's start (a key's first command
 * of the batch, {@link TtlScript#markingFirstReads}), also while expired rows linger. Runs {@code -Depochal.tries=N}
 * schedules.
 */
class TtlReplayProperties {
  private static final int MAX_TXID = 16;
  private static final Set<FaultPoint> POINTS = EnumSet.of(FaultPoint.AFTER_STATE_WRITES,
      FaultPoint.INSIDE_CHECKPOINT_COMMIT, FaultPoint.DURING_CHECKPOINT_COMMIT);

  @Provide
  Arbitrary<List<Ev>> commands() {
    Arbitrary<String> key = Arbitraries.of("a", "b", "c", "d", "e");
    Arbitrary<String> set = Combinators.combine(key, Arbitraries.integers().between(0, 9))
        .as((k, v) -> "set " + k + " " + v);
    Arbitrary<String> get = key.map(k -> "get " + k);
    Arbitrary<String> del = key.map(k -> "del " + k);
    Arbitrary<String> cmd = Arbitraries.frequencyOf(Tuple.of(4, set), Tuple.of(4, get), Tuple.of(1, del));
    return Combinators.combine(cmd, Arbitraries.longs().between(0, 200), Arbitraries.integers().between(0, 1))
        .as(Ev::new).list().ofMaxSize(40);
  }

  @Provide
  Arbitrary<List<Fault>> faults() {
    return ReplayArbitraries.faultSchedules(MAX_TXID, 5, POINTS, true);
  }

  @Property
  void expirationsCommitExactlyOnceThroughFailuresAndRestarts(@ForAll("commands") List<Ev> commands,
      @ForAll @IntRange(min = 1, max = 5) int batchSize, @ForAll @IntRange(min = 1, max = 3) int partitions,
      @ForAll @IntRange(min = 1, max = 2) int inFlight, @ForAll @IntRange(min = 1, max = 3) int maxExpirations,
      @ForAll @IntRange(min = 5, max = 60) int ttlMillis, @ForAll boolean eventTime,
      @ForAll("faults") List<Fault> faults) {
    List<List<Ev>> batches = new ArrayList<>();
    for (int i = 0; i < commands.size(); i += batchSize) {
      batches.add(commands.subList(i, Math.min(commands.size(), i + batchSize)));
    }
    while (batches.size() < MAX_TXID) {
      batches.add(List.of()); // processing time runs on (10 per txid); some keys stay (bound, or event time)
    }
    Config config = new Config(partitions, inFlight, maxExpirations, Duration.ofMillis(ttlMillis),
        eventTime ? TimeDomain.EVENT_TIME : TimeDomain.PROCESSING_TIME);
    Result reference = run(batches, config, List.of());
    Result replayed = run(batches, config, faults);
    assertEquals(reference.outputs, replayed.outputs, replayed.schedule);
    assertEquals(reference.joins, replayed.joins, replayed.schedule);
    assertJoinerAgreesWithTheWriter(reference);
    assertEquals(reference.rows, replayed.rows, replayed.schedule);
    assertEquals(reference.deadlines, replayed.deadlines, replayed.schedule);
    assertEquals(reference.pending, replayed.pending, replayed.schedule);
    Statistics.label("reads of expired keys").collect(reference.outputs.values().stream()
        .flatMap(List::stream).anyMatch(s -> s.endsWith("=-")));
    Statistics.label("restarts").collect(replayed.restarts);
    Statistics.label("joiner reads of absent keys").collect(reference.joins.values().stream()
        .flatMap(List::stream).anyMatch(s -> s.endsWith("=-")));
  }

  /**
   * Per txid: the writer's read of a key at the batch's start ({@code first k=V}) is what the joiner read for that key
   * in the batch ({@code join k=V}, every time).
   */
  private static void assertJoinerAgreesWithTheWriter(Result r) {
    for (Map.Entry<Long, List<String>> e : r.outputs.entrySet()) {
      List<String> joins = r.joins.getOrDefault(e.getKey(), List.of());
      for (String w : e.getValue()) {
        if (!w.startsWith("first ")) {
          continue;
        }
        String key = w.substring("first ".length(), w.indexOf('='));
        List<String> joined = joins.stream().filter(j -> j.startsWith("join " + key + "=")).toList();
        assertEquals(false, joined.isEmpty(), "txid " + e.getKey() + ": the joiner read " + key);
        for (String j : joined) {
          assertEquals("join " + w.substring("first ".length()), j, "txid " + e.getKey() + ": joiner vs writer");
        }
      }
    }
  }

  record Config(int partitions, int inFlight, int maxExpirations, Duration ttl, TimeDomain domain) {
  }

  record Result(Map<Long, List<String>> outputs, Map<Long, List<String>> joins, Map<Object, String> rows,
      List<String> deadlines, List<String> pending, int restarts, String schedule) {
  }

  private Result run(List<List<Ev>> batches, Config config, List<Fault> faults) {
    TableStore store = TableStores.inMemory();
    FaultInjector injector = new FaultInjector(faults);
    CollectingSink<String> out = new CollectingSink<>("out");
    CollectingSink<String> joins = new CollectingSink<>("joins");
    java.util.concurrent.atomic.AtomicLong nanos = new java.util.concurrent.atomic.AtomicLong();
    ListSpout<Ev> spout = new ListSpout<>(batches);
    ReplayHarness.Outcome outcome = ReplayHarness.runToEnd(incarnation -> {
      TableCheckpointStore checkpoints = TableCheckpointStore.builder(store).owner("w" + incarnation).build();
      FlowStates states = FlowStates.builder().clock(b -> 10 * b.txid()).cache(io.epochal.cache.StateCache.builder()
          .ticker(() -> nanos.addAndGet(Duration.ofSeconds(61).toNanos())).build()).build();
      PipelineBuilder builder = Pipeline.newBuilder("ttl").partitions(config.partitions())
          .threads(config.partitions() > 1 ? 2 : 1).maxBatchesInFlight(config.inFlight())
          .retryPolicy(RetryPolicy.immediate(50)).sleeper(d -> { }).checkpointStore(injector.wrap(checkpoints));
      java.util.function.Supplier<TtlScript> processor = () -> new TtlScript(config.ttl(), config.domain(),
          config.maxExpirations()).markingFirstReads();
      io.epochal.pipeline.Stream<Ev> input = builder.source(spout);
      Flow.process(input, "j", Ev::key, () -> new JoinReader("c", JoinSpec.DEFAULT_TTL), states).to("joins", joins);
      (config.domain() == TimeDomain.EVENT_TIME
          ? Flow.process(input, "c", Ev::key, processor, states,
              EventScript.strategy(0).sourcePartition(Ev::src).build())
          : Flow.process(input, "c", Ev::key, processor, states)).to("out", out);
      return builder.build();
    }, 60);
    Map<Long, List<String>> outputs = new TreeMap<>();
    for (CollectingSink.Output<String> o : out.committed()) {
      outputs.computeIfAbsent(o.txid(), t -> new ArrayList<>()).add(o.value());
    }
    outputs.values().forEach(l -> l.sort(null));
    Map<Long, List<String>> joined = new TreeMap<>();
    for (CollectingSink.Output<String> o : joins.committed()) {
      joined.computeIfAbsent(o.txid(), t -> new ArrayList<>()).add(o.value());
    }
    joined.values().forEach(l -> l.sort(null));
    return new Result(outputs, joined, FlowTesting.read(store, "ttl/c/v", Codecs.strings()),
        scan(store, "ttl/c/v.ttl-deadlines", r -> r.key().get(0) + "@" + r.getLong("deadline")),
        scan(store, "ttl/c/v.ttl.timers", r -> r.get("trigger") + ":" + new String(r.getBytes("key"),
            java.nio.charset.StandardCharsets.ISO_8859_1)),
        outcome.restarts(), "faults " + faults + " fired " + injector.fired());
  }

  private static List<String> scan(TableStore store, String path, java.util.function.Function<Row, String> show) {
    List<String> rows = new ArrayList<>();
    store.findTable(path).ifPresent(t -> {
      try (StoreTransaction tx = store.begin()) {
        for (Row r : tx.scan(t)) {
          rows.add(show.apply(r));
        }
      }
    });
    rows.sort(null);
    return rows;
  }
}
