package io.epochal.spouts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.spout.BatchAttempt;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.LongStream;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;

class ReCuttingOpaqueSpoutProperties {

  /**
   * Runs txid after txid; txid {@code t} gets {@code attempts[t-1]} attempts (1 if the list is shorter), each
   * starting from the last committed position; only the last attempt is committed. The committed batches, in txid
   * order, must be exactly the input: no gap, no overlap, no reordering.
   */
  @Property
  void everyRecordIsInExactlyOneCommittedBatch(
      @ForAll @IntRange(min = 0, max = 300) int count,
      @ForAll @IntRange(min = 1, max = 10) int minBatch,
      @ForAll @IntRange(min = 0, max = 20) int extra,
      @ForAll long seed,
      @ForAll @Size(max = 100) List<@IntRange(min = 1, max = 4) Integer> attempts) {
    ReCuttingOpaqueSpout<Long> spout = ReCuttingOpaqueSpout.generated("recut", count, i -> i, minBatch,
        minBatch + extra, seed);
    List<Long> committed = new ArrayList<>();
    Optional<Long> position = Optional.empty();
    long txid = 1;
    while (spout.isReady(txid, position)) {
      int tries = txid <= attempts.size() ? attempts.get((int) txid - 1) : 1;
      List<Long> batch = null;
      long after = -1;
      for (int attempt = 1; attempt <= tries; attempt++) {
        batch = new ArrayList<>();
        after = spout.emit(new BatchAttempt(txid, attempt), position, batch::add);
        assertTrue(batch.size() >= 1 && batch.size() <= minBatch + extra, "batch size " + batch.size());
        assertEquals(position.orElse(0L) + batch.size(), after);
      }
      committed.addAll(batch);
      position = Optional.of(after);
      txid++;
      assertTrue(txid <= count + 2, "progress");
    }
    assertEquals(LongStream.range(0, count).boxed().toList(), committed);
  }

  @Property
  void aReplayNeverRepeatsTheFirstAttemptsCut(
      @ForAll @IntRange(min = 1, max = 10) int minBatch,
      @ForAll @IntRange(min = 1, max = 20) int extra,
      @ForAll long seed,
      @ForAll @LongRange(min = 1, max = 1_000_000) long txid,
      @ForAll @IntRange(min = 2, max = 50) int attempt) {
    ReCuttingOpaqueSpout<Long> spout = ReCuttingOpaqueSpout.generated("recut", 1_000_000, i -> i, minBatch,
        minBatch + extra, seed);
    int first = spout.batchLength(new BatchAttempt(txid, 1));
    int replay = spout.batchLength(new BatchAttempt(txid, attempt));
    assertNotEquals(first, replay);
    assertTrue(replay >= minBatch && replay <= minBatch + extra);
    assertEquals(replay, spout.batchLength(new BatchAttempt(txid, attempt)), "deterministic");
  }
}
