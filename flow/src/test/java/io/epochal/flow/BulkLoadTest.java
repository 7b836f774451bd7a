package io.epochal.flow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.codec.Codecs;
import io.epochal.flow.FlowTesting.CountingStore;
import io.epochal.flow.FlowTesting.ListSpout;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.Stream;
import io.epochal.store.table.KeyCodec;
import io.epochal.store.table.Row;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableCheckpointStore;
import io.epochal.store.table.TableSchema;
import io.epochal.store.table.TableStores;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/** Exactly one lookup per state per partition per epoch, counted through a wrapping store. */
class BulkLoadTest {
  private static final String PIPELINE = "bulk";
  private static final int PARTITIONS = 4;

  private final CountingStore store = new CountingStore(TableStores.inMemory());
  private final TableCheckpointStore checkpoints = TableCheckpointStore.on(store);
  private final FlowStates states = FlowStates.create();
  /** (txid-th process batch, partition) pairs: an epoch of a partition. */
  private final Set<String> epochs = ConcurrentHashMap.newKeySet();

  /** Three states and a joiner, all touched for every key. */
  final class ThreeStates implements KeyedProcessor<String, String, String> {
    private final boolean cached;
    private StateClient<String, Long> count;
    private StateClient<String, Long> length;
    private StateClient<String, String> last;
    private JoinedStateClient<String, String> labels;
    private ProcessorContext<String> context;
    private final Map<String, Integer> seenInEpoch = new HashMap<>();

    ThreeStates(boolean cached) {
      this.cached = cached;
    }

    @Override
    public void init(ProcessorContext<String> ctx) {
      context = ctx;
      count = ctx.state(StateSpec.internal("count", KeyCodec.strings(), Codecs.longs(), 0L).cached(cached).build());
      length = ctx.state(StateSpec.internal("length", KeyCodec.strings(), Codecs.longs(), 0L).cached(cached)
          .build());
      last = ctx.state(StateSpec.internal("last", KeyCodec.strings(), Codecs.strings(), "").cached(cached).build());
      labels = ctx.joiner(JoinSpec.table("labels", "labels", KeyCodec.strings(), Codecs.strings()).build());
    }

    @Override
    public void process(String key, List<String> records, Emitter<String> out) {
      epochs.add(records.get(0).split("#")[1] + "@" + context.partition());
      count.accessor(key).update(v -> v + records.size());
      length.accessor(key).update(v -> v + records.stream().mapToLong(String::length).sum());
      last.accessor(key).set(records.get(records.size() - 1));
      out.emit(key + ":" + labels.accessor(key).getOrDefault("?"));
    }
  }

  private List<List<String>> batches(int n, int recordsPerBatch, int keys, long seed) {
    Random random = new Random(seed);
    List<List<String>> out = new ArrayList<>();
    for (int b = 0; b < n; b++) {
      List<String> batch = new ArrayList<>();
      for (int i = 0; i < recordsPerBatch; i++) {
        batch.add("key" + random.nextInt(keys) + "#" + b); // the batch number rides in the record
      }
      out.add(batch);
    }
    return out;
  }

  private void run(List<List<String>> batches, boolean cached) {
    PipelineBuilder builder = Pipeline.newBuilder(PIPELINE).partitions(PARTITIONS).threads(PARTITIONS)
        .checkpointStore(checkpoints);
    ListSpout<String> spout = new ListSpout<>(batches);
    Stream<String> records = builder.source(spout);
    Flow.process(records, "three", r -> r.split("#")[0], () -> new ThreeStates(cached), states);
    try (Pipeline pipeline = builder.build()) {
      assertEquals(batches.size(), pipeline.runUntilIdle().batches());
    }
  }

  private void createLabels() {
    Table labels = store.openTable(TableSchema.builder("labels").key("key", io.epochal.store.table.ColumnType.STRING)
        .requiredValue("value", io.epochal.store.table.ColumnType.BYTES).build());
    try (StoreTransaction tx = store.begin()) {
      tx.upsert(labels, Row.of(labels.schema().key("key1"), (Object) Codecs.strings().encode("one")));
      tx.commit();
    }
  }

