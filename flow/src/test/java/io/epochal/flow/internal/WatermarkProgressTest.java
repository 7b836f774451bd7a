package io.epochal.flow.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The watermark rule: bound, minimum over source partitions, idleness, monotonicity, lateness, committed form. */
class WatermarkProgressTest {
  private static final Optional<Long> NEVER = Optional.empty();

  @Test
  void shouldBeTheLargestTimestampMinusTheBound() {
    WatermarkProgress p = WatermarkProgress.NONE.advance(Map.of(0, 100L), 0, 10, 30, NEVER);
    assertEquals(70, p.watermark());
    assertEquals(Long.MIN_VALUE, WatermarkProgress.NONE.advance(Map.of(), 0, 10, 30, NEVER).watermark(),
        "no record, no watermark");
    assertEquals(Long.MIN_VALUE, WatermarkProgress.NONE.advance(Map.of(0, Long.MIN_VALUE + 3), 0, 10, 30, NEVER)
        .watermark(), "no overflow below Long.MIN_VALUE");
  }

  @Test
  void shouldBeTheMinimumOverSourcePartitions() {
    WatermarkProgress p = WatermarkProgress.NONE.advance(Map.of(0, 100L, 1, 40L, 2, 70L), 0, 10, 5, NEVER);
    assertEquals(35, p.watermark());
    p = p.advance(Map.of(1, 90L), 0, 20, 5, NEVER);
    assertEquals(65, p.watermark(), "partition 2 now holds it back");
  }

  @Test
  void shouldNeverGoBack() {
    WatermarkProgress p = WatermarkProgress.NONE.advance(Map.of(0, 100L), 0, 10, 0, NEVER);
    p = p.advance(Map.of(0, 50L), 0, 20, 0, NEVER);
    assertEquals(100, p.watermark(), "an older record does not move it back");
    p = p.advance(Map.of(1, 10L), 0, 30, 0, NEVER);
    assertEquals(100, p.watermark(), "a new partition behind the watermark does not move it back");
    p = p.advance(Map.of(0, 300L), 0, 40, 0, NEVER);
    assertEquals(100, p.watermark(), "partition 1 (max 10) holds it");
    p = p.advance(Map.of(1, 200L), 0, 50, 0, NEVER);
    assertEquals(200, p.watermark());
  }

  @Test
  void shouldNotLetAnIdlePartitionHoldTheWatermarkBack() {
    Optional<Long> idle = Optional.of(25L);
    WatermarkProgress p = WatermarkProgress.NONE.advance(Map.of(0, 100L, 1, 50L), 0, 10, 0, idle);
    assertEquals(50, p.watermark());
    p = p.advance(Map.of(0, 200L), 0, 20, 0, idle);
    assertEquals(50, p.watermark(), "partition 1 sent 10 ms ago: not idle");
    p = p.advance(Map.of(0, 300L), 0, 34, 0, idle);
    assertEquals(50, p.watermark(), "24 ms: not idle yet");
    p = p.advance(Map.of(), 0, 35, 0, idle);
    assertEquals(300, p.watermark(), "25 ms without records: idle");
    p = p.advance(Map.of(), 0, 100, 0, idle);
    assertEquals(300, p.watermark(), "every partition idle: the watermark stays");
    p = p.advance(Map.of(1, 60L), 0, 110, 0, idle);
    assertEquals(300, p.watermark(), "partition 1 is back, behind: the watermark does not go back");
    assertEquals(new WatermarkProgress.Source(60, 110), p.sources().get(1));
    WatermarkProgress never = WatermarkProgress.NONE.advance(Map.of(0, 100L, 1, 50L), 0, 10, 0, NEVER)
        .advance(Map.of(0, 300L), 0, 1_000_000, 0, NEVER);
    assertEquals(50, never.watermark(), "without a timeout a silent partition holds it forever");
  }

  @Test
  void shouldCallRecordsBelowTheWatermarkLate() {
    WatermarkProgress p = WatermarkProgress.NONE.advance(Map.of(0, 100L), 0, 10, 10, NEVER);
    assertTrue(p.isLate(89));
    assertFalse(p.isLate(90), "a record exactly the bound behind the largest is on time");
    assertFalse(WatermarkProgress.NONE.isLate(Long.MIN_VALUE));
    assertEquals(7, p.advance(Map.of(), 3, 20, 10, NEVER).advance(Map.of(), 4, 30, 10, NEVER).lateRecords());
  }

  @Test
  void shouldRoundTripItsCommittedForm() {
    WatermarkProgress p = WatermarkProgress.NONE.advance(Map.of(0, 100L, 7, -5L, 3, 9L), 2, 10, 1, NEVER);
    assertEquals(p, WatermarkProgress.decode(p.watermark(), p.lateRecords(), p.encodeSources()));
    assertThrows(IllegalArgumentException.class, () -> WatermarkProgress.decode(0, 0, new byte[] {0, 0, 0, 2, 1}));
    assertThrows(IllegalArgumentException.class, () -> WatermarkProgress.decode(0, 0, new byte[2]));
  }
}
