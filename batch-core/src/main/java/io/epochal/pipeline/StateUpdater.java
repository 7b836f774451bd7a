package io.epochal.pipeline;

import io.epochal.api.Stable;
import io.epochal.spout.BatchAttempt;
import io.epochal.state.State;
import java.util.List;

/**
 * Writes one partition's records of a batch into a state, between the state's {@code begin(epoch)} and
 * {@code end()}. Called once per batch attempt per partition that received records, in txid order.
 *
 * @param <S> the state type
 * @param <T> the record type
 *
 * @since 0.1.0
 */
@FunctionalInterface
@Stable
public interface StateUpdater<S extends State, T> {

  /**
   * Writes the records into the state.
   *
   * @param state the partition's state, inside its {@code begin(epoch)..end()}
   * @param batch the batch attempt being applied
   * @param records this partition's records of the batch, in emission order, never empty
   */
  void updateState(S state, BatchAttempt batch, List<T> records);
}
