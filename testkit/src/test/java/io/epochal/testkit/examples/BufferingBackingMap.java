package io.epochal.testkit.examples;

import io.epochal.state.IBackingMap;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

/**
 * A user's backing map over a durable "disk" map with a write buffer: puts are acknowledged once buffered, and the
 * buffer is written to disk every {@code flushEvery} puts. Reads see the buffer over the disk, so while the object
 * lives it looks right, and {@code close()} writes the buffer; with {@code flushEvery > 1} a crash (which never runs
 * {@code close()}) loses acknowledged writes of committed batches.
 */
final class BufferingBackingMap<C> implements IBackingMap<String, C>, AutoCloseable {
  private final Map<String, C> disk;
  private final int flushEvery;
  private final Map<String, C> buffer = new HashMap<>();
  private int puts;

  BufferingBackingMap(Map<String, C> disk, int flushEvery) {
    this.disk = disk;
    this.flushEvery = flushEvery;
  }

  @Override
  public synchronized Map<String, C> multiGet(Collection<? extends String> keys) {
    Map<String, C> found = new HashMap<>();
    for (String key : keys) {
      C cell = buffer.containsKey(key) ? buffer.get(key) : disk.get(key);
      if (cell != null) {
        found.put(key, cell);
      }
    }
    return java.util.Collections.unmodifiableMap(found);
  }

  @Override
  public synchronized void multiPut(Map<String, C> put) {
    buffer.putAll(put);
    if (++puts % flushEvery == 0) {
      disk.putAll(buffer);
      buffer.clear();
    }
  }

  @Override
  public synchronized void close() {
    disk.putAll(buffer);
    buffer.clear();
  }
}
