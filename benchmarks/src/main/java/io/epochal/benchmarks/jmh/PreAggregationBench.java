package io.epochal.benchmarks.jmh;

import io.epochal.pipeline.Aggregators;
import io.epochal.pipeline.CombinerAggregator;
import io.epochal.pipeline.Partitioner;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The process phase of a word count batch (100,000 words drawn like the corpus) as the engine runs it, on the public
 * API: {@code groupBy} (keys and records per partition, partitioned with {@link Partitioner#reusable()} as the
 * engine's {@code groupBy} node does) and the {@code persistentAggregate} pre-aggregation per key and partition
 * ({@code init} per record, {@code combine} through {@link HashMap#merge}, as the engine's aggregate node does; without
 * the engine's null and overflow checks). Reported per batch.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class PreAggregationBench {
  /** The engine partitions the batch is grouped into (JMH parameter). */
  @Param({"2"})
  public int partitions;

  private final CombinerAggregator<Object, Long> count = Aggregators.count();
  private List<Object> words;
  private Grouped grouped;

  /** Keys and records per partition, in arrival order. */
  private record Grouped(List<List<Object>> keys, List<List<Object>> records) {
  }

  /** Draws the batch's 100,000 words and groups them once for {@link #preAggregate()}. */
  @Setup
  public void setUp() {
    words = new ArrayList<>(Words.zipf(100_000));
    grouped = groupBy(words);
  }

  /** @return the batch's keys and records split by partition */
  @Benchmark
  public Object groupBy() {
    return groupBy(words);
  }

  /** @return the per-partition counts per key of the pre-grouped batch */
  @Benchmark
  public Object preAggregate() {
    return preAggregate(grouped);
  }

  /** @return the per-partition counts per key, grouping included */
  @Benchmark
  public Object groupByAndPreAggregate() {
    return preAggregate(groupBy(words));
  }

  private Grouped groupBy(List<Object> in) {
    int capacity = partitions == 1 ? in.size() : in.size() / partitions + 64;
    List<List<Object>> keys = new ArrayList<>(partitions);
    List<List<Object>> records = new ArrayList<>(partitions);
    for (int p = 0; p < partitions; p++) {
      keys.add(new ArrayList<>(capacity));
      records.add(new ArrayList<>(capacity));
    }
    Partitioner.Reusable partitioner = Partitioner.reusable();
    for (Object r : in) {
      Object key = r; // groupBy(w -> w)
      int p = partitioner.partition(key, partitions);
      keys.get(p).add(key);
      records.get(p).add(r);
    }
    return new Grouped(keys, records);
  }

  private List<Map<Object, Long>> preAggregate(Grouped in) {
    List<Map<Object, Long>> parts = new ArrayList<>(partitions);
    for (int p = 0; p < partitions; p++) {
      List<Object> keys = in.keys().get(p);
      List<Object> records = in.records().get(p);
      HashMap<Object, Long> partial = new HashMap<>(Math.max(16, keys.size()));
      for (int i = 0, n = keys.size(); i < n; i++) {
        partial.merge(keys.get(i), count.init(records.get(i)), count::combine);
      }
      parts.add(partial);
    }
    return parts;
  }
}
