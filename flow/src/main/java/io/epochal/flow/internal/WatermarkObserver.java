package io.epochal.flow.internal;

import io.epochal.pipeline.StateUpdater;
import io.epochal.state.Epoch;
import io.epochal.state.State;
import io.epochal.state.StateContext;
import io.epochal.state.StateKind;
import io.epochal.store.table.EpochBuffer;
import io.epochal.store.table.TableBackedStateFactory;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The node that feeds a Flow computation's watermark: a {@code partitionPersist} declared on the computation's input
 * just before its keyed-process node, so that in every batch's commit phase it sees all of the batch's records (spread
 * over its partitions) before any partition of the computation fires timers. Each partition adds the largest
 * timestamp per source partition of its records to the {@link ComputationWatermark}; partition 0 stages the advanced
 * watermark in the epoch at {@code end()}, after every partition of the computation processed the batch (the engine
 * ends states in declaration order). Every partition takes every batch. It writes no table of its own: the watermark
 * row is the computation's. Immutable factory; each state is used by one thread at a time. Internal.
 */
public final class WatermarkObserver implements TableBackedStateFactory<WatermarkObserver.Part> {
  private final FlowComputation<?, ?, ?> computation;
  private final ComputationWatermark watermark;

  WatermarkObserver(FlowComputation<?, ?, ?> computation, ComputationWatermark watermark) {
    this.computation = computation;
    this.watermark = watermark;
  }

  /**
   * Names the observer node of a computation.
   *
   * @param name the computation's name
   * @return the state name of the node of computation {@code name} (no computation name holds {@code /}, so it never
   *     collides with a computation's)
   */
  public static String stateName(String name) {
    return name + "/watermark";
  }

  /**
   * Returns the updater of the node.
   *
   * @param <T> the record type of the computation's input
   * @return the updater of the node: observes a partition's records
   */
  public static <T> StateUpdater<Part, T> updater() {
    return (part, batch, records) -> part.observe(records);
  }

  @Override
  public Part makeState(StateContext context) {
    return new Part(context.partitionIndex());
  }

  /** Like the computation's: the watermark row commits with its epoch exactly when its states do. */
  @Override
  public StateKind kind() {
    return computation.kind();
  }

  @Override
  public boolean takesEveryBatch() {
    return true;
  }

  @Override
  public String describe() {
    return "watermark of " + computation.describe();
  }

  /** One partition of the node. Used by one thread at a time. */
  public final class Part implements State {
    private final int partition;
    private volatile Epoch epoch;

    private Part(int partition) {
      this.partition = partition;
    }

    @Override
    public void begin(Epoch e) {
      EpochBuffer buffer = e.staging(EpochBuffer.class).orElseThrow(() -> new IllegalStateException("the epoch "
          + e + " of the watermark of computation '" + computation.name() + "' stages no table rows"));
      watermark.begin(e, buffer);
      epoch = e;
    }

    void observe(List<?> records) {
      Map<Integer, Long> maxima = new HashMap<>();
      for (Object r : records) {
        maxima.merge(watermark.strategy().sourcePartitionOf(r), watermark.strategy().timestampOf(r), Math::max);
      }
      watermark.observe(epoch, maxima);
    }

    @Override
    public void end() {
      if (partition == 0) {
        watermark.stage(epoch);
      }
      epoch = null;
    }

    @Override
    public void abort() {
      epoch = null;
      watermark.abort();
    }

    @Override
    public String toString() {
      return "WatermarkObserver[" + computation.name() + ", partition " + partition + "]";
    }
  }
}
