package io.epochal.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.spout.BatchAttempt;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ForwardingCheckpointEpochTest {

  /** An epoch whose every answer differs from the {@link io.epochal.state.Epoch} defaults, recording its calls. */
  private static final class Recording implements CheckpointEpoch {
    final List<String> calls = new ArrayList<>();
    byte[] committed;

    @Override
    public String pipeline() {
      return "p";
    }

    @Override
    public BatchAttempt attempt() {
      return new BatchAttempt(7, 2);
    }

    @Override
    public <T> Optional<T> staging(Class<T> type) {
      return type == StringBuilder.class ? Optional.of(type.cast(new StringBuilder("staged"))) : Optional.empty();
    }

    @Override
    public boolean readOnly() {
      return true;
    }

    @Override
    public boolean skipsAppliedCells() {
      return false;
    }

    @Override
    public void commit(byte[] metadata, List<OutboxEntry> outbox) {
      calls.add("commit");
      committed = metadata;
    }

    @Override
    public void abort() {
      calls.add("abort");
    }

    @Override
    public String toString() {
      return "recording";
    }
  }

  @Test
  void aLayerThatOverridesNothingAnswersAsTheWrappedEpoch() {
    Recording inner = new Recording();
    CheckpointEpoch layer = new ForwardingCheckpointEpoch(inner) { };
    assertEquals("p", layer.pipeline());
    assertEquals(new BatchAttempt(7, 2), layer.attempt());
    assertEquals(7, layer.txid());
    assertEquals("staged", layer.staging(StringBuilder.class).orElseThrow().toString());
    assertTrue(layer.staging(Integer.class).isEmpty());
    assertTrue(layer.readOnly(), "readOnly is forwarded, not the default false");
    assertFalse(layer.skipsAppliedCells(), "skipsAppliedCells is forwarded, not the default true");
    byte[] metadata = {1, 2, 3};
    layer.commit(metadata);
    layer.abort();
    assertEquals(List.of("commit", "abort"), inner.calls);
    assertArrayEquals(metadata, inner.committed);
    assertEquals("recording", layer.toString());
    assertSame(inner, ((ForwardingCheckpointEpoch) layer).wrapped());
  }

  @Test
  void anEpochThroughAWrapperKeepsTheInnerFlagsAndCommitsThroughTheWrapper() {
    Recording inner = new Recording();
    InMemoryCheckpointStore outer = new InMemoryCheckpointStore();
    CheckpointEpoch through = CheckpointEpoch.through(outer, inner);
    assertTrue(through.readOnly());
    assertFalse(through.skipsAppliedCells());
    assertEquals("staged", through.staging(StringBuilder.class).orElseThrow().toString());
    for (long txid = 1; txid < 7; txid++) {
      outer.commit("p", txid, new byte[0]);
    }
    through.commit(new byte[] {9});
    assertTrue(inner.calls.isEmpty(), "the commit goes through the wrapping store, not the inner epoch");
    assertEquals(7, outer.load("p").committedTxid());
  }
}
