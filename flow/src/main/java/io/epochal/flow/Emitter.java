package io.epochal.flow;

import io.epochal.api.Evolving;

/**
 * Receives the output records of a {@link KeyedProcessor}. Records emitted while processing a batch flow downstream
 * in the same batch; those of a failed attempt are discarded. Valid only during the {@code process} call it was
 * passed to; not thread-safe.
 *
 * @param <R> the output record type
 * @since 0.1.0
 */
@FunctionalInterface
@Evolving
public interface Emitter<R> {

  /**
   * Emits one record.
   *
   * @param record the output record, sent downstream in the current batch; not null
   * @throws io.epochal.errors.InvalidRecordException if {@code record} is null (the batch fails and the pipeline
   *     stops: records are never dropped silently)
   */
  void emit(R record);
}