  private static String table(String state) {
    return PIPELINE + "/three/" + state;
  }

  @Test
  void shouldLoadEachStateInOneLookupPerPartitionPerEpoch() {
    createLabels();
    store.reset();
    List<List<String>> batches = batches(6, 300, 40, 1);
    run(batches, false);
    int partitionEpochs = epochs.size();
    assertTrue(partitionEpochs >= 6 * 3, "most partitions see records in most batches: " + epochs);
    for (String state : List.of("count", "length", "last")) {
      assertEquals(partitionEpochs, store.lookups(table(state)), "lookups of state " + state);
    }
    // the joiner's entries stay cached (TTL 1 minute): one lookup per partition per epoch at most, fewer later
    assertTrue(store.lookups("labels") <= partitionEpochs, "joiner lookups: " + store.lookups("labels"));
    Map<Object, Long> counts = FlowTesting.read(store, table("count"), Codecs.longs());
    Map<Object, Long> expected = new java.util.TreeMap<>();
    for (List<String> batch : batches) {
      for (String r : batch) {
        expected.merge(r.split("#")[0], 1L, Long::sum);
      }
    }
    assertEquals(expected, counts);
  }

  @Test
  void shouldSkipTheLookupOfKeysCachedAfterTheStatesOwnCommits() {
    createLabels();
    // batch 0 touches keys 0..9; batch 1 the same keys again; batch 2 adds key 10 (one partition looks it up)
    List<String> first = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      first.add("key" + i + "#0");
    }
    List<String> second = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      second.add("key" + i + "#1");
    }
    List<String> third = List.of("key3#2", "key10#2");
    store.reset();
    run(List.of(first, second, third), true);
    Set<String> firstEpochs = new java.util.TreeSet<>();
    for (String e : epochs) {
      if (e.startsWith("0@")) {
        firstEpochs.add(e);
      }
    }
    for (String state : List.of("count", "length", "last")) {
      assertEquals(firstEpochs.size() + 1, store.lookups(table(state)),
          "state " + state + ": one lookup per partition in batch 0, none in batch 1 (all cached), one for key10");
    }
    Map<Object, Long> expected = new HashMap<>();
    for (int i = 0; i < 10; i++) {
      expected.put("key" + i, i == 3 ? 3L : 2L);
    }
    expected.put("key10", 1L);
    assertEquals(expected, FlowTesting.read(store, table("count"), Codecs.longs()));
    assertEquals("key10#2", FlowTesting.read(store, table("last"), Codecs.strings()).get("key10"));
    assertEquals(firstEpochs.size() + 1, store.lookups("labels"),
        "joiner: cached for its TTL after the first load, one lookup for the new key");
  }

  @Test
  void shouldLookUpAnExplicitKeyOutsideTheBatchOnItsOwn() {
    store.reset();
    List<Integer> lookupsSeen = new ArrayList<>();
    PipelineBuilder builder = Pipeline.newBuilder("explicit").checkpointStore(checkpoints);
    Stream<String> records = builder.source(new ListSpout<>(List.of("a", "b")));
    Flow.process(records, "explicit", r -> r, () -> new KeyedProcessor<String, String, String>() {
      StateClient<String, Long> totals;

      @Override
      public void init(ProcessorContext<String> context) {
        totals = context.state(StateSpec.internal("totals", KeyCodec.strings(), Codecs.longs(), 0L).build());
      }

      @Override
      public void process(String key, List<String> recs, Emitter<String> out) {
        totals.accessor(key).update(v -> v + 1);
        lookupsSeen.add(store.lookups("explicit/explicit/totals"));
        totals.accessor("*").update(v -> v + 1); // an explicit key: loaded on first use, once per epoch
        lookupsSeen.add(store.lookups("explicit/explicit/totals"));
      }
    }, states);
    try (Pipeline pipeline = builder.build()) {
      pipeline.runUntilIdle();
    }
    assertEquals(List.of(1, 2, 2, 2), lookupsSeen);
    assertEquals(Map.of("*", 2L, "a", 1L, "b", 1L),
        FlowTesting.read(store, "explicit/explicit/totals", Codecs.longs()));
  }
}
