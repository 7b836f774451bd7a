package io.epochal.flow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.codec.Codecs;
import io.epochal.errors.InvalidRecordException;
import io.epochal.flow.FlowTesting.ListSpout;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.RetryPolicy;
import io.epochal.store.table.KeyCodec;
import io.epochal.store.table.TableCheckpointStore;
import io.epochal.store.table.TableStores;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** A null from a Flow state update is a bad record: the batch fails once, not retried (issue 10, finding 5). */
class FlowNullValueTest {

  @Test
  void shouldStopAtOnceWhenAStateUpdateReturnsNull() {
    for (boolean viaSet : new boolean[] {false, true}) {
      TableCheckpointStore checkpoints = TableCheckpointStore.on(TableStores.inMemory());
      PipelineBuilder builder = Pipeline.newBuilder("nulls").checkpointStore(checkpoints)
          .retryPolicy(RetryPolicy.immediate(5));
      Flow.process(builder.source(new ListSpout<>(List.of("k"))), "nulling", r -> r,
          () -> new KeyedProcessor<String, String, String>() {
            StateClient<String, Long> clicks;

            @Override
            public void init(ProcessorContext<String> context) {
              clicks = context.state(StateSpec.internal("clicks", KeyCodec.strings(), Codecs.longs(), 0L).build());
            }

            @Override
            public void process(String key, List<String> records, Emitter<String> out) {
              if (viaSet) {
                clicks.accessor(key).set(null);
              } else {
                clicks.accessor(key).update(v -> null);
              }
            }
          }, FlowStates.create());
      try (Pipeline p = builder.build()) {
        InvalidRecordException e = assertThrows(InvalidRecordException.class, p::runUntilIdle);
        assertTrue(e.context().table().orElseThrow().contains("clicks"), e::toString);
        assertFalse(e.retryable());
        assertEquals(Optional.of("k"), e.context().key());
        assertEquals(OptionalLong.of(1), e.context().txid());
        assertEquals(0, p.metrics().failedAttempts(), "not retried");
      }
    }
  }
}
