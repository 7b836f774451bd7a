package io.epochal.flow;

import io.epochal.api.Evolving;

/**
 * A read-only client of a state stored in a table that another writer owns (YTsaurus Flow's joiner,
 * {@code TJoinedStateKeyClient}), declared in {@link KeyedProcessor#init} with {@link ProcessorContext#joiner}. It
 * never claims the table. Loaded values live in the shared {@link io.epochal.cache.StateCache} until their TTL passes
 * or they are evicted.
 *
 * <p>Used by the thread processing the partition; not thread-safe.
 *
 * @param <K> the key type
 * @param <S> the state type
 * @since 0.1.0
 */
@Evolving
public interface JoinedStateClient<K, S> {

  /** @return the joiner's name, unique within its computation */
  String name();

  /** @return the path of the table it reads */
  String tablePath();

  /**
   * The accessor of {@code key} in the current epoch. A key of the batch was loaded at the start of the epoch (from
   * the cache or in the joiner's one bulk lookup); another key is looked up now.
   *
   * @param key the key whose row of the joined table to read
   * @return the read-only view of the key's joined state, valid until the epoch ends
   * @throws NullPointerException if {@code key} is null
   * @throws IllegalStateException if called outside an epoch
   * @throws io.epochal.errors.StateCorruptedException if the stored bytes cannot be decoded
   */
  JoinedStateAccessor<S> accessor(K key);
}
