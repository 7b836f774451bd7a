package io.epochal.pipeline.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.errors.GuaranteeNotDeliverableException;
import io.epochal.pipeline.Aggregators;
import io.epochal.pipeline.Guarantee;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.internal.GuaranteeCheck.Reason;
import io.epochal.spout.SpoutKind;
import io.epochal.state.InMemoryBackingMap;
import io.epochal.state.NonTransactionalMap;
import io.epochal.state.StateKind;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The guarantee check as a table: complete, the pairing table of README.md, today's messages. */
class GuaranteeCheckTest {

  @Test
  void theTableHasExactlyOneRuleForEveryPairing() {
    Set<List<Object>> seen = new HashSet<>();
    for (GuaranteeCheck.Rule r : GuaranteeCheck.RULES) {
      assertTrue(seen.add(List.of(r.spout(), r.state(), r.atomic())), "two rules for " + r);
    }
    assertEquals(SpoutKind.values().length * StateKind.values().length * 2, seen.size());
  }

  @Test
  void thePairingTable() {
    // per-key protocol (not atomic)
    assertOk(SpoutKind.TRANSACTIONAL, StateKind.TRANSACTIONAL, false);
    assertOk(SpoutKind.TRANSACTIONAL, StateKind.OPAQUE, false);
    assertOk(SpoutKind.OPAQUE, StateKind.OPAQUE, true);
    assertOk(SpoutKind.OPAQUE, StateKind.TRANSACTIONAL, true);
    assertOk(SpoutKind.OPAQUE, StateKind.NON_TRANSACTIONAL, true);
    assertOk(SpoutKind.TRANSACTIONAL, StateKind.NON_TRANSACTIONAL, true);
    assertReason(SpoutKind.OPAQUE, StateKind.OPAQUE, false, Reason.OPAQUE_SPOUT_PER_KEY);
    assertReason(SpoutKind.OPAQUE, StateKind.TRANSACTIONAL, false, Reason.OPAQUE_SPOUT_TRANSACTIONAL_STATE);
    assertReason(SpoutKind.TRANSACTIONAL, StateKind.NON_TRANSACTIONAL, false, Reason.NON_TRANSACTIONAL_STATE);
    assertReason(SpoutKind.OPAQUE, StateKind.NON_TRANSACTIONAL, false, Reason.NON_TRANSACTIONAL_STATE);
    // a state's own hole is named before the spout's
    assertReason(SpoutKind.NON_TRANSACTIONAL, StateKind.NON_TRANSACTIONAL, false, Reason.NON_TRANSACTIONAL_STATE);
    for (boolean atomic : new boolean[] {false, true}) {
      for (StateKind state : List.of(StateKind.TRANSACTIONAL, StateKind.OPAQUE)) {
        assertReason(SpoutKind.NON_TRANSACTIONAL, state, atomic, Reason.NON_TRANSACTIONAL_SPOUT);
      }
      for (SpoutKind spout : SpoutKind.values()) {
        assertReason(spout, StateKind.READ_ONLY, atomic, Reason.READ_ONLY_STATE);
      }
    }
    assertReason(SpoutKind.NON_TRANSACTIONAL, StateKind.NON_TRANSACTIONAL, true, Reason.NON_TRANSACTIONAL_SPOUT);
  }

  @Test
  void theMessageNamesSpoutStateAndFix() {
    String m = Reason.OPAQUE_SPOUT_PER_KEY.message("spout 's' (OPAQUE)", "state 'counts' (OpaqueMap)");
    assertTrue(m.startsWith("spout 's' (OPAQUE) may re-cut a replayed batch, and on the per-key (Trident) protocol "
        + "state 'counts' (OpaqueMap) keeps the failed attempt's value"), m);
    assertTrue(m.contains("Fix: use a transactional spout"), m);
    assertTrue(Reason.READ_ONLY_STATE.message("x", "state 'r' (R)")
        .startsWith("state 'r' (R) is read-only and cannot be written."));
  }

  @Test
  void exactlyOnceIsRefusedAndWeakerGuaranteesAreOptIns() {
    InMemoryBackingMap<String, Long> backing = new InMemoryBackingMap<>();
    GuaranteeNotDeliverableException e = assertThrows(GuaranteeNotDeliverableException.class,
        () -> counting(Pipeline.newBuilder("g"), backing).build());
    assertTrue(e.getMessage().startsWith("Pipeline 'g' cannot deliver EXACTLY_ONCE: spout 'list' (TRANSACTIONAL) "
        + "writes state 'counts' (" + NonTransactionalMap.factory(backing).describe() + "), which applies a "
        + "replayed batch twice"), e.getMessage());
    try (Pipeline p = counting(Pipeline.newBuilder("g").guarantee(Guarantee.AT_LEAST_ONCE), backing).build()) {
      assertEquals(Guarantee.AT_LEAST_ONCE, p.guarantee());
    }
  }

  private static PipelineBuilder counting(PipelineBuilder b, InMemoryBackingMap<String, Long> backing) {
    b.source(new EngineTesting.ListSpout<>(List.of(List.of("a", "b")))).groupBy(w -> w)
        .persistentAggregate("counts", NonTransactionalMap.factory(backing), Aggregators.count());
    return b;
  }

  private static void assertOk(SpoutKind spout, StateKind state, boolean atomic) {
    assertEquals(Optional.empty(), GuaranteeCheck.rule(spout, state, atomic).reason(),
        spout + " x " + state + " atomic=" + atomic);
  }

  private static void assertReason(SpoutKind spout, StateKind state, boolean atomic, Reason reason) {
    assertEquals(Optional.of(reason), GuaranteeCheck.rule(spout, state, atomic).reason(),
        spout + " x " + state + " atomic=" + atomic);
  }
}
