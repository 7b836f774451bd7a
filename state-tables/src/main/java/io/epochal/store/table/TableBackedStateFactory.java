package io.epochal.store.table;

import io.epochal.state.State;
import io.epochal.state.StateFactory;

/**
 * A {@link StateFactory} whose states write the tables of a {@link TableCheckpointStore}'s store through its
 * {@link EpochBuffer}. {@link TableCheckpointStore#commitsAtomicallyWith} returns true exactly for such factories
 * bound to that same checkpoint store when it runs the {@link CommitProtocol#EPOCH} protocol.
 *
 * <p>Implementations are immutable and thread-safe, like any state factory.
 *
 * @param <S> the state type
 * @since 0.1.0
 */
public interface TableBackedStateFactory<S extends State> extends StateFactory<S> {

  /** @return the checkpoint store whose epoch buffer the states write to */
  TableCheckpointStore checkpointStore();

  /** True under the epoch protocol: the rows are buffered until this factory's checkpoint store commits them. */
  @Override
  default boolean requiresAtomicCommit() {
    return checkpointStore().protocol() == CommitProtocol.EPOCH;
  }
}
