package io.epochal.pipeline.internal;

import io.epochal.benchmarks.jmh.Words;
import io.epochal.errors.ErrorContext;
import io.epochal.pipeline.Aggregators;
import io.epochal.state.InMemoryBackingMap;
import io.epochal.state.transactional.TransactionalMap;
import io.epochal.state.transactional.TransactionalValue;
import java.util.ArrayList;
import java.util.List;
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
 * The engine's process phase of a word count batch (100,000 words drawn like the corpus): {@code groupBy} (farm_hash
 * partitioning) and the {@code persistentAggregate} pre-aggregation per key and partition, on the engine's own nodes
 * (this class sits in their package). Reported per batch.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class PreAggregationBench {
  @Param({"2"})
  public int partitions;

  private List<Object> words;
  private Node.GroupBy groupBy;
  private static final ErrorContext CONTEXT = ErrorContext.NONE.withPipeline("bench").withTxid(1);
  private Node.Aggregate aggregate;
  private Object grouped;

  @Setup
  public void setUp() {
    words = new ArrayList<>(Words.zipf(100_000));
    Node.Source source = new Node.Source(0, 0, "words");
    groupBy = new Node.GroupBy(1, source, w -> w, partitions);
    aggregate = new Node.Aggregate(2, groupBy, "counts",
        TransactionalMap.factory(new InMemoryBackingMap<String, TransactionalValue<Long>>()), Aggregators.count());
    grouped = groupBy.apply(words, CONTEXT);
  }

  @Benchmark
  public Object groupBy() {
    return groupBy.apply(words, CONTEXT);
  }

  @Benchmark
  public Object preAggregate() {
    return aggregate.preAggregate(grouped, CONTEXT);
  }

  @Benchmark
  public Object groupByAndPreAggregate() {
    return aggregate.preAggregate(groupBy.apply(words, CONTEXT), CONTEXT);
  }
}
