package io.epochal.trident;

import io.epochal.state.IBackingMap;
import io.epochal.state.InMemoryBackingMap;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.storm.topology.FailedException;

/**
 * An Epochal backing map over an {@link InMemoryBackingMap} whose every {@code every}-th {@code multiPut} writes half
 * of its cells, then throws Storm's {@link FailedException} (the batch fails after a partial state write).
 */
final class FaultyBackingMap<C> implements IBackingMap<List<Object>, C> {
  final InMemoryBackingMap<List<Object>, C> cells;
  private final long every;
  final AtomicLong puts = new AtomicLong();
  final AtomicLong failures = new AtomicLong();

  FaultyBackingMap(String name, long every) {
    this.cells = new InMemoryBackingMap<>(name);
    this.every = every;
  }

  @Override
  public Map<List<Object>, C> multiGet(Collection<? extends List<Object>> keys) {
    return cells.multiGet(keys);
  }

  @Override
  public void multiPut(Map<List<Object>, C> newCells) {
    long n = puts.incrementAndGet();
    if (every > 0 && n % every == 0 && newCells.size() > 1) {
      List<Map.Entry<List<Object>, C>> entries = new ArrayList<>(newCells.entrySet());
      Map<List<Object>, C> half = new HashMap<>();
      entries.subList(0, entries.size() / 2).forEach(e -> half.put(e.getKey(), e.getValue()));
      cells.multiPut(half);
      failures.incrementAndGet();
      throw new FailedException("injected: multiPut #" + n + " of " + cells.describe() + " wrote " + half.size()
          + " of " + newCells.size() + " cells");
    }
    cells.multiPut(newCells);
  }
}
