package io.epochal.flow;

import io.epochal.api.Evolving;

/**
 * A read-write client of one named state (YTsaurus Flow's {@code TMutableStateKeyClient}), declared in
 * {@link KeyedProcessor#init} with {@link ProcessorContext#state}. It owns its table for writing: no other writer of
 * the pipeline may claim it.
 *
 * <p>Keep the client in a field; ask it for an accessor in every epoch. Used by the thread processing the
 * partition; not thread-safe.
 *
 * @param <K> the key type
 * @param <S> the state type
 * @since 0.1.0
 */
@Evolving
public interface StateClient<K, S> {

  /** @return the state's name, unique within its computation */
  String name();

  /** @return the path of the table the state is stored in */
  String tablePath();

  /**
   * The accessor of {@code key}'s state in the current epoch. Asking twice for one key in one epoch returns the same
   * accessor. A key of the batch was loaded at the start of the epoch; another key (an explicit key) is looked up
   * now, in its own lookup.
   *
   * @param key the key whose state to read and write
   * @return the read-write view of the key's state, valid until the epoch ends
   * @throws NullPointerException if {@code key} is null
   * @throws IllegalStateException if called outside an epoch (for example in {@code init})
   * @throws io.epochal.errors.StateCorruptedException if the stored bytes cannot be decoded
   */
  StateAccessor<S> accessor(K key);
}
