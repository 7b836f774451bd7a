package io.epochal.flow;

import io.epochal.api.Evolving;
import io.epochal.cache.StateCache;
import io.epochal.store.table.TableCheckpointStore;
import java.util.Objects;

/**
 * What the states of Flow computations share: the {@link StateCache} and the processing-time {@link TimerClock}.
 * Their tables live in the table store of the pipeline's own checkpoint store ({@code
 * Pipeline.newBuilder(..).checkpointStore(TableCheckpointStore...)}): each partition's states are bound, when the
 * engine makes them, to the epoch buffer that store offers, and stage their rows in each batch's epoch; nothing is
 * passed twice and no store is compared with another.
 *
 * <p><b>Table ownership.</b> Every writer (computation and state) claims its table in the checkpoint store's one
 * claim registry ({@link TableCheckpointStore#claim}), the same registry the map states of
 * {@link io.epochal.store.table.TableStates} claim theirs in: a second writer of a table is refused with
 * {@link io.epochal.errors.TableClaimedTwiceException} whichever API declared it, when the pipeline is built. Joiners claim
 * nothing. Re-declaring the same writer (a pipeline rebuilt after a restart) is allowed.
 *
 * <p><b>Protocol.</b> Under {@link io.epochal.store.table.CommitProtocol#EPOCH} (a store with atomic multi-table
 * commit) Flow states are exactly-once with any replayable spout. Their rows carry no txid, so they declare themselves
 * non-transactional: under {@code PER_KEY} an {@code EXACTLY_ONCE} pipeline is refused; {@code AT_LEAST_ONCE} may be
 * opted in to. Timers and watermarks need {@code EPOCH}.
 *
 * <p>Thread-safe. Entry points: {@link #create()}, {@link #builder()}.
 *
 * @since 0.1.0
 */
@Evolving
public final class FlowStates {
  private final StateCache cache;
  private final TimerClock clock;

  private FlowStates(StateCache cache, TimerClock clock) {
    this.cache = cache;
    this.clock = clock;
  }

  /**
   * Flow states with a new {@link StateCache} of the default size (100 MiB uncompressed, 1 GiB compressed) and the
   * system clock.
   *
   * @return new Flow states, with a cache of their own: call once per process and share the result
   */
  public static FlowStates create() {
    return builder().build();
  }

  /** @return a builder of Flow states */
  public static Builder builder() {
    return new Builder();
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
   * The committed event-time progress of computation {@code computation} of pipeline {@code pipeline}, read from
   * {@code checkpoints}' table store (one point lookup).
   *
   * @param checkpoints the checkpoint store the pipeline was built with; its table store holds the watermark table
   * @param pipeline the pipeline's name, as given to {@code Pipeline.newBuilder}
   * @param computation the computation's name, as given to {@link Flow#process}
   * @return the watermark and late-record count as of the last committed batch; empty if the computation has no
   *     watermark, or committed no batch that changed it
   * @throws io.epochal.errors.StateCorruptedException if the stored progress does not decode
   * @since 0.5.0
   */
  public static java.util.Optional<EventTimeProgress> eventTimeProgress(TableCheckpointStore checkpoints,
      String pipeline, String computation) {
    return io.epochal.flow.internal.Watermarks.committed(checkpoints, pipeline, computation);
  }

  @Override
  public String toString() {
    return "FlowStates[" + cache + ", " + clock + "]";
  }

  /**
   * Builds {@link FlowStates}. Options may be set once ({@link IllegalStateException} otherwise). Not thread-safe.
   */
  public static final class Builder {
    private StateCache cache;
    private TimerClock clock;

    private Builder() {
    }

    /**
     * The shared cache (default: a new one with the default weights). Share one cache between all states.
     *
     * @param cache the cache the states and joiners of these Flow states keep their values in; not null
     * @return this builder
     * @throws NullPointerException if {@code cache} is null
     * @throws IllegalStateException if already set
     */
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
     * @param clock read once per partition and batch attempt to find due processing-time timers and to measure
     *     watermark idleness; not null
     * @return this builder
     * @throws NullPointerException if {@code clock} is null
     * @throws IllegalStateException if already set
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
      return new FlowStates(cache == null ? StateCache.builder().build() : cache,
          clock == null ? TimerClock.system() : clock);
    }
  }
}
