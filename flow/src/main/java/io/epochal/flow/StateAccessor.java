package io.epochal.flow;

import io.epochal.api.Evolving;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * The read-write view of one key's state in one epoch (YTsaurus Flow's {@code TStateAccessor}): obtained from
 * {@link StateClient#accessor}, valid until the epoch ends.
 *
 * <p><b>Empty means absent.</b> A state is empty when it has no row; {@link #get()} is then empty and
 * {@link #getOrDefault} returns its argument. A state that becomes empty ({@link #clear()}, or a value equal to the
 * state's default, or empty by the state's own rule) deletes its row at commit.
 *
 * <p><b>Writes</b> are buffered in the accessor and written at the end of the epoch, atomically with the epoch's
 * checkpoint: nothing is visible to other readers before the epoch commits, and nothing of a failed attempt ever is.
 * Reads through the accessor see its own writes at once.
 *
 * <p><b>Epoch.</b> Every method throws {@link IllegalStateException} once the epoch the accessor belongs to has ended
 * (committed or aborted), with a message naming the state, the key and the epoch, e.g. {@code Accessor of state
 * 'clicks' for key 'k' belongs to epoch 7, which has ended}.
 *
 * <p>Values must be treated as immutable: the state keeps and caches the instances it is given. Not thread-safe: use
 * an accessor on the thread that processes its key.
 *
 * @param <S> the state type
 * @since 0.1.0
 */
@Evolving
public interface StateAccessor<S> {

  /** @return the state's value, empty if the state is empty */
  Optional<S> get();

  /**
   * Reads the state's value, falling back to a given value.
   *
   * @param defaultValue what to return if the state is empty; may be null, and need not be the state's default
   * @return the state's value, or {@code defaultValue} if the state is empty
   */
  S getOrDefault(S defaultValue);

  /**
   * Replaces the state's value. Setting the default value (or a value empty by the state's rule) clears the state.
   *
   * @param value the new value, written at the end of the epoch; not null (use {@link #clear()} to empty the state)
   * @throws io.epochal.errors.InvalidRecordException (not retryable) if {@code value} is null
   */
  void set(S value);

  /**
   * Replaces the state's value by {@code fn} applied to the current value, or to the state's default value if the
   * state is empty.
   *
   * @param fn computes the new value from the current one (or the default); must not return null
   * @return the new value
   * @throws NullPointerException if {@code fn} is null
   * @throws io.epochal.errors.InvalidRecordException (not retryable) if {@code fn} returns null, naming the state's
   *     table, the key and the epoch
   */
  S update(UnaryOperator<S> fn);

  /** Empties the state: its row is deleted at commit. */
  void clear();
}
