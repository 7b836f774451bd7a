package io.epochal.pipeline;

import io.epochal.spout.BatchAttempt;
import io.epochal.state.State;
import java.util.List;

/**
 * Reads a state for a partition's records of a batch and returns one result per record (Trident's
 * {@code batchRetrieve}). Runs after every writer declared before it in the pipeline, without
 * {@code beginCommit}/{@code commit}.
 *
 * @param <S> the state type
 * @param <T> the record type
 * @param <R> the result type
 */
@FunctionalInterface
public interface QueryFunction<S extends State, T, R> {

  /** @return one result per record, in the records' order; a null result drops nothing: it is an error */
  List<R> batchRetrieve(S state, BatchAttempt batch, List<T> records);
}
