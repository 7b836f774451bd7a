package io.epochal.flow;

import io.epochal.api.Evolving;
import io.epochal.cache.StateCache;
import io.epochal.store.table.TableCheckpointStore;
import java.util.Objects;

/**
 * Where the states of Flow computations live: the {@link TableCheckpointStore} whose table store holds their tables
 * and whose epoch buffer commits their writes with the pipeline's checkpoint, and the shared {@link StateCache}.
 * Pass the same checkpoint store to the pipeline builder ({@code Pipeline.newBuilder(..).checkpointStore(..)}): the
 * states' writes are committed by it.
 *
 * <p><b>Table ownership.</b> Every writer (computation and state) claims its table in the checkpoint store's one
 * claim registry ({@link TableCheckpointStore#claim}), the same registry the map states of
 * {@link io.epochal.store.table.TableStates} claim theirs in: a second writer of a table is refused with
 * {@link io.epochal.errors.TableClaimedTwiceException} whichever API declared it, at the {@link Flow#process}
 * declaring it (external tables) or when the pipeline is built (internal tables and map states). Joiners claim
 * nothing. Re-declaring the same writer (a pipeline rebuilt after a restart) is allowed.
 *
 * <p><b>Protocol.</b> Under {@link io.epochal.store.table.CommitProtocol#EPOCH} (a store with atomic multi-table
 * commit) Flow states are exactly-once with any replayable spout. Under {@code PER_KEY} their rows carry no txid, so
 * they declare themselves non-transactional and an {@code EXACTLY_ONCE} pipeline is refused; {@code AT_LEAST_ONCE}
 * may be opted in to.
 *
 * <p>Thread-safe. Entry points: {@link #on(TableCheckpointStore)}, {@link #builder(TableCheckpointStore)}.
 *
 * @since 0.1.0
 */
@Evolving
public final class FlowStates {
  private final TableCheckpointStore checkpoints;
  private final StateCache cache;
  private final TimerClock clock;

  private FlowStates(TableCheckpointStore checkpoints, StateCache cache, TimerClock clock) {
    this.checkpoints = checkpoints;
    this.cache = cache;
    this.clock = clock;
  }

  /**
   * Flow states over {@code checkpoints}, with a new {@link StateCache} of the default size (100 MiB uncompressed,
   * 1 GiB compressed).
   *
   * @throws NullPointerException if {@code checkpoints} is null
   */
  public static FlowStates on(TableCheckpointStore checkpoints) {
    return builder(checkpoints).build();
  }

  /** @return a builder of Flow states over {@code checkpoints} */
  public static Builder builder(TableCheckpointStore checkpoints) {
    return new Builder(checkpoints);
  }

  /** @return the checkpoint store (and through it the table store) of the states */
  public TableCheckpointStore checkpointStore() {
    return checkpoints;
  }

  /** @return the shared state cache */
  public StateCache cache() {
    return cache;
  }

  /**
   * @return the processing-time clock of the computations' timers and of their watermarks' idleness timeouts
   *     ({@link TimerClock#system()} by default)
   */
  public TimerClock clock() {
    return clock;
  }

  /**
   * The committed event-time progress of computation {@code computation} of pipeline {@code pipeline}, read from the
   * store (one point lookup).
   *
   * @return empty if the computation has no watermark, or committed no batch that changed it
   * @throws io.epochal.errors.StateCorruptedException if the stored progress does not decode
   * @since 0.5.0
   */
  public java.util.Optional<EventTimeProgress> eventTimeProgress(String pipeline, String computation) {
    return io.epochal.flow.internal.Watermarks.committed(checkpoints, pipeline, computation);
  }

  @Override
  public String toString() {
    return "FlowStates[" + checkpoints.describe() + ", " + cache + "]";
  }

  /**
   * Builds {@link FlowStates}. Options may be set once ({@link IllegalStateException} otherwise). Not thread-safe.
   */
  public static final class Builder {
    private final TableCheckpointStore checkpoints;
    private StateCache cache;
    private TimerClock clock;

    private Builder(TableCheckpointStore checkpoints) {
      this.checkpoints = Objects.requireNonNull(checkpoints, "checkpoints");
    }

    /** The shared cache (default: a new one with the default weights). Share one cache between all states. */
    public Builder cache(StateCache cache) {
      if (this.cache != null) {
        throw new IllegalStateException("cache was already set to " + this.cache);
      }
      this.cache = Objects.requireNonNull(cache, "cache");
      return this;
    }

    /**
     * The processing-time clock of the timers ({@link TimeDomain#PROCESSING_TIME}); default
     * {@link TimerClock#system()}. Tests inject a clock that is a function of the batch.
     *
     * @since 0.5.0
     */
    public Builder clock(TimerClock clock) {
      if (this.clock != null) {
        throw new IllegalStateException("clock was already set to " + this.clock);
      }
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** @return the Flow states; the builder is unchanged */
    public FlowStates build() {
      return new FlowStates(checkpoints, cache == null ? StateCache.builder().build() : cache,
          clock == null ? TimerClock.system() : clock);
    }
  }
}
