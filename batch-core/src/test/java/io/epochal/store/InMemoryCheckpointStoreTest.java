package io.epochal.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.epochal.errors.EpochalException;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** The in-memory checkpoint store keeps the attempt reservation (issue 10, finding 10) and refuses disorder fatally. */
class InMemoryCheckpointStoreTest {
  private static final byte[] META = {1};

  @Test
  void shouldKeepTheAttemptReservationThroughPendingAndCommits() {
    InMemoryCheckpointStore store = new InMemoryCheckpointStore();
    store.reserveAttempts("p", 10, 257);
    store.recordPending("p", 1, META);
    store.recordPending("p", 2, META);
    store.commit("p", 1, META);
    store.reserveAttempts("p", 5, 300);
    Checkpoint cp = store.load("p");
    assertEquals(10, cp.attemptCeiling(), "never lowered");
    assertEquals(300, cp.txidWindow());
    assertEquals(List.of(2L), List.copyOf(cp.pendingMetadata().keySet()));
    assertEquals(Checkpoint.EMPTY, store.load("other"));
  }

  @Test
  void shouldRefuseOutOfOrderCommitsAsNonRetryable() {
    InMemoryCheckpointStore store = new InMemoryCheckpointStore();
    store.commit("p", 1, META);
    EpochalException e = assertThrows(EpochalException.class, () -> store.commit("p", 3, META));
    assertFalse(EpochalException.isRetryable(e));
    assertEquals(Optional.of("p"), e.context().pipeline());
    assertEquals(OptionalLong.of(3), e.context().txid());
    assertFalse(EpochalException.isRetryable(assertThrows(EpochalException.class,
        () -> store.recordPending("p", 1, META))));
  }
}
