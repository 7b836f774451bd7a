package io.epochal.state;

import io.epochal.api.Stable;

/**
 * Something a pipeline's epochs offer their states to stage writes in (e.g. the {@code EpochBuffer} of a table
 * checkpoint store), found by type: before any batch through {@link StateContext#staging(Class)} (the pipeline's
 * checkpoint store offers it), in a batch through {@link Epoch#staging(Class)}. A state that needs one declares its
 * type ({@link StateFactory#staging()}); the pipeline builder refuses a checkpoint store that does not offer it, and
 * the state's writes are covered by the epoch's durable commit exactly when the staging is {@link #atomic()}.
 *
 * <p>Implementations are thread-safe (partitions of a batch stage concurrently).
 *
 * @since 0.3.0
 */
@Stable
public interface Staging {

  /** @return the pipeline whose epochs stage here */
  String pipeline();

  /**
   * @return true when what is staged becomes durable in the epoch's durable commit, in one store transaction with
   *     the spout metadata and the txid (and is dropped by its abort); false when each write goes through on its own
   */
  boolean atomic();
}
