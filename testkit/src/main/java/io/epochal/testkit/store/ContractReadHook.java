package io.epochal.testkit.store;

import io.epochal.store.table.ReadHook;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

/**
 * The hook every store of the contract gets: counts calls per table, and fails reads or damages stored bytes of one
 * table when a test says so. Thread-safe.
 */
final class ContractReadHook implements ReadHook {
  private final Map<String, AtomicInteger> beforeReads = new ConcurrentHashMap<>();
  private final Map<String, List<Integer>> storedLengths = new ConcurrentHashMap<>();
  private final AtomicInteger damaged = new AtomicInteger();
  private volatile String failing;
  private volatile String damagedTable;
  private volatile UnaryOperator<byte[]> damage;

  @Override
  public void beforeRead(String tablePath) {
    beforeReads.computeIfAbsent(tablePath, p -> new AtomicInteger()).incrementAndGet();
    if (tablePath.equals(failing)) {
      throw new InjectedReadFailure(tablePath);
    }
  }

  @Override
  public byte[] storedBytes(String tablePath, byte[] stored) {
    storedLengths.computeIfAbsent(tablePath, p -> new CopyOnWriteArrayList<>()).add(stored.length);
    UnaryOperator<byte[]> d = damage;
    if (d != null && tablePath.equals(damagedTable)) {
      byte[] copy = d.apply(stored.clone());
      if (copy != null) {
        damaged.incrementAndGet();
        return copy;
      }
    }
    return stored;
  }

  void failReadsOf(String tablePath) {
    heal();
    failing = tablePath;
  }

  /** Damages the stored bytes of {@code tablePath}: {@code how} returns the damaged copy, or null to keep them. */
  void damage(String tablePath, UnaryOperator<byte[]> how) {
    failing = null;
    damage = how;
    damagedTable = tablePath;
  }

  void heal() {
    failing = null;
    damagedTable = null;
    damage = null;
  }

  int beforeReads(String tablePath) {
    AtomicInteger n = beforeReads.get(tablePath);
    return n == null ? 0 : n.get();
  }

  Map<String, AtomicInteger> beforeReadPaths() {
    return Map.copyOf(beforeReads);
  }

  /** @return how many stored rows were damaged so far */
  int damaged() {
    return damaged.get();
  }

  int storedBytesCalls(String tablePath) {
    return storedBytesLengths(tablePath).size();
  }

  List<Integer> storedBytesLengths(String tablePath) {
    return List.copyOf(storedLengths.getOrDefault(tablePath, List.of()));
  }
}
