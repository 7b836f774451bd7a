package io.epochal.pipeline.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.epochal.errors.ErrorContext;
import io.epochal.errors.InvalidRecordException;
import io.epochal.pipeline.Aggregators;
import io.epochal.pipeline.CombinerAggregator;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * A combiner aggregate fed only by its groupBy combines the unsplit records per key, then partitions each distinct
 * key ({@link Node.GroupBy.Deferred}): the partials per partition equal those of the groupBy's split batch, with the
 * same errors for a refused key, and iterate in an order that depends only on the batch.
 */
class DeferredSplitProperties {
  private static final ErrorContext CTX = ErrorContext.of("counts", null).withPipeline("p").withTxid(7);

  @Provide
  Arbitrary<List<Object>> keys() {
    Arbitrary<Object> words = Arbitraries.of("a", "b", "c", "dd", "éé", "日本", "\uD83D\uDE00", "", "zz").map(o -> o);
    Arbitrary<Object> strings = Arbitraries.strings().ofMaxLength(6).withCharRange('a', 'e').map(o -> o);
    Arbitrary<Object> longs = Arbitraries.longs().between(-3, 3).map(o -> o);
    Arbitrary<Object> ints = Arbitraries.integers().between(-3, 3).map(o -> o);
    Arbitrary<Object> lists = Arbitraries.of("a", "b").list().ofMinSize(1).ofMaxSize(2).map(o -> o);
    return Arbitraries.oneOf(words, strings, longs, ints, lists).list().ofMaxSize(300);
  }

  @Property(tries = 300)
  void theDeferredSplitGivesTheSplitBatchsPartials(@ForAll("keys") List<Object> records,
      @ForAll @IntRange(min = 1, max = 5) int partitions, @ForAll boolean sum) {
    Node.GroupBy groupBy = groupBy(partitions);
    AggregateNode aggregate = aggregate(groupBy, sum);
    List<Map<Object, Object>> split = aggregate.preAggregate(groupBy.apply(records, CTX), CTX);
    List<Map<Object, Object>> deferred = aggregate.preAggregate(new Node.GroupBy.Deferred(records, groupBy), CTX);
    assertEquals(partitions, deferred.size());
    assertEquals(split, deferred);
    List<Map<Object, Object>> again = aggregate.preAggregate(new Node.GroupBy.Deferred(List.copyOf(records),
        groupBy), CTX);
    for (int p = 0; p < partitions; p++) {
      assertEquals(new ArrayList<>(deferred.get(p).keySet()), new ArrayList<>(again.get(p).keySet()),
          "iteration order of partition " + p);
    }
  }

  @Property(tries = 200)
  void aRefusedKeyFailsTheDeferredSplitAsItFailsTheGroupBy(@ForAll("keys") List<Object> records,
      @ForAll @IntRange(min = 1, max = 4) int partitions, @ForAll @Size(max = 3) List<@IntRange(max = 2) Integer> bad,
      @ForAll @IntRange(max = 300) int at) {
    List<Object> withBad = new ArrayList<>(records);
    for (int kind : bad) {
      Object key = switch (kind) {
        case 0 -> "x\uD800y"; // an unpaired surrogate: no UTF-8 form
        case 1 -> new int[] {1}; // identity equality
        default -> 1.5f; // an unsupported type
      };
      withBad.add(Math.min(at, withBad.size()), key);
    }
    Node.GroupBy groupBy = groupBy(partitions);
    AggregateNode aggregate = aggregate(groupBy, false);
    if (bad.isEmpty()) {
      aggregate.preAggregate(new Node.GroupBy.Deferred(withBad, groupBy), CTX);
      return;
    }
    InvalidRecordException split = assertThrows(InvalidRecordException.class, () -> groupBy.apply(withBad, CTX));
    InvalidRecordException deferred = assertThrows(InvalidRecordException.class,
        () -> aggregate.preAggregate(new Node.GroupBy.Deferred(withBad, groupBy), CTX));
    assertEquals(split.getMessage(), deferred.getMessage());
    assertEquals(split.context(), deferred.context());
  }

  private static Node.GroupBy groupBy(int partitions) {
    return new Node.GroupBy(1, new Node.Source(0, 0, "s"), r -> r, partitions);
  }

  private static AggregateNode aggregate(Node.GroupBy groupBy, boolean sum) {
    CombinerAggregator<Object, Long> count = Aggregators.count();
    CombinerAggregator<Object, Long> sumOfHashes = new CombinerAggregator<>() {
      @Override
      public Long init(Object record) {
        return (long) record.hashCode();
      }

      @Override
      public Long combine(Long a, Long b) {
        return a * 31 + b; // not commutative: the order of combining shows
      }

      @Override
      public Long zero() {
        return 0L;
      }
    };
    return new AggregateNode(2, groupBy, "counts", null, sum ? sumOfHashes : count);
  }
}
