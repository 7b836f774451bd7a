package io.epochal.store.rocksdb;

import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Supplier;

/**
 * Whether a store is still open, and the lock that keeps its native handles alive while they are used: the read
 * lock around any use of a native handle, the write lock for closing. Thread-safe.
 */
final class StoreLife {
  /** Read lock: any use of a native handle. Write lock: {@link RocksDbTableStore#close()}. */
  private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
  private final String description;
  private volatile boolean closed;

  /** @param description the store's {@link RocksDbTableStore#describe()}, for the "is closed" message */
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

  /** Runs {@code work} under the read lock, once {@link #checkOpen()} passed. */
  <T> T whileOpen(Supplier<T> work) {
    lock.readLock().lock();
    try {
      checkOpen();
      return work.get();
    } finally {
      lock.readLock().unlock();
    }
  }
}
