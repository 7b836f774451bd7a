package io.epochal.store;

import io.epochal.api.Stable;

/**
 * Where a sink stages the outputs of one batch attempt so that they commit with the batch's epoch: the engine offers
 * one per sink through the epoch's staging ({@code epoch.staging(Outbox.class)}) when the pipeline's checkpoint store
 * {@linkplain CheckpointStore#keepsOutbox() keeps an outbox}. What a failed attempt put here is dropped with it.
 *
 * <p>Thread-safe: partitions of a batch may put concurrently.
 *
 * @since 0.4.0
 */
@Stable
public interface Outbox {

  /**
   * Stages the encoded outputs of {@code partition} of this attempt; one call per partition and attempt (a second
   * call for the same partition replaces the first).
   *
   * @param partition the sink partition whose outputs these are, {@code >= 0}
   * @param payload the partition's outputs as the sink encoded them; opaque to the store
   * @throws IllegalArgumentException if {@code partition} is negative
   */
  void put(int partition, byte[] payload);
}
