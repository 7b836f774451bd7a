package io.epochal.flow;

import io.epochal.api.Evolving;
import java.util.Optional;

/**
 * The read-only view of one key's state in another writer's table (YTsaurus Flow's {@code TConstStateAccessor}),
 * obtained from {@link JoinedStateClient#accessor}. The value was read from the shared
 * {@link io.epochal.cache.StateCache} or, on a miss or after its TTL, from the table at the start of the epoch: it may
 * be up to the joiner's TTL older than the table.
 *
 * <p>Every method throws {@link IllegalStateException} once the epoch the accessor belongs to has ended, with a
 * message naming the state, the key and the epoch. Not thread-safe.
 *
 * @param <S> the state type
 * @since 0.1.0
 */
@Evolving
public interface JoinedStateAccessor<S> {

  /** @return the joined state's value, empty if the table has no row for the key */
  Optional<S> get();

  /**
   * Reads the joined state's value, falling back to a given value.
   *
   * @param defaultValue what to return if the table has no row for the key; may be null
   * @return the joined state's value, or {@code defaultValue} if the table has no row for the key
   */
  S getOrDefault(S defaultValue);
}
