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
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The cost of expirations is proportional to what expires, not to the state's size: counts of store reads and rows
 * written (not time). {@code E} keys written at time 0 and {@code N} keys written at time 500 (TTL 1000); the batch at
 * time 1000 expires the {@code E} keys. Its lookups, keys looked up and rows written are the same for
 * {@code N = 1 000} and {@code N = 20 000}, and no table is scanned.
 */
class TtlCostTest {
  static final long[] TIME = {0, 0, 500, 1000, 1001};

  record Cost(int lookups, int keysLookedUp, int rowsWritten, int scans, int stateRowsDeleted, int stateRowsLeft) {
  }

  Cost expire(int expiring, int others) {
    CountingStore store = new CountingStore(TableStores.inMemory());
    List<Ev> first = new ArrayList<>();
    for (int i = 0; i < expiring; i++) {
      first.add(Ev.of("set e" + i + " x", 0));
    }
    List<Ev> second = new ArrayList<>();
    for (int i = 0; i < others; i++) {
      second.add(Ev.of("set n" + i + " y", 0));
    }
    ListSpout<Ev> spout = new ListSpout<>(first, second);
    try (Pipeline p = build(store, spout, "w1")) {
      p.runUntilIdle();
    }
    assertEquals(expiring + others, FlowTesting.read(store, "cost/c/v", io.epochal.codec.Codecs.strings()).size());
    spout.batches.add(List.of());                     // txid 3 at time 1000: the E keys expire, nothing else
    try (Pipeline p = build(store, spout, "w2")) {
      store.reset();                                  // count the batch only, not the build's checks
      p.runUntilIdle();
      assertEquals(3, p.lastCommittedTxid());
    }
    Cost batch = new Cost(sum(store.lookups), sum(store.keysLookedUp), sum(store.rowsWritten), sum(store.scans),
        count(store.rowsWritten, "cost/c/v"), 0);
    Map<Object, String> left = FlowTesting.read(store, "cost/c/v", io.epochal.codec.Codecs.strings());
    return new Cost(batch.lookups(), batch.keysLookedUp(), batch.rowsWritten(), batch.scans(),
        batch.stateRowsDeleted(), left.size());
  }

  private static Pipeline build(CountingStore store, ListSpout<Ev> spout, String owner) {
    FlowStates states = FlowStates.builder().clock(b -> TIME[(int) b.txid()]).build();
    PipelineBuilder builder = Pipeline.newBuilder("cost")
        .checkpointStore(TableCheckpointStore.builder(store).owner(owner).build());
    Flow.process(builder.source(spout), "c", Ev::key,
        () -> new TtlScript(Duration.ofMillis(1000), TimeDomain.PROCESSING_TIME, 10_000), states);
    return builder.build();
  }

  private static int sum(Map<String, AtomicInteger> counts) {
    return counts.values().stream().mapToInt(AtomicInteger::get).sum();
  }

  private static int count(Map<String, AtomicInteger> counts, String path) {
    AtomicInteger n = counts.get(path);
    return n == null ? 0 : n.get();
  }

  @Test
  void shouldCostWhatExpiresNotTheSizeOfTheState() {
    Cost small = expire(10, 1_000);
    Cost large = expire(10, 20_000);
    assertEquals(10, small.stateRowsDeleted());
    assertEquals(1_000, small.stateRowsLeft());
    assertEquals(20_000, large.stateRowsLeft());
    assertEquals(0, large.scans(), "no scan");
    assertEquals(small, new Cost(large.lookups(), large.keysLookedUp(), large.rowsWritten(), large.scans(),
        large.stateRowsDeleted(), small.stateRowsLeft()), "the same reads and writes whatever the state's size");
    // and bounded by a constant per expired key plus the tree walk (11 levels of at most 64 nodes)
    assertTrue(large.keysLookedUp() <= 10 * 10 + 11 * 64 + 20, "keys looked up: " + large.keysLookedUp());
  }

  @Test
  void shouldGrowWithWhatExpires() {
    Cost ten = expire(10, 1_000);
    Cost hundred = expire(100, 1_000);
    assertEquals(100, hundred.stateRowsDeleted());
    assertTrue(hundred.keysLookedUp() >= ten.keysLookedUp() + 4 * 90, ten + " vs " + hundred);
    assertTrue(hundred.rowsWritten() >= ten.rowsWritten() + 3 * 90, ten + " vs " + hundred);
  }
}
