package io.epochal.flow;

import io.epochal.codec.Codec;
import io.epochal.codec.Codecs;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.spout.BatchAttempt;
import io.epochal.spout.Collector;
import io.epochal.spout.TransactionalSpout;
import io.epochal.store.rocksdb.RocksDbTableStore;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableCheckpointStore;
import io.epochal.store.table.TableKey;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The child JVM of {@link TimerHeapTest}: over a RocksDB store, adds {@code count} processing-time timers in batches
 * of {@code perBatch} (default {@value #PER_BATCH}; triggers {@code BASE + (n * 7919) % DISTINCT}, never due while
 * they are added), then moves the clock to {@code BASE + DUE} and runs {@value #FIRE_BATCHES} more batches, each
 * firing at most {@code perBatch} timers. Checks that the fired triggers never go down, that they are the lowest ones,
 * and prints {@code DONE fired=F pending=P maxFired=M heapMax=H}, or {@code FAIL ...}. The timers are never all in
 * memory: with a small heap ({@code -Xmx64m} for a million timers) the run fails with an {@link OutOfMemoryError} if
 * they are.
 *
 * <p>Arguments: state directory, timer count, optionally {@code rocksdb} (the default) or {@code memory} (the same run
 * over the in-memory store: the control, which keeps every row on the heap and must die of an
 * {@link OutOfMemoryError} under the small heap), and optionally {@code perBatch}.
 */
public final class TimerHeapMain {
  static final int PER_BATCH = 10_000;
  static final int FIRE_BATCHES = 10;
  static final long BASE = 1_000_000;
  static final long DISTINCT = 100_000;
  static final long DUE = 20_000;

  private TimerHeapMain() {
  }

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    long count = Long.parseLong(args[1]);
    int perBatch = args.length > 3 ? Integer.parseInt(args[3]) : PER_BATCH;
    long addBatches = (count + perBatch - 1) / perBatch;
    long[] last = {-1};
    long[] fired = {0};
    String[] failure = {null};
    boolean inMemory = args.length > 2 && args[2].equals("memory"); // the control: rows on the heap
    try (io.epochal.store.table.TableStore store = inMemory ? io.epochal.store.table.TableStores.inMemory()
        : RocksDbTableStore.builder(dir).build()) {
      TableCheckpointStore checkpoints = TableCheckpointStore.builder(store).owner("heap").build();
      FlowStates states = FlowStates.builder()
          .clock(b -> b.txid() <= addBatches ? 0 : BASE + DUE).build();
      PipelineBuilder builder = Pipeline.newBuilder("heap").checkpointStore(checkpoints);
      Flow.process(builder.source(new Adds(count, addBatches, perBatch)), "c", r -> r,
          () -> new KeyedProcessor<String, String, String>() {
            TimerClient<String, Void> timers;

            @Override
            public void init(ProcessorContext<String> context) {
              timers = context.timers(TimerSpec.of("t", TimeDomain.PROCESSING_TIME, Codecs.strings())
                  .maxFiredPerBatch(perBatch).build());
            }

            @Override
            public void process(String key, List<String> records, Emitter<String> out) {
              timers.add(key, trigger(Long.parseLong(key.substring(1))));
            }

            @Override
            public void onTimer(String key, Timer timer, Emitter<String> out) {
              if (timer.trigger() < last[0] || timer.trigger() != trigger(Long.parseLong(key.substring(1)))) {
                failure[0] = "timer " + key + "@" + timer.trigger() + " after " + last[0];
              }
              last[0] = timer.trigger();
              fired[0]++;
            }
          }, states);
      try (Pipeline pipeline = builder.build()) {
        pipeline.runUntilIdle();
      }
      long pending = pending(store);
      long expectedFired = Math.min(FIRE_BATCHES * (long) perBatch, dueCount(count));
      if (failure[0] == null && fired[0] != expectedFired) {
        failure[0] = "fired " + fired[0] + ", expected " + expectedFired;
      }
      if (failure[0] == null && pending != count - fired[0]) {
        failure[0] = "pending " + pending + ", expected " + (count - fired[0]);
      }
      if (failure[0] == null && fired[0] > 0 && last[0] >= BASE + lowestAbove(count, fired[0])) {
        failure[0] = "the last fired trigger " + last[0] + " is not among the lowest " + fired[0];
      }
      System.out.println((failure[0] == null ? "DONE" : "FAIL " + failure[0]) + " fired=" + fired[0] + " pending="
          + pending + " maxFired=" + last[0] + " heapMax=" + Runtime.getRuntime().maxMemory());
    }
  }

  static long trigger(long n) {
    return BASE + (n * 7919) % DISTINCT;
  }

  /** How many of the {@code count} timers have a trigger below {@code BASE + DUE} (an offset below DUE). */
  static long dueCount(long count) {
    long n = 0;
    for (long i = 0; i < count; i++) {
      if ((i * 7919) % DISTINCT <= DUE) {
        n++;
      }
    }
    return n;
  }

  /** The smallest offset o such that more than {@code fired} timers have an offset at most o, plus one. */
  static long lowestAbove(long count, long fired) {
    long[] perOffset = new long[(int) DISTINCT];
    for (long i = 0; i < count; i++) {
      perOffset[(int) ((i * 7919) % DISTINCT)]++;
    }
    long seen = 0;
    for (int o = 0; o < DISTINCT; o++) {
      seen += perOffset[o];
      if (seen >= fired) {
        return o + 1;
      }
    }
    return DISTINCT;
  }

  /** The pending timers: the sum of the tree's top-level counts (8 rows), never a scan. */
  static long pending(io.epochal.store.table.TableStore store) {
    Table tree = store.findTable("heap/c/t.timer-tree").orElseThrow();
    List<TableKey> keys = new ArrayList<>();
    for (long n = 0; n < 8; n++) {
      keys.add(tree.schema().key(0L, 10L, n));
    }
    long sum = 0;
    for (Optional<io.epochal.store.table.Row> row : store.lookup(tree, keys)) {
      sum += row.map(r -> r.getLong("count")).orElse(0L);
    }
    return sum;
  }

  /** Batch i < addBatches holds keys k(i*perBatch) .. ; later batches are empty, up to FIRE_BATCHES of them. */
  static final class Adds implements TransactionalSpout<String, Long> {
    private final long count;
    private final long addBatches;
    private final int perBatch;

    Adds(long count, long addBatches, int perBatch) {
      this.count = count;
      this.addBatches = addBatches;
      this.perBatch = perBatch;
    }

    @Override
    public String name() {
      return "adds";
    }

    @Override
    public Codec<Long> metadataCodec() {
      return Codecs.longs();
    }

    @Override
    public Optional<Long> nextBatch(long txid, Optional<Long> previous) {
      long next = previous.map(p -> p + 1).orElse(0L);
      return next < addBatches + FIRE_BATCHES ? Optional.of(next) : Optional.empty();
    }

    @Override
    public void emit(BatchAttempt attempt, Long batch, Collector<String> out) {
      for (long n = batch * perBatch; batch < addBatches && n < Math.min(count, (batch + 1) * perBatch); n++) {
        out.emit("k" + n);
      }
    }
  }
}
