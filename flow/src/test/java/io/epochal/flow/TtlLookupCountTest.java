package io.epochal.flow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.flow.EventScript.Ev;
import io.epochal.flow.FlowTesting.CountingStore;
import io.epochal.flow.FlowTesting.ListSpout;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.store.table.TableCheckpointStore;
import io.epochal.store.table.TableStores;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The TTL bookkeeping of a batch is batched like the state rows: a batch writing {@code N} keys of a state with a
 * TTL costs one lookup per table (values, deadlines, expiration timers, their count tree) and partition, not one per
 * written key. Key {@code k<i>} is first written alone in batch {@code i} (so every key has its own deadline, hence
 * its own expiration timer and leaf of the tree), then one batch rewrites all of them: each key's timer moves. Counts
 * store calls per table in that batch (not time).
 */
class TtlLookupCountTest {
  /** Store lookups per table path in the batch that rewrites {@code n} keys. */
  static Map<String, Integer> lookupsOfRewriting(int n) {
    CountingStore store = new CountingStore(TableStores.inMemory());
    List<List<Ev>> batches = new ArrayList<>();
    List<Ev> all = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      batches.add(List.of(Ev.of("set k" + i + " a", 0)));
      all.add(Ev.of("set k" + i + " b", 0));
    }
    ListSpout<Ev> spout = new ListSpout<>(batches);
    FlowStates states = FlowStates.builder().clock(b -> 10 * b.txid()).build();
    PipelineBuilder builder = Pipeline.newBuilder("lk").checkpointStore(TableCheckpointStore.on(store));
    Flow.process(builder.source(spout), "c", Ev::key,
        () -> new TtlScript(Duration.ofSeconds(100), TimeDomain.PROCESSING_TIME, 10_000), states);
    try (Pipeline p = builder.build()) {
      p.runUntilIdle();
      assertEquals(n, p.lastCommittedTxid());
      spout.batches.add(all);
      store.reset();
      p.runUntilIdle();
      assertEquals(n + 1, p.lastCommittedTxid());
    }
    Map<String, Integer> out = new TreeMap<>();
    store.lookups.forEach((path, count) -> out.put(path, count.get()));
    return out;
  }

  @Test
  void shouldLookUpEachTtlTableOncePerBatchWhateverTheNumberOfWrittenKeys() {
    Map<String, Integer> few = lookupsOfRewriting(3);
    Map<String, Integer> many = lookupsOfRewriting(60);
    assertEquals(few, many, "the same lookups per table for 3 and 60 rewritten keys");
    assertEquals(1, many.get("lk/c/v.ttl-deadlines"), "one lookup of the deadlines: " + many);
    assertEquals(1, many.get("lk/c/v.ttl.timers"), "one lookup of the expiration timers: " + many);
    assertTrue(many.get("lk/c/v.ttl.timer-tree") <= 12, "the tree: one bulk read for the moves plus the walk of "
        + "the due expirations (none due), one lookup per level: " + many);
  }
}
