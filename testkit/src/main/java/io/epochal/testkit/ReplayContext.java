package io.epochal.testkit;

import io.epochal.api.Evolving;
import io.epochal.state.IBackingMap;
import io.epochal.state.MapState;
import io.epochal.state.StateFactory;
import io.epochal.store.CheckpointStore;
import io.epochal.store.table.BackingMapLayer;
import io.epochal.store.table.CommitHook;
import java.util.Objects;

/**
 * What a {@link ReplayCheck.PipelineUnderTest} gets for one incarnation (one "process") of a run: the fault wrappers
 * to put around its stores, the incarnation number, and a way to run on its own checkpoint store.
 *
 * <p>Not thread-safe; used while the pipeline is declared.
 *
 * @since 0.1.0
 */
@Evolving
public final class ReplayContext {
  private final String pipeline;
  private final int incarnation;
  private final Parallelism parallelism;
  private final FaultInjector faults;
  private CheckpointStore checkpointStore;

  ReplayContext(String pipeline, int incarnation, Parallelism parallelism, FaultInjector faults) {
    this.pipeline = pipeline;
    this.incarnation = incarnation;
    this.parallelism = parallelism;
    this.faults = faults;
  }

  /** @return the name of the pipeline being declared (its checkpoint key) */
  public String pipelineName() {
    return pipeline;
  }

  /** @return 0 for the first start, then +1 per simulated crash */
  public int incarnation() {
    return incarnation;
  }

  /** @return the schedule's partitions, batches in flight and threads (already set on the pipeline) */
  public Parallelism parallelism() {
    return parallelism;
  }

  /** @return the run's fault injector (shared by every incarnation of the run) */
  public FaultInjector faults() {
    return faults;
  }

  /**
   * Wraps a backing map with the run's faults ({@link FaultInjector#wrap(IBackingMap)}).
   *
   * @param <K> the key type
   * @param <C> the cell type
   * @param backing the map to wrap
   * @return the fault-injecting map, delegating to {@code backing}
   */
  public <K, C> IBackingMap<K, C> wrap(IBackingMap<K, C> backing) {
    return faults.wrap(backing);
  }

  /**
   * Wraps a map-state factory with the run's faults ({@link FaultInjector#wrapStates(StateFactory)}).
   *
   * @param <K> the key type
   * @param <V> the value type
   * @param factory the factory to wrap
   * @return a factory whose states inject faults and delegate to {@code factory}'s states
   */
  public <K, V> StateFactory<MapState<K, V>> wrapStates(StateFactory<? extends MapState<K, V>> factory) {
    return faults.wrapStates(factory);
  }

  /** @return the layer for {@code TableStates.builder(..).layer(..)} that wraps table-backed maps with the faults */
  public BackingMapLayer layer() {
    return faults.layer();
  }

  /** @return the hook to build the run's table store with ({@link FaultInjector#commitHook()}) */
  public CommitHook commitHook() {
    return faults.commitHook();
  }

  /**
   * Runs this incarnation on {@code store} (for example a new {@code TableCheckpointStore} per incarnation, as a new
   * process would build) instead of the run's in-memory checkpoint store. The kit wraps it with the faults.
   *
   * @param store the checkpoint store of this incarnation
   * @throws IllegalStateException if already set in this incarnation
   */
  public void useCheckpointStore(CheckpointStore store) {
    if (checkpointStore != null) {
      throw new IllegalStateException("the checkpoint store of incarnation " + incarnation + " was already set");
    }
    this.checkpointStore = Objects.requireNonNull(store, "store");
  }

  CheckpointStore checkpointStore() {
    return checkpointStore;
  }
}
