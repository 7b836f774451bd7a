package io.epochal.benchmarks.jmh;

import io.epochal.state.Epoch;
import io.epochal.spout.BatchAttempt;
import io.epochal.codec.Codecs;
import io.epochal.state.InMemoryBackingMap;
import io.epochal.state.MapState;
import io.epochal.state.ValueUpdater;
import io.epochal.state.opaque.OpaqueMap;
import io.epochal.state.opaque.OpaqueTableLayout;
import io.epochal.state.opaque.OpaqueValue;
import io.epochal.state.transactional.TransactionalMap;
import io.epochal.state.transactional.TransactionalTableLayout;
import io.epochal.state.transactional.TransactionalValue;
import io.epochal.store.ManualEpochs;
import io.epochal.store.rocksdb.RocksDbTableStore;
import io.epochal.store.table.KeyCodec;
import io.epochal.store.table.TableCheckpointStore;
import io.epochal.store.table.TableStates;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One batch's {@code multiUpdate} of {@code keys} distinct keys (a count: {@code +1} per key), txid increasing per
 * invocation, for {@code TransactionalMap} and {@code OpaqueMap} over the in-memory backing map and over RocksDB table
 * states (epoch protocol: the update buffers, {@code epochCommit} also writes the buffer, the spout metadata and the
 * txid in one RocksDB write batch). Reported per batch; divide by {@code keys} for the cost per key.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class MapStateBench {
  /** The distinct keys each batch updates (JMH parameter). */
  @Param({"1000", "20000"})
  public int keys;

  private Map<String, ValueUpdater<Long>> updaters;
  private long txid;

  private MapState<String, Long> memTx;
  private MapState<String, Long> memOpaque;

  private Path dir;
  private RocksDbTableStore rocks;
  private TableCheckpointStore checkpoints;
  private ManualEpochs epochs;
  private MapState<String, Long> rocksTx;
  private MapState<String, Long> rocksOpaque;
  private static final byte[] META = new byte[8];

  /**
   * Creates the updaters, the in-memory states, and the RocksDB store with its two table states in a temporary
   * directory.
   *
   * @throws IOException if the temporary directory cannot be created
   */
  @Setup(Level.Trial)
  public void setUp() throws IOException {
    updaters = new HashMap<>();
    for (String w : Words.distinct(keys)) {
      updaters.put(w, stored -> stored.isEmpty() ? 1L : stored.get() + 1);
    }
    memTx = TransactionalMap.over(new InMemoryBackingMap<String, TransactionalValue<Long>>(), "tx");
    memOpaque = OpaqueMap.over(new InMemoryBackingMap<String, OpaqueValue<Long>>(), "opaque");
    dir = Files.createTempDirectory("jmh-rocksdb");
    rocks = RocksDbTableStore.builder(dir).build();
    checkpoints = TableCheckpointStore.on(rocks);
    checkpoints.load("bench");
    epochs = new ManualEpochs(checkpoints, "bench");
    rocksTx = TransactionalTableLayout.factory(
        TableStates.builder(KeyCodec.strings("word"), Codecs.longs()))
        .makeState(epochs.context("tx", 0, 1));
    rocksOpaque = OpaqueTableLayout.factory(
        TableStates.builder(KeyCodec.strings("word"), Codecs.longs()))
        .makeState(epochs.context("opaque", 0, 1));
  }

  /**
   * Closes the RocksDB store and deletes its directory.
   *
   * @throws IOException if the directory cannot be listed
   */
  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    rocks.close();
    try (var walk = Files.walk(dir)) {
      walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  /**
   * One batch on the TransactionalMap over the in-memory backing map.
   *
   * @return the new count of every key
   */
  @Benchmark
  public Map<String, Long> transactionalInMemory() {
    long t = ++txid;
    memTx.begin(Epoch.of("bench", new BatchAttempt(t, 1)));
    Map<String, Long> out = memTx.multiUpdate(updaters);
    memTx.end();
    return out;
  }

  /**
   * One batch on the OpaqueMap over the in-memory backing map.
   *
   * @return the new count of every key
   */
  @Benchmark
  public Map<String, Long> opaqueInMemory() {
    long t = ++txid;
    memOpaque.begin(Epoch.of("bench", new BatchAttempt(t, 1)));
    Map<String, Long> out = memOpaque.multiUpdate(updaters);
    memOpaque.end();
    return out;
  }

  /**
   * Read from RocksDB and buffer in the epoch, then commit the epoch: one durable batch (transactional layout).
   *
   * @return the new count of every key
   */
  @Benchmark
  public Map<String, Long> transactionalRocksDbEpochCommit() {
    return epoch(rocksTx);
  }

  /**
   * As {@link #transactionalRocksDbEpochCommit()} with the opaque layout.
   *
   * @return the new count of every key
   */
  @Benchmark
  public Map<String, Long> opaqueRocksDbEpochCommit() {
    return epoch(rocksOpaque);
  }

  /**
   * Only the multiUpdate over RocksDB (reads + buffering); the epoch is aborted.
   *
   * @return the count every key would get (always the same: nothing is committed)
   */
  @Benchmark
  public Map<String, Long> transactionalRocksDbUpdateOnly() {
    long t = txid + 1; // nothing is committed: every invocation replays the same txid
    rocksTx.begin(epochs.open(t));
    Map<String, Long> out = rocksTx.multiUpdate(updaters);
    rocksTx.abort();
    epochs.abort();
    return out;
  }

  private Map<String, Long> epoch(MapState<String, Long> state) {
    long t = ++txid;
    state.begin(epochs.open(t));
    Map<String, Long> out = state.multiUpdate(updaters);
    state.end();
    epochs.commit(META);
    return out;
  }

  static List<String> unused() {
    return List.of();
  }
}
