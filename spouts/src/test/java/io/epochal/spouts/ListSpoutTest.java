package io.epochal.spouts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.errors.SourceChangedException;
import io.epochal.spout.BatchAttempt;
import io.epochal.spout.SpoutKind;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class ListSpoutTest {

  static <T> List<T> emit(ListSpout<T> spout, long txid, int attempt, Range range) {
    List<T> out = new ArrayList<>();
    spout.emit(new BatchAttempt(txid, attempt), range, out::add);
    return out;
  }

  @Test
  void shouldCutConsecutiveRangesOfAtMostBatchSize() {
    ListSpout<String> spout = ListSpout.of("list", List.of("a", "b", "c", "d", "e"), 2);
    assertEquals(SpoutKind.TRANSACTIONAL, spout.kind());
    Optional<Range> r1 = spout.nextBatch(1, Optional.empty());
    Optional<Range> r2 = spout.nextBatch(2, r1);
    Optional<Range> r3 = spout.nextBatch(3, r2);
    assertEquals(Optional.of(new Range(0, 2)), r1);
    assertEquals(Optional.of(new Range(2, 4)), r2);
    assertEquals(Optional.of(new Range(4, 5)), r3);
    assertEquals(Optional.empty(), spout.nextBatch(4, r3));
    assertEquals(List.of("a", "b"), emit(spout, 1, 1, r1.get()));
    assertEquals(List.of("e"), emit(spout, 3, 1, r3.get()));
  }

  @Test
  void shouldEmitTheSameRecordsForTheSameRangeEvenAfterAppends() {
    ListSpout<Integer> spout = ListSpout.of("list", List.of(1, 2, 3), 10);
    Range range = spout.nextBatch(1, Optional.empty()).orElseThrow();
    List<Integer> first = emit(spout, 1, 1, range);
    spout.append(4);
    spout.appendAll(List.of(5, 6));
    assertEquals(first, emit(spout, 1, 2, range));
    assertEquals(first, emit(spout, 1, 3, Range.codec().decode(Range.codec().encode(range))));
    Range next = spout.nextBatch(2, Optional.of(range)).orElseThrow();
    assertEquals(new Range(3, 6), next);
    assertEquals(List.of(4, 5, 6), emit(spout, 2, 1, next));
  }

  @Test
  void shouldStartEmptyAndGrow() {
    ListSpout<String> spout = ListSpout.empty("growing", 3);
    assertEquals(Optional.empty(), spout.nextBatch(1, Optional.empty()));
    spout.append("x");
    assertEquals(Optional.of(new Range(0, 1)), spout.nextBatch(1, Optional.empty()));
    assertEquals(1, spout.size());
  }

  @Test
  void shouldRejectMetadataBeyondTheList() {
    ListSpout<String> spout = ListSpout.of("short", List.of("a"), 5);
    SourceChangedException e = assertThrows(SourceChangedException.class,
        () -> emit(spout, 7, 2, new Range(0, 3)));
    assertTrue(e.getMessage().contains("short") && e.getMessage().contains("txid 7"), e.getMessage());
    assertFalse(e.retryable(), "a changed source is not fixed by a retry"); // no source/txid fields yet: text
    assertThrows(SourceChangedException.class, () -> spout.nextBatch(2, Optional.of(new Range(0, 4))));
  }

  @Test
  void shouldRejectNullsAndBadBatchSizes() {
    assertThrows(IllegalArgumentException.class, () -> ListSpout.of("x", List.of(), 0));
    assertThrows(NullPointerException.class, () -> ListSpout.of(null, List.of(), 1));
    assertThrows(NullPointerException.class, () -> ListSpout.of("x", Arrays.asList("a", null), 1));
    ListSpout<String> spout = ListSpout.empty("x", 1);
    assertThrows(NullPointerException.class, () -> spout.append(null));
    assertThrows(NullPointerException.class, () -> spout.appendAll(Arrays.asList("ok", null)));
    assertEquals(0, spout.size(), "a rejected appendAll appends nothing");
  }

  @Test
  void shouldAcceptConcurrentAppendsWhileCuttingBatches() throws Exception {
    ListSpout<Integer> spout = ListSpout.empty("concurrent", 7);
    int writers = 4;
    int perWriter = 2_000;
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        int base = w * perWriter;
        done.add(pool.submit(() -> IntStream.range(base, base + perWriter).forEach(spout::append)));
      }
      List<Integer> seen = new ArrayList<>();
      Optional<Range> previous = Optional.empty();
      long txid = 1;
      while (seen.size() < writers * perWriter) {
        Optional<Range> next = spout.nextBatch(txid, previous);
        if (next.isPresent()) {
          assertTrue(next.get().length() <= 7);
          seen.addAll(emit(spout, txid++, 1, next.get()));
          previous = next;
        }
      }
      for (Future<?> f : done) {
        f.get(10, TimeUnit.SECONDS);
      }
      assertEquals(writers * perWriter, seen.stream().distinct().count());
    } finally {
      pool.shutdownNow();
    }
  }
}
