package io.epochal.state;

/**
 * Makes one state per partition, like Trident's {@code StateFactory.makeState(conf, metrics, partition, n)}.
 * Declares the state's {@link StateKind} and whether its writes are committed atomically with the coordinator's
 * epoch, so the pipeline builder can compute the guarantee it delivers.
 *
 * @param <S> the state type
 */
public interface StateFactory<S extends State> {

  /** Makes the state of one partition. Called once per partition when a pipeline starts. */
  S makeState(StateContext context);

  /** The replay behaviour of the states this factory makes. */
  StateKind kind();

  /**
   * True when the states' writes only become durable through the pipeline's checkpoint commit (they are buffered in
   * an epoch of their own checkpoint store). The builder then refuses a pipeline whose checkpoint store does not
   * commit them atomically ({@code CheckpointStore.commitsAtomicallyWith}), instead of losing the writes. The
   * default is false: the state writes through on its own.
   */
  default boolean requiresAtomicCommit() {
    return false;
  }

  /**
   * True when every partition of the state must see every batch ({@code beginCommit(t)}/{@code commit(t)}), even a
   * batch none of whose records reach it, as Storm does for Trident states: a state that keeps per-partition
   * bookkeeping (a replay undoing what the partition committed) needs it. The default is false: a partition is only
   * given the batches that reach it.
   *
   * @since 0.4.0
   */
  default boolean takesEveryBatch() {
    return false;
  }

  /** A short human description used in error messages, e.g. {@code "OpaqueMap over InMemoryBackingMap"}. */
  default String describe() {
    return getClass().getSimpleName() + " (" + kind() + ")";
  }
}
