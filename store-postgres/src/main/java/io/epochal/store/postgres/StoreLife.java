package io.epochal.store.postgres;

import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * Whether a store is still open, and the lock that orders calls before its close: the read lock around any call in
 * progress, the write lock for closing. Thread-safe.
 */
final class StoreLife {
  /** Read lock: any call in progress. Write lock: {@link PostgresTableStore#close()}. */
  private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
  private final String description;
  private volatile boolean closed;

  /** @param description the store's {@link PostgresTableStore#describe()}, for the "is closed" message */
  StoreLife(String description) {
    this.description = description;
  }

  Lock readLock() {
    return lock.readLock();
  }

  Lock writeLock() {
    return lock.writeLock();
  }

  /** @throws IllegalStateException if the store is closed */
  void checkOpen() {
    if (closed) {
      throw new IllegalStateException(description + " is closed");
    }
  }

  /**
   * Marks the store closed; call under the write lock.
   *
   * @return whether it was open
   */
  boolean markClosed() {
    boolean wasOpen = !closed;
    closed = true;
    return wasOpen;
  }
}
