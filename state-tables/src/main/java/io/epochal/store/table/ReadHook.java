package io.epochal.store.table;

import io.epochal.api.Evolving;

/**
 * A fault-injection point on the read path of a {@link TableStore}, for tests that a store never turns an unreadable
 * value into "absent" (the contract in {@code io.epochal.testkit.store.TableStoreContract} uses it). Stores accept
 * one through their builders ({@code readHook(..)}); the default, {@link #NONE}, changes nothing.
 *
 * <p>Contract for stores:
 * <ul>
 *   <li>Every read of committed rows ({@link StoreTransaction#lookup}, {@link StoreTransaction#scan},
 *       {@link TableStore#lookup}, and so also the reads of checkpoint rows that go through them) calls
 *       {@link #beforeRead} with the table's path ({@link TableSchema#path()}, as given to
 *       {@link TableStore#openTable}) once per call, before reaching storage. An exception it throws must reach the
 *       caller, as is or as the cause of a {@link io.epochal.errors.StoreException}, never an empty result, and the
 *       transaction must not have applied anything because of it.</li>
 *   <li>A store that keeps rows as bytes (on disk, or as encoded columns of a remote table) passes the stored bytes of
 *       every row it reads through {@link #storedBytes} before decoding and checking them, so damaged bytes (a
 *       flipped bit, a truncated or replaced value) must come out as an {@link io.epochal.errors.EpochalException}
 *       that no retry can fix (typically {@link io.epochal.errors.StateCorruptedException}), naming the table and,
 *       for a lookup, the key. A store that keeps rows as objects (the in-memory store) or as typed columns decoded
 *       by a server has no such bytes: it does not call {@link #storedBytes} and says so in its documentation.</li>
 * </ul>
 *
 * <p>Implementations must be thread-safe if the store is used by several threads.
 *
 * @since 0.2.0
 */
@Evolving
public interface ReadHook {

  /** Changes nothing. */
  ReadHook NONE = new ReadHook() { };

  /**
   * Called before a lookup or scan of {@code tablePath} reads storage; throw to simulate an unreadable store.
   *
   * @param tablePath the table's path
   */
  default void beforeRead(String tablePath) {
  }

  /**
   * Called with the stored bytes of one row (its whole encoded value, as read) before the store decodes them.
   *
   * @param tablePath the table's path
   * @param stored the bytes as read; must not be modified in place
   * @return the bytes to decode: {@code stored}, or a damaged copy
   */
  default byte[] storedBytes(String tablePath, byte[] stored) {
    return stored;
  }
}
