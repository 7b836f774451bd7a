package io.epochal.state;

import io.epochal.api.Evolving;
import java.util.Collection;

/**
 * A {@link MapState} that can delete keys, for the open epoch's batch like any other write: after the batch the keys
 * are absent (reads report them absent, updates build on empty) and their rows are gone from the store, so their
 * storage is reclaimed.
 *
 * <p>Replay: on the epoch protocol (a table store's {@link Staging}) the deletions are staged with the batch's other
 * writes and committed, or dropped with a failed attempt, atomically, whatever the state's rule. Without staging (the
 * per-key protocol, in-memory stores) a deletion is immediate and writes no tombstone: a replay of the batch deletes
 * the same keys again, which is exact when every attempt of a batch makes the same calls (a transactional spout's
 * batches). It is not exact for an opaque map whose failed attempt removed a key its re-cut replay keeps: the key's
 * previous value is gone. {@link io.epochal.pipeline.Dedup#byId} only removes ids that no later batch can see as
 * duplicates, which is exact on both protocols.
 *
 * <p>Thread-safety is the implementation's; the project's map states are confined to one thread at a time (one
 * instance per partition).
 *
 * @param <K> the key type
 * @param <V> the value type
 * @since 0.7.0
 */
@Evolving
public interface RemovableMapState<K, V> extends MapState<K, V> {

  /**
   * Whether {@link #multiRemove} deletes: false for a layer whose store cannot (a wrapper over a map state or a backing
   * map without removal). The default is true.
   *
   * @return true if {@link #multiRemove} works on this state
   */
  default boolean canRemove() {
    return true;
  }

  /**
   * Deletes the given keys for the open epoch's batch; absent keys are ignored. A key written earlier in the same
   * attempt is deleted too.
   *
   * @param keys the keys to delete
   * @throws NullPointerException if {@code keys} is null
   * @throws IllegalStateException if no epoch is open, or the open epoch is {@linkplain Epoch#readOnly read-only}
   * @throws UnsupportedOperationException if {@link #canRemove()} is false, naming the state and its store
   * @throws io.epochal.errors.InvalidRecordException (not retryable) if a key is null or has no value equality
   */
  void multiRemove(Collection<? extends K> keys);
}
