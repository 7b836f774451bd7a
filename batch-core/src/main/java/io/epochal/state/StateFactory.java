package io.epochal.state;

import io.epochal.api.Stable;

/**
 * Makes one state per partition, like Trident's {@code StateFactory.makeState(conf, metrics, partition, n)}.
 * Declares the state's {@link StateKind} and the {@link Staging} its states need from the pipeline's epochs, so the
 * pipeline builder can compute the guarantee it delivers (a state's writes are atomic with the epoch exactly when the
 * pipeline's checkpoint store offers that staging and it is {@link Staging#atomic() atomic}).
 *
 * @param <S> the state type
 *
 * @since 0.1.0
 */
@Stable
public interface StateFactory<S extends State> {

  /**
   * Makes the state of one partition. Called once per partition when a pipeline starts.
   *
   * @param context the pipeline, the state's name, the partition and what the pipeline's epochs offer
   * @return a new state for that partition, with no epoch open
   */
  S makeState(StateContext context);

  /**
   * The replay behaviour of the states this factory makes.
   *
   * @return the kind the pipeline builder checks the delivery guarantee with
   */
  StateKind kind();

  /**
   * The type of staging the states stage their writes in (found in each batch's epoch, {@link Epoch#staging}), e.g.
   * {@code EpochBuffer} for table-backed states. The pipeline builder refuses a checkpoint store that does not offer
   * it with {@link io.epochal.errors.StagingUnavailableException}, instead of losing the writes. The default is
   * empty: the state writes through on its own. A wrapping factory forwards it.
   *
   * @return the staging type the states need; empty if they need none
   */
  default java.util.Optional<Class<? extends Staging>> staging() {
    return java.util.Optional.empty();
  }

  /**
   * True when every partition of the state must see every batch ({@code begin(epoch)}/{@code end()}), even a
   * batch none of whose records reach it, as Storm does for Trident states: a state that keeps per-partition
   * bookkeeping (a replay undoing what the partition committed) needs it. The default is false: a partition is only
   * given the batches that reach it.
   *
   * @return true if every partition must be given every batch
   * @since 0.4.0
   */
  default boolean takesEveryBatch() {
    return false;
  }

  /**
   * A short human description used in error messages, e.g. {@code "OpaqueMap over InMemoryBackingMap"}.
   *
   * @return the description; the default is the class's simple name and the kind
   */
  default String describe() {
    return getClass().getSimpleName() + " (" + kind() + ")";
  }
}
