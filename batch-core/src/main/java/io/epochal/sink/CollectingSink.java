package io.epochal.sink;

import io.epochal.state.Epoch;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * An in-memory sink that publishes a batch's records after its epoch committed (for tests and examples): a failed
 * attempt's records are dropped, a replay stages them again, so every committed batch is published exactly once.
 * {@link #committed()} holds the published records in txid order (within a batch, in partition order). Thread-safe.
 *
 * @param <T> the record type
 * @since 0.3.0
 */
public final class CollectingSink<T> implements PartitionedSink<T> {

  /** One published record and the txid of its batch. */
  public record Output<T>(long txid, T value) {
  }

  private final String name;
  /** Staged per txid, per partition. Guarded by {@code this}. */
  private final Map<Long, TreeMap<Integer, List<T>>> staged = new HashMap<>();
  private final List<Output<T>> committed = new ArrayList<>();

  /** @param name the sink's name in descriptions */
  public CollectingSink(String name) {
    this.name = Objects.requireNonNull(name, "name");
  }

  @Override
  public synchronized void stage(Epoch epoch, int partition, List<T> records) {
    staged.computeIfAbsent(epoch.txid(), t -> new TreeMap<>()).put(partition, List.copyOf(records));
  }

  @Override
  public synchronized void afterCommit(long txid) {
    TreeMap<Integer, List<T>> parts = staged.remove(txid);
    if (parts != null) {
      for (List<T> records : parts.values()) {
        for (T r : records) {
          committed.add(new Output<>(txid, r));
        }
      }
    }
  }

  @Override
  public synchronized void abort(long txid) {
    staged.remove(txid);
  }

  /** Drops everything staged and not published (what a crashed process had staged dies with it). */
  public synchronized void discardStaged() {
    staged.clear();
  }

  /** @return the published records, in txid order */
  public synchronized List<Output<T>> committed() {
    return List.copyOf(committed);
  }

  /** @return the published values, in txid order */
  public synchronized List<T> values() {
    List<T> out = new ArrayList<>(committed.size());
    for (Output<T> o : committed) {
      out.add(o.value());
    }
    return out;
  }

  @Override
  public String describe() {
    return "collecting sink '" + name + "'";
  }

  @Override
  public String toString() {
    return describe();
  }
}
