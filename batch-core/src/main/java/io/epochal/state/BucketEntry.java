package io.epochal.state;

import io.epochal.api.Evolving;

/**
 * The key of one entry of a bucket of keys ({@link RemovableStateFactory#buckets()}): entry {@code index} (from 0) of
 * bucket {@code bucket} (e.g. a txid) of state partition {@code partition}. Immutable value.
 *
 * @param partition the state partition the bucket belongs to, at least 0
 * @param bucket the bucket's number
 * @param index the entry's position in the bucket, at least 0
 * @since 0.7.0
 */
@Evolving
public record BucketEntry(int partition, long bucket, int index) {

  /**
   * Checks the entry.
   *
   * @param partition the state partition the bucket belongs to, at least 0
   * @param bucket the bucket's number
   * @param index the entry's position in the bucket, at least 0
   * @throws IllegalArgumentException if {@code partition} or {@code index} is negative
   */
  public BucketEntry {
    if (partition < 0 || index < 0) {
      throw new IllegalArgumentException("partition and index must be >= 0, were " + partition + " and " + index);
    }
  }
}
