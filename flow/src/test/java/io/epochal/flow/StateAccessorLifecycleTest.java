package io.epochal.flow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.codec.Codecs;
import io.epochal.flow.FlowTesting.ListSpout;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.Stream;
import io.epochal.store.table.KeyCodec;
import io.epochal.store.table.TableCheckpointStore;
import io.epochal.store.table.TableStore;
import io.epochal.store.table.TableStores;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class StateAccessorLifecycleTest {
  private final TableStore store = TableStores.inMemory();
  private final TableCheckpointStore checkpoints = TableCheckpointStore.on(store);
  private final FlowStates states = FlowStates.create();

  private static StateSpec<String, Long> clicksSpec() {
    return StateSpec.internal("clicks", KeyCodec.strings(), Codecs.longs(), 0L).build();
  }

  /** Counts records per key in state 'clicks'; hooks let a test look at accessors. */
  static class Counter implements KeyedProcessor<String, String, String> {
    StateClient<String, Long> clicks;

    @Override
    public void init(ProcessorContext<String> context) {
      clicks = context.state(clicksSpec());
    }

    @Override
    public void process(String key, List<String> records, Emitter<String> out) {
      StateAccessor<Long> a = clicks.accessor(key);
      long n = a.update(v -> v + records.size());
      onProcessed(key, a);
      out.emit(key + "=" + n);
    }

    void onProcessed(String key, StateAccessor<Long> accessor) {
    }
  }

  private long run(ListSpout<String> spout, Supplier<? extends KeyedProcessor<String, String, String>> processor) {
    PipelineBuilder builder = Pipeline.newBuilder("clicks-pipeline").checkpointStore(checkpoints);
    Stream<String> records = builder.source(spout);
    Flow.process(records, "counter", r -> r, processor, states);
    try (Pipeline pipeline = builder.build()) {
      return pipeline.runUntilIdle().batches();
    }
  }

  @Test
  void shouldRefuseAnAccessorUsedAfterItsEpochNamingStateKeyAndEpoch() {
    AtomicReference<StateAccessor<Long>> kept = new AtomicReference<>();
    List<String> errors = new ArrayList<>();
    ListSpout<String> spout = new ListSpout<>(List.of("k", "k"), List.of("k"), List.of("j"));
    long batches = run(spout, () -> new Counter() {
      @Override
      void onProcessed(String key, StateAccessor<Long> accessor) {
        StateAccessor<Long> old = kept.get();
        if (old != null && key.equals("k")) {
          try {
            old.set(100L); // must not write through a stale accessor
          } catch (IllegalStateException e) {
            errors.add(e.getMessage());
          }
        }
        if (key.equals("k")) {
          kept.set(accessor);
        }
      }
    });
    assertEquals(3, batches);
    assertEquals(List.of("Accessor of state 'clicks' for key 'k' belongs to epoch 1, which has ended"), errors);
    // the accessor of epoch 2 is dead once the pipeline ran: every method refuses
    StateAccessor<Long> last = kept.get();
    String expected = "Accessor of state 'clicks' for key 'k' belongs to epoch 2, which has ended";
    assertEquals(expected, assertThrows(IllegalStateException.class, last::get).getMessage());
    assertEquals(expected, assertThrows(IllegalStateException.class, () -> last.getOrDefault(0L)).getMessage());
    assertEquals(expected, assertThrows(IllegalStateException.class, () -> last.set(5L)).getMessage());
    assertEquals(expected, assertThrows(IllegalStateException.class, () -> last.update(v -> v + 1)).getMessage());
    assertEquals(expected, assertThrows(IllegalStateException.class, last::clear).getMessage());
    assertEquals(Map.of("k", 3L, "j", 1L),
        FlowTesting.read(store, "clicks-pipeline/counter/clicks", Codecs.longs()), "the stale set wrote nothing");
  }

  @Test
  void shouldRefuseAJoinedAccessorUsedAfterItsEpoch() {
    AtomicReference<JoinedStateAccessor<Long>> kept = new AtomicReference<>();
    ListSpout<String> spout = new ListSpout<>(List.of("k"), List.of("k"));
    run(spout, () -> new Counter() {
      JoinedStateClient<String, Long> own;

      @Override
      public void init(ProcessorContext<String> context) {
        super.init(context);
        own = context.joiner(JoinSpec.internalState("own-clicks", "counter", "clicks", KeyCodec.strings(),
            Codecs.longs()).build());
      }

      @Override
      void onProcessed(String key, StateAccessor<Long> accessor) {
        kept.set(own.accessor(key));
      }
    });
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> kept.get().get());
    assertEquals("Accessor of state 'own-clicks' for key 'k' belongs to epoch 2, which has ended", e.getMessage());
  }

  @Test
  void shouldRefuseAccessorsOutsideProcessAndDeclarationsOutsideInit() {
    AtomicReference<ProcessorContext<String>> context = new AtomicReference<>();
    List<String> errors = new ArrayList<>();
    run(new ListSpout<>(List.of("k")), () -> new Counter() {
      @Override
      public void init(ProcessorContext<String> ctx) {
        super.init(ctx);
        context.set(ctx);
        try {
          clicks.accessor("k");
        } catch (IllegalStateException e) {
          errors.add(e.getMessage());
        }
      }

      @Override
      void onProcessed(String key, StateAccessor<Long> accessor) {
        try {
          context.get().state(StateSpec.internal("late", KeyCodec.strings(), Codecs.longs(), 0L).build());
        } catch (IllegalStateException e) {
          errors.add(e.getMessage());
        }
      }
    });
    assertTrue(errors.size() >= 3, errors.toString()); // spec pass + partition init + process
    assertTrue(errors.get(0).contains("State 'clicks' of computation 'counter' has no current epoch"), errors.get(0));
    assertTrue(errors.get(errors.size() - 1).contains("can only be declared in init()"), errors.toString());
  }

  @Test
  void shouldReadOwnWritesReturnOneAccessorPerKeyAndDeleteEmptiedStates() {
    List<String> seen = new ArrayList<>();
    ListSpout<String> spout = new ListSpout<>(List.of("a", "b", "c"), List.of("a", "b", "c"));
    run(spout, () -> new Counter() {
      int batch;

      @Override
      public void process(String key, List<String> records, Emitter<String> out) {
        StateAccessor<Long> a = clicks.accessor(key);
        if (a != clicks.accessor(key)) {
          throw new AssertionError("two accessors for one key in one epoch");
        }
        Optional<Long> before = a.get();
        switch (key) {
          case "a" -> a.set(a.getOrDefault(0L) + 1);
          case "b" -> {
            if (before.isPresent()) {
              a.set(0L); // the default value: empty
            } else {
              a.set(7L);
            }
          }
          default -> {
            a.update(v -> v + 2);
            if (before.isPresent()) {
              a.clear();
            }
          }
        }
        seen.add(key + ":" + before.map(String::valueOf).orElse("-") + "->" + a.get().map(String::valueOf)
            .orElse("-"));
        batch++;
      }
    });
    assertEquals(List.of("a:-->1", "b:-->7", "c:-->2", "a:1->2", "b:7->-", "c:2->-"), seen);
    assertEquals(Map.of("a", 2L), FlowTesting.read(store, "clicks-pipeline/counter/clicks", Codecs.longs()),
        "emptied states (default value, clear) have no row");
  }

  @Test
  void shouldRejectTwoStatesWithOneName() {
    PipelineBuilder builder = Pipeline.newBuilder("dup").checkpointStore(checkpoints);
    Stream<String> records = builder.source(new ListSpout<>(List.of("k")));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> Flow.process(records, "twice", r -> r, () -> new Counter() {
          @Override
          public void init(ProcessorContext<String> context) {
            super.init(context);
            context.joiner(JoinSpec.table("clicks", "elsewhere", KeyCodec.strings(), Codecs.longs()).build());
          }
        }, states));
    assertTrue(e.getMessage().contains("two states or joiners named 'clicks'"), e.getMessage());
  }
}
