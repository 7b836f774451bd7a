package io.epochal.store.table;

/**
 * A fault-injection point on the read path of a {@link TableStore}, for tests that a store never turns an unreadable
 * value into "absent" (the contract in {@code io.epochal.testkit.store.TableStoreContract} uses it). Stores accept
 * one through their builders ({@code readHook(..)}); the default, {@link #NONE}, changes nothing.
 *
 * <p>Contract for stores: every read of committed rows ({@link StoreTransaction#lookup}, {@link StoreTransaction#scan},
 * {@link TableStore#lookup}, and the store's own reads of checkpoint or lease rows through those) calls
 * {@link #beforeRead} once per call, before reaching storage; an exception it throws must reach the caller (as is or
 * as the cause of a {@link io.epochal.errors.StoreException}), never an empty result. A store that keeps rows as
 * bytes passes every stored cell's bytes through {@link #storedBytes} before decoding and checking them, so damaged
 * bytes must come out as {@link io.epochal.errors.StateCorruptedException} naming table and key.
 *
 * <p>Implementations must be thread-safe if the store is used by several threads.
 *
 * @since 0.2.0
 */
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
   * Called with the stored bytes of one cell (the whole encoded value, as read) before the store decodes them.
   *
   * @param tablePath the table's path
   * @param stored the bytes as read; must not be modified in place
   * @return the bytes to decode: {@code stored}, or a damaged copy
   */
  default byte[] storedBytes(String tablePath, byte[] stored) {
    return stored;
  }
}
