package io.epochal.state.opaque;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.state.opaque.OpaqueValue.Decision;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class OpaqueValueTest {

  @Test
  void shouldHoldCurrPrevAndTxid() {
    OpaqueValue<Long> cell = OpaqueValue.of(12L, 5L, 7);
    assertEquals(12L, cell.curr());
    assertEquals(Optional.of(5L), cell.prev());
    assertEquals(7, cell.txid());
    assertEquals(new OpaqueValue<>(12L, Optional.of(5L), 7), cell);
  }

  @Test
  void shouldRepresentAFirstWriteWithAnEmptyPrev() {
    OpaqueValue<Long> cell = OpaqueValue.first(3L, 1);
    assertEquals(Optional.empty(), cell.prev());
    assertEquals(new OpaqueValue<>(3L, Optional.empty(), 1), cell);
  }

  @Test
  void shouldRejectNulls() {
    assertEquals("curr", assertThrows(NullPointerException.class, () -> OpaqueValue.first(null, 1)).getMessage());
    assertEquals("prev", assertThrows(NullPointerException.class,
        () -> new OpaqueValue<>(1L, null, 1)).getMessage());
    assertThrows(NullPointerException.class, () -> OpaqueValue.of(1L, null, 1));
    assertThrows(NullPointerException.class, () -> OpaqueValue.of(null, 1L, 1));
  }

  @Test
  void shouldRejectTxidBelowOne() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> OpaqueValue.first(1L, 0));
    assertTrue(e.getMessage().contains("was 0"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> OpaqueValue.of(1L, 1L, -1));
  }

  @Test
  void shouldDecideByComparingTxids() {
    OpaqueValue<Long> cell = OpaqueValue.of(12L, 5L, 7);
    assertEquals(Decision.BUILD_ON_CURR, cell.decide(8));
    assertEquals(Decision.REPLAY_FROM_PREV, cell.decide(7));
    assertEquals(Decision.AHEAD, cell.decide(6));
    assertThrows(IllegalArgumentException.class, () -> cell.decide(0));
  }

  @Test
  void shouldBuildOnCurrForALaterBatch() {
    assertEquals(Optional.of(12L), OpaqueValue.of(12L, 5L, 7).base(8));
    assertEquals(Optional.of(3L), OpaqueValue.first(3L, 1).base(2));
  }

  @Test
  void shouldBuildOnPrevForAReplayOfTheSameBatch() {
    assertEquals(Optional.of(5L), OpaqueValue.of(12L, 5L, 7).base(7));
    assertEquals(Optional.empty(), OpaqueValue.first(3L, 1).base(1));
  }

  @Test
  void shouldReturnTheStoredPrevAsIsOnReplay() {
    OpaqueValue<Long> cell = OpaqueValue.of(12L, 5L, 7);
    assertSame(cell.prev(), cell.base(7));
  }

  @Test
  void shouldRefuseBaseAndNextForAnEarlierBatch() {
    OpaqueValue<Long> cell = OpaqueValue.of(12L, 5L, 7);
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> cell.base(6));
    assertTrue(e.getMessage().contains("batch 7") && e.getMessage().contains("batch 6"), e.getMessage());
    assertThrows(IllegalStateException.class, () -> cell.next(6, 1L));
  }

  @Test
  void shouldMoveCurrToPrevForALaterBatch() {
    assertEquals(OpaqueValue.of(20L, 12L, 8), OpaqueValue.of(12L, 5L, 7).next(8, 20L));
    assertEquals(OpaqueValue.of(4L, 3L, 2), OpaqueValue.first(3L, 1).next(2, 4L));
  }

  @Test
  void shouldKeepPrevWhenReplayingTheSameBatch() {
    assertEquals(OpaqueValue.of(20L, 5L, 7), OpaqueValue.of(12L, 5L, 7).next(7, 20L));
    assertEquals(OpaqueValue.first(4L, 1), OpaqueValue.first(3L, 1).next(1, 4L));
  }

  @Test
  void shouldKeepPrevAcrossRepeatedWritesOfOneBatch() {
    OpaqueValue<Long> once = OpaqueValue.of(10L, 5L, 6).next(7, 11L);
    assertEquals(OpaqueValue.of(13L, 10L, 7), once.next(7, 13L));
  }

  @Test
  void shouldRejectNullNewValue() {
    assertEquals("newValue", assertThrows(NullPointerException.class,
        () -> OpaqueValue.first(1L, 1).next(2, null)).getMessage());
  }

  @Test
  void shouldCompareByAllComponents() {
    assertEquals(OpaqueValue.of(1L, 2L, 3).hashCode(), OpaqueValue.of(1L, 2L, 3).hashCode());
    assertNotEquals(OpaqueValue.of(1L, 2L, 3), OpaqueValue.first(1L, 3));
    assertNotEquals(OpaqueValue.of(1L, 2L, 3), OpaqueValue.of(1L, 2L, 4));
    assertNotEquals(OpaqueValue.of(1L, 2L, 3), OpaqueValue.of(0L, 2L, 3));
    assertEquals("OpaqueValue[curr=1, prev=Optional[2], txid=3]", OpaqueValue.of(1L, 2L, 3).toString());
  }
}
