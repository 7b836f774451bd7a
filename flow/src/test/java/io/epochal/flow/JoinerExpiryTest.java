package io.epochal.flow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.cache.ManualTicker;
import io.epochal.cache.StateCache;
import io.epochal.codec.Codecs;
import io.epochal.flow.EventScript.Ev;
import io.epochal.flow.FlowTesting.CountingStore;
import io.epochal.flow.FlowTesting.ListSpout;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.Stream;
import io.epochal.sink.CollectingSink;
import io.epochal.store.table.ColumnType;
import io.epochal.store.table.KeyCodec;
import io.epochal.store.table.TableCheckpointStore;
import io.epochal.store.table.TableSchema;
import io.epochal.store.table.TableStores;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * A joiner of a state with a TTL reads it with the writer's rule: an expired row reads as absent even while it
 * lingers (more keys due than {@code maxExpirationsPerBatch}), and a cached value is not served after its deadline.
 * Computation {@code w} ({@link TtlScript}, state {@code v}) writes; computation {@code j} ({@link JoinReader})
 * joins {@code v}; both read the same {@code get} commands. Processing time: the clock reads {@code 100 * txid}.
 */
class JoinerExpiryTest {
  private final CountingStore store = new CountingStore(TableStores.inMemory());
  /** The cache's clock: advanced only by {@link #run} (the joiner's cache TTL is 10 minutes). */
  private final ManualTicker ticker = new ManualTicker();
  private final CollectingSink<String> writes = new CollectingSink<>("writes");
  private final CollectingSink<String> joins = new CollectingSink<>("joins");
  private final ListSpout<Ev> spout = new ListSpout<>(List.of());

  private Pipeline build(boolean joinerFirst, int maxExpirations, TimeDomain domain) {
    FlowStates states = FlowStates.builder().clock(b -> 100 * b.txid())
        .cache(StateCache.builder().ticker(ticker).build()).build();
    PipelineBuilder builder = Pipeline.newBuilder("jt").checkpointStore(TableCheckpointStore.on(store));
    Stream<Ev> input = builder.source(spout);
    Runnable joiner = () -> Flow.process(input, "j", Ev::key, () -> new JoinReader("w", Duration.ofMinutes(10)),
        states).to("joins", joins);
    if (joinerFirst) {
      joiner.run(); // the writer's TTL tables do not exist yet when the joiner is bound: learned at its first epoch
    }
    java.util.function.Supplier<TtlScript> writer = () -> new TtlScript(Duration.ofMillis(150), domain,
        maxExpirations);
    (domain == TimeDomain.EVENT_TIME
        ? Flow.process(input, "w", Ev::key, writer, states, EventScript.strategy(0).build())
        : Flow.process(input, "w", Ev::key, writer, states)).to("writes", writes);
    if (!joinerFirst) {
      joiner.run();
    }
    return builder.build();
  }

  private static List<Ev> batch(long ts, String... commands) {
    List<Ev> evs = new ArrayList<>();
    for (String c : commands) {
      evs.add(Ev.of(c, ts));
    }
    return evs;
  }

  /** The committed outputs by txid, sorted within a txid. */
  private Map<Long, List<String>> outputs() {
    Map<Long, List<String>> o = new TreeMap<>();
    for (CollectingSink<String> sink : List.of(writes, joins)) {
      for (CollectingSink.Output<String> e : sink.committed()) {
        o.computeIfAbsent(e.txid(), t -> new ArrayList<>()).add(e.value());
      }
    }
    o.values().forEach(l -> l.sort(null));
    return o;
  }

  /**
   * Runs {@code batch} as the next txid. The joiner also loads the keys of batches without {@code get} (every key
   * of the batch is loaded) and caches their absence while they are not committed, so {@code dropJoinCache} first
   * moves the cache's clock past the joiner's cache TTL; otherwise the cache's clock stands.
   */
  private void run(Pipeline p, boolean dropJoinCache, List<Ev> batch) {
    if (dropJoinCache) {
      ticker.advance(Duration.ofHours(1));
    }
    spout.batches.add(batch);
    p.runUntilIdle();
  }

  private int rows() {
    return FlowTesting.read(store, "jt/w/v", Codecs.strings()).size();
  }

  private static final String[] GETS = {"get a", "get b", "get c", "get d", "get e"};

