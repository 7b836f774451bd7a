package io.epochal.spouts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.errors.SourceChangedException;
import io.epochal.spout.BatchAttempt;
import io.epochal.spout.SpoutKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class ReCuttingOpaqueSpoutTest {

  static final List<Long> INPUT = LongStream.range(0, 1000).boxed().toList();

  record Emitted(List<Long> records, long position) {
  }

  static Emitted emit(ReCuttingOpaqueSpout<Long> spout, long txid, int attempt, Optional<Long> previous) {
    List<Long> out = new ArrayList<>();
    long position = spout.emit(new BatchAttempt(txid, attempt), previous, out::add);
    return new Emitted(out, position);
  }

  @Test
  void shouldBeDeterministicForSeedTxidAndAttempt() {
    ReCuttingOpaqueSpout<Long> a = ReCuttingOpaqueSpout.of("recut", INPUT, 1, 50, 99);
    ReCuttingOpaqueSpout<Long> b = ReCuttingOpaqueSpout.of("recut", INPUT, 1, 50, 99);
    assertEquals(SpoutKind.OPAQUE, a.kind());
    for (long txid = 1; txid <= 20; txid++) {
      for (int attempt = 1; attempt <= 3; attempt++) {
        assertEquals(emit(a, txid, attempt, Optional.of(17L)), emit(b, txid, attempt, Optional.of(17L)));
      }
    }
  }

  @Test
  void shouldCutReplaysDifferentlyFromTheFirstAttempt() {
    ReCuttingOpaqueSpout<Long> spout = ReCuttingOpaqueSpout.of("recut", INPUT, 2, 6, 1);
    for (long txid = 1; txid <= 200; txid++) {
      Emitted first = emit(spout, txid, 1, Optional.of(100L));
      for (int attempt = 2; attempt <= 5; attempt++) {
        Emitted replay = emit(spout, txid, attempt, Optional.of(100L));
        assertNotEquals(first.records(), replay.records(), "txid " + txid + " attempt " + attempt);
        assertEquals(100L, replay.records().get(0), "a replay starts at the given position");
        assertEquals(100L + replay.records().size(), replay.position());
      }
    }
  }

  @Test
  void shouldPickEveryLengthWithinTheBounds() {
    ReCuttingOpaqueSpout<Long> spout = ReCuttingOpaqueSpout.of("recut", INPUT, 3, 7, 5);
    boolean[] seen = new boolean[8];
    for (long txid = 1; txid <= 500; txid++) {
      for (int attempt = 1; attempt <= 3; attempt++) {
        int n = spout.batchLength(new BatchAttempt(txid, attempt));
        assertTrue(n >= 3 && n <= 7, "length " + n);
        seen[n] = true;
      }
    }
    for (int n = 3; n <= 7; n++) {
      assertTrue(seen[n], "length " + n + " never chosen");
    }
  }

  @Test
  void shouldUseTheFixedLengthWhenMinEqualsMax() {
    ReCuttingOpaqueSpout<Long> spout = ReCuttingOpaqueSpout.of("fixed", INPUT, 4, 4, 5);
    assertEquals(emit(spout, 3, 1, Optional.empty()), emit(spout, 3, 2, Optional.empty()));
    assertEquals(4, emit(spout, 3, 2, Optional.empty()).records().size());
  }

  @Test
  void shouldTruncateAtTheEndOfTheInputAndThenNotBeReady() {
    ReCuttingOpaqueSpout<String> spout = ReCuttingOpaqueSpout.generated("gen", 5, i -> "r" + i, 10, 20, 3);
    assertTrue(spout.isReady(1, Optional.empty()));
    List<String> out = new ArrayList<>();
    Long position = spout.emit(new BatchAttempt(1, 1), Optional.empty(), out::add);
    assertEquals(List.of("r0", "r1", "r2", "r3", "r4"), out);
    assertEquals(5L, position);
    assertFalse(spout.isReady(2, Optional.of(position)));
    assertEquals(new Range(5, 5), spout.cut(new BatchAttempt(2, 1), Optional.of(5L)));
  }

  @Test
  void shouldRejectPositionsOutsideTheInput() {
    ReCuttingOpaqueSpout<Long> spout = ReCuttingOpaqueSpout.of("recut", List.of(1L, 2L), 1, 2, 0);
    SourceChangedException e = assertThrows(SourceChangedException.class, () -> spout.isReady(4, Optional.of(3L)));
    assertTrue(e.getMessage().contains("recut") && e.getMessage().contains("txid 4"), e.getMessage());
    assertFalse(e.retryable(), "a changed source is not fixed by a retry"); // no source/txid fields yet: text
    assertThrows(SourceChangedException.class, () -> emit(spout, 1, 1, Optional.of(-1L)));
  }

  @Test
  void shouldRejectBadBounds() {
    assertThrows(IllegalArgumentException.class, () -> ReCuttingOpaqueSpout.of("x", INPUT, 0, 3, 0));
    assertThrows(IllegalArgumentException.class, () -> ReCuttingOpaqueSpout.of("x", INPUT, 4, 3, 0));
    assertThrows(IllegalArgumentException.class,
        () -> ReCuttingOpaqueSpout.of("x", INPUT, 1, Integer.MAX_VALUE, 0));
    assertThrows(NullPointerException.class, () -> ReCuttingOpaqueSpout.of("x", null, 1, 3, 0));
    assertThrows(IllegalArgumentException.class,
        () -> ReCuttingOpaqueSpout.generated("x", -1, i -> i, 1, 3, 0));
  }

  @Test
  void shouldRoundTripItsPosition() {
    ReCuttingOpaqueSpout<Long> spout = ReCuttingOpaqueSpout.of("recut", INPUT, 1, 3, 0);
    assertEquals(123L, spout.metadataCodec().decode(spout.metadataCodec().encode(123L)));
  }
}
