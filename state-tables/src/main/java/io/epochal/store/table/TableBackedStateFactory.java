package io.epochal.store.table;

import io.epochal.api.Evolving;
import io.epochal.state.Staging;
import io.epochal.state.State;
import io.epochal.state.StateFactory;
import java.util.Optional;

/**
 * A {@link StateFactory} whose states write tables of the pipeline's table store through the epoch's
 * {@link EpochBuffer}: they need that staging ({@link #staging()}), which a {@link TableCheckpointStore} offers. The
 * states are made against the pipeline's checkpoint store (found through the state context, never passed to the
 * factory); their writes commit atomically with the epoch exactly when the buffer is
 * {@linkplain EpochBuffer#atomic() atomic} ({@link CommitProtocol#EPOCH}).
 *
 * <p>Implementations are immutable and thread-safe, like any state factory.
 *
 * @param <S> the state type
 * @since 0.1.0
 */
@Evolving
public interface TableBackedStateFactory<S extends State> extends StateFactory<S> {

  /** @return {@code EpochBuffer}: the states stage their rows in the epoch's buffer */
  @Override
  default Optional<Class<? extends Staging>> staging() {
    return Optional.of(EpochBuffer.class);
  }
}