  @Test
  void shouldReadLingeringExpiredRowsAsAbsentLikeTheWriter() {
    List<Integer> rowsLeft = new ArrayList<>();
    try (Pipeline p = build(true, 1, TimeDomain.PROCESSING_TIME)) {
      run(p, true, batch(0, "set a 1", "set b 1", "set c 1", "set d 1", "set e 1")); // txid 1 at 100: deadline 250
      run(p, true, batch(0, GETS)); // txid 2 at 200: alive
      run(p, true, batch(0, GETS)); // txid 3 at 300: expired; one row of five expires per batch
      rowsLeft.add(rows());
      run(p, true, batch(0, GETS)); // txid 4 at 400
      rowsLeft.add(rows());
    }
    assertEquals(List.of(4, 3), rowsLeft, "the expired rows linger: one expires per batch");
    Map<Long, List<String>> o = outputs();
    assertEquals(List.of("get a=1", "get b=1", "get c=1", "get d=1", "get e=1", "join a=1", "join b=1", "join c=1",
        "join d=1", "join e=1"), o.get(2L));
    for (long txid : new long[] {3, 4}) {
      assertEquals(List.of("get a=-", "get b=-", "get c=-", "get d=-", "get e=-", "join a=-", "join b=-", "join c=-",
          "join d=-", "join e=-"), o.get(txid), "txid " + txid + ": writer and joiner agree, the rows are expired");
    }
  }

  @Test
  void shouldNotServeACachedValueAfterItsDeadline() {
    List<Integer> lookups = new ArrayList<>();
    try (Pipeline p = build(false, 10, TimeDomain.PROCESSING_TIME)) {
      run(p, true, batch(0, "set a 1")); // txid 1 at 100: deadline 250
      run(p, true, batch(0, "get a"));   // txid 2 at 200: the joiner loads a=1 (and its deadline) into its cache
      run(p, false, batch(0, "get a"));  // txid 3 at 300: the cache still holds a=1, but a has expired
      lookups.add(store.lookups("jt/w/v"));
      run(p, false, batch(0, "get a"));  // txid 4 at 400: the absence is served from the cache
      lookups.add(store.lookups("jt/w/v"));
    }
    Map<Long, List<String>> o = outputs();
    assertEquals(List.of("get a=1", "join a=1"), o.get(2L));
    assertEquals(List.of("get a=-", "join a=-"), o.get(3L), "past its deadline the cached value is not served");
    assertEquals(List.of("get a=-", "join a=-"), o.get(4L));
    assertEquals(lookups.get(0), lookups.get(1), "txid 4: the joiner's absence and the writer's from their caches");
  }

  @Test
  void shouldJudgeAnEventTimeTtlAtTheWritersCommittedWatermark() {
    int rowsLeft;
    try (Pipeline p = build(true, 1, TimeDomain.EVENT_TIME)) {
      run(p, true, batch(0, "set a 1", "set b 1", "set c 1", "set d 1", "set e 1")); // watermark 0: deadline 150
      run(p, true, batch(400, GETS)); // txid 2: read at watermark 0 (alive); at 400 after it, one row expires
      run(p, true, batch(400, GETS)); // txid 3: read at watermark 400: expired; one more row expires
      rowsLeft = rows();
    }
    assertEquals(3, rowsLeft, "the expired rows linger: one expires per batch");
    Map<Long, List<String>> o = outputs();
    assertEquals(List.of("get a=1", "get b=1", "get c=1", "get d=1", "get e=1", "join a=1", "join b=1", "join c=1",
        "join d=1", "join e=1"), o.get(2L));
    assertEquals(List.of("get a=-", "get b=-", "get c=-", "get d=-", "get e=-", "join a=-", "join b=-", "join c=-",
        "join d=-", "join e=-"), o.get(3L));
  }

  @Test
  void shouldRefuseAnEventTimeTtlWithoutTheWritersWatermark() {
    store.openTable(TableSchema.builder("other/w/s").key("key", ColumnType.STRING)
        .requiredValue("value", ColumnType.BYTES).build());
    store.openTable(TableSchema.builder("other/w/s.ttl-deadlines").key("key", ColumnType.STRING)
        .requiredValue("deadline", ColumnType.INT64).attribute("epochal.ttl.domain", "EVENT_TIME").build());
    PipelineBuilder builder = Pipeline.newBuilder("jt").checkpointStore(TableCheckpointStore.on(store));
    Flow.process(builder.source(spout), "j", Ev::key, () -> new KeyedProcessor<String, Ev, String>() {
      @Override
      public void init(ProcessorContext<String> context) {
        context.joiner(JoinSpec.table("s", "other/w/s", KeyCodec.strings(), Codecs.strings()).build());
      }

      @Override
      public void process(String key, List<Ev> records, Emitter<String> out) {
      }
    }, FlowStates.builder().build());
    IllegalStateException e = assertThrows(IllegalStateException.class, builder::build);
    assertTrue(e.getMessage().contains("joiner 's' of computation 'j'") && e.getMessage().contains("other/w/s")
        && e.getMessage().contains("event-time TTL") && e.getMessage().contains("other/w/.watermark"),
        e.getMessage());
  }
}
