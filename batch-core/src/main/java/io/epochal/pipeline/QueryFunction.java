package io.epochal.pipeline;

import io.epochal.api.Stable;
import io.epochal.spout.BatchAttempt;
import io.epochal.state.State;
import java.util.List;

/**
 * Reads a state for a partition's records of a batch and returns one result per record (Trident's
 * {@code batchRetrieve}). Runs after every writer declared before it in the pipeline, inside the state partition's
 * epoch: the engine begins each partition once per batch ({@code begin(epoch)}, at the first node that uses it) and
 * ends it after the batch's last node, so a query sees what the batch's earlier updates wrote.
 *
 * @param <S> the state type
 * @param <T> the record type
 * @param <R> the result type
 *
 * @since 0.1.0
 */
@FunctionalInterface
@Stable
public interface QueryFunction<S extends State, T, R> {

  /**
   * Reads the state for a partition's records.
   *
   * @param state the partition's state, inside its {@code begin(epoch)..end()}
   * @param batch the batch attempt being applied
   * @param records the partition's records reaching the query, in emission order
   * @return one result per record, in the records' order; a null result drops nothing: it is an error
   */
  List<R> batchRetrieve(S state, BatchAttempt batch, List<T> records);
}
