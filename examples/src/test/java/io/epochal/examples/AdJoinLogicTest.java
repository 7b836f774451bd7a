package io.epochal.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.epochal.codec.CodecException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The ad-join's pieces by hand: the batch recomputation on a small input whose result is worked out here (so the
 * reference of the property and the Kafka tests is itself checked), the cell codec, and the generator's promises.
 */
class AdJoinLogicTest {
  private static final long H = AdJoinLogic.WINDOW;
  private static final long L = AdJoinLogic.LATENESS;
  private static final long T = AdJoinInput.T0;

  private static AdEvent show(String id, long t) {
    return new AdEvent(AdEvent.Kind.SHOW, id, t, "", 0);
  }

  private static AdEvent click(String id, long t) {
    return new AdEvent(AdEvent.Kind.CLICK, id, t, "", 1);
  }

  private static AdEvent factors(String id, long t, String f) {
    return new AdEvent(AdEvent.Kind.FACTORS, id, t, f, 2);
  }

  private static AdEvent tick(int source, long t) {
    return new AdEvent(AdEvent.Kind.TICK, AdEvent.TICK_KEY, t, "", source);
  }

  @Test
  void recomputationByHand() {
    long end = T + 10 * H;
    List<AdEvent> input = List.of(
        click("a", T + 5_000),                  // before its show in the input: joins (first click)
        show("a", T),
        click("a", T + H),                      // the hour's last millisecond counts
        click("a", T + H + 1),                  // late
        click("a", T + H + L + 1),              // after the lateness hour: unmatched
        click("a", T - 1),                      // before the show: unmatched
        factors("a", T + 60_000, "old"),
        factors("a", T + 120_000, "new"),       // the earliest factors of the hour win (the delay releases it first)
        factors("a", T + H + 1, "too-late"),    // not this hour's
        show("b", T + 2 * H),                   // no click, no factors
        click("x", T + 3 * H),                  // a show id that never shows: unmatched
        show("c", end - AdJoinLogic.BOUND - H + 1), // its hour ends after the final watermark: not emitted
        tick(0, end), tick(1, end), tick(2, end));
    AdJoinLogic.Expected e = AdJoinLogic.recompute(input);
    assertEquals(end - AdJoinLogic.BOUND, e.watermark());
    assertEquals(Map.of(
        "a", "show=" + T + " clicked=true click=" + (T + 5_000) + " clicks=2 factors=" + (T + 60_000) + " old",
        "b", "show=" + (T + 2 * H) + " clicked=false click=- clicks=0 factors=-"), e.outputs());
    assertEquals(Map.of(AdJoinLogic.SHOWS_EMITTED, 2L, AdJoinLogic.LATE_CLICKS, 1L,
        AdJoinLogic.UNMATCHED_CLICKS, 3L), e.counts());
  }

  @Test
  void anOrphanClickCountsOnlyOnceTheWatermarkReachedIt() {
    long w = T + H + AdJoinLogic.BOUND; // the ticks of both sources make the watermark T + H
    List<AdEvent> input = List.of(click("x", T + H), tick(0, w - 1), tick(1, w - 1));
    assertEquals(Map.of(), AdJoinLogic.recompute(input).counts());
    input = List.of(click("x", T + H), tick(0, w), tick(1, w));
    assertEquals(Map.of(AdJoinLogic.UNMATCHED_CLICKS, 1L), AdJoinLogic.recompute(input).counts());
  }

  @Test
  void cellsRoundTripAndGarbageIsACodecException() {
    AdJoinLogic.EntryCodec codec = new AdJoinLogic.EntryCodec();
    AdJoinLogic.Entry entry = new AdJoinLogic.Entry(T, true, false, 2, T + 3, T + 4, "ctr=0.1|a,b:c",
        List.of(new AdJoinLogic.Waiting(T + 7, null), new AdJoinLogic.Waiting(T + 8, "x|y,z:w")));
    assertEquals(entry, codec.decode(codec.encode(entry)));
    assertEquals(AdJoinLogic.Entry.EMPTY, codec.decode(codec.encode(AdJoinLogic.Entry.EMPTY)));
    assertThrows(CodecException.class, () -> codec.decode("v2|1|2".getBytes(StandardCharsets.UTF_8)));
    assertThrows(CodecException.class, () -> codec.decode("v2|x|0|0|0|-1|-1||".getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void theGeneratorKeepsEveryPartitionWithinTheBoundAndEndsWithTicks() {
    int[] partitions = {3, 2, 4};
    List<AdEvent> input = AdJoinInput.generate(5, 3000, partitions);
    Map<Integer, Long> max = new java.util.HashMap<>();
    java.util.Set<String> shows = new java.util.HashSet<>();
    for (AdEvent e : input) {
      long before = max.getOrDefault(e.source(), e.time());
      // a record is never BOUND or more behind an earlier record of its partition: it is never late
      assertEquals(true, e.time() > before - AdJoinLogic.BOUND, () -> e + " is late after " + before);
      max.merge(e.source(), e.time(), Math::max);
      if (e.kind() == AdEvent.Kind.SHOW) {
        assertEquals(true, shows.add(e.showId()), "show ids are unique");
      }
    }
    assertEquals(3 + 2 + 4, max.size(), "every partition of every topic has records");
    assertEquals(9, input.subList(input.size() - 9, input.size()).stream()
        .filter(e -> e.kind() == AdEvent.Kind.TICK).count());
    AdJoinLogic.Expected e = AdJoinLogic.recompute(input);
    assertEquals(3000, e.outputs().size(), "the ticks let every show be emitted");
    assertEquals(true, e.counts().get(AdJoinLogic.LATE_CLICKS) > 0);
    assertEquals(true, e.counts().get(AdJoinLogic.UNMATCHED_CLICKS) > 0);
  }
}
