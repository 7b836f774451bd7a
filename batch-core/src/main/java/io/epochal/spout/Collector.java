package io.epochal.spout;

import io.epochal.api.Stable;

/**
 * Receives the records a spout emits for one batch attempt. Not thread-safe: one emitter thread at a time.
 *
 * @param <T> the record type
 *
 * @since 0.1.0
 */
@Stable
public interface Collector<T> {

  /**
   * Adds a record to the batch.
   *
   * @param record the record, not null; it belongs to the batch attempt this collector was handed for
   * @throws io.epochal.errors.InvalidRecordException if {@code record} is null (records are never dropped)
   */
  void emit(T record);
}
