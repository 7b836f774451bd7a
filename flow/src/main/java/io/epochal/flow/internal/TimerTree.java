package io.epochal.flow.internal;

import io.epochal.errors.StateCorruptedException;
import io.epochal.store.table.EpochBuffer;
import io.epochal.store.table.Row;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableKey;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The count tree of one partition's timers of one spec, over the {@code .timer-tree} table: node {@code n} of level
 * {@code l} counts the pending timers whose trigger {@code t} has {@code t >>> (6 * l) == n}; level 0 nodes are the
 * trigger times themselves and also hold the next sequence number of the trigger's slots and the first one that may
 * still be pending. A node with count 0 has no row. Level {@value #TOP} has at most 8 nodes, so any trigger time is
 * reached from them in 11 steps of at most 64 siblings each.
 *
 * <p>Within an epoch, the nodes changed are kept in a map (at most 11 per timer added, deleted or fired in the
 * epoch) and written into the epoch buffer by {@link #flush}; reads go to the map first, then to the epoch's view of
 * the store. Nothing else is kept between calls: the tree itself stays on disk. Used by one thread. Internal.
 */
final class TimerTree {
  static final int BITS = 6;
  static final int TOP = 10;

  /** A node changed in this epoch. */
  static final class Node {
    long count;
    long nextSeq;
    long firstSeq;
  }

  private record Id(int level, long node) {
  }

  private final Table table;
  private final long partition;
  private final Map<Id, Node> dirty = new HashMap<>();
  private Epoch epoch;

  TimerTree(Table table, int partition) {
    this.table = table;
    this.partition = partition;
  }

  void begin(Epoch e) {
    epoch = e;
    dirty.clear();
  }

  void abort() {
    dirty.clear();
  }

  /** @return the level-{@code level} node holding {@code trigger} */
  static long nodeOf(long trigger, int level) {
    return trigger >>> (BITS * level);
  }

  private TableKey key(int level, long node) {
    return table.schema().key(partition, (long) level, node);
  }

  /** @return the node (loaded into the map: the caller is about to change it) */
  Node node(int level, long node) {
    Id id = new Id(level, node);
    Node n = dirty.get(id);
    if (n == null) {
      n = new Node();
      Optional<Row> row = epoch.buffer.lookup(table, List.of(key(level, node))).get(0);
      if (row.isPresent()) {
        read(row.get(), n);
      }
      dirty.put(id, n);
    }
    return n;
  }

  /**
   * Reads, in ONE lookup, every node on the paths of {@code triggers} (leaf to top) not yet read in this epoch, into
   * the map of changed nodes: the caller is about to change their counts (a bulk add or delete of timers), so that
   * the changes cost one lookup of the tree, not one per timer.
   */
  void prefetch(java.util.Collection<Long> triggers) {
    java.util.LinkedHashSet<Id> ids = new java.util.LinkedHashSet<>();
    for (long t : triggers) {
      for (int level = 0; level <= TOP; level++) {
        Id id = new Id(level, nodeOf(t, level));
        if (!dirty.containsKey(id)) {
          ids.add(id);
        }
      }
    }
    if (ids.isEmpty()) {
      return;
    }
    List<TableKey> keys = new ArrayList<>(ids.size());
    for (Id id : ids) {
      keys.add(key(id.level(), id.node()));
    }
    List<Optional<Row>> rows = epoch.buffer.lookup(table, keys);
    int i = 0;
    for (Id id : ids) {
      Node n = new Node();
      Optional<Row> row = rows.get(i++);
      if (row.isPresent()) {
        read(row.get(), n);
      }
      dirty.put(id, n);
    }
  }

  private void read(Row row, Node n) {
    n.count = row.getLong("count");
    Long next = row.getLong("next_seq");
    Long first = row.getLong("first_seq");
    n.nextSeq = next == null ? 0 : next;
    n.firstSeq = first == null ? 0 : first;
    if (n.count < 0 || n.firstSeq > n.nextSeq || n.firstSeq < 0) {
      throw corrupted(row.key(), "count " + n.count + ", first_seq " + n.firstSeq + ", next_seq " + n.nextSeq);
    }
  }

  /** Adds {@code delta} (+1 or -1) to the counts of {@code trigger}'s path, leaf to top. */
  void count(long trigger, int delta) {
    for (int level = 0; level <= TOP; level++) {
      long id = nodeOf(trigger, level);
      Node n = node(level, id);
      n.count += delta;
      if (n.count < 0) {
        throw corrupted(key(level, id), "a pending-timer count below zero: the tree does not match the timers");
      }
    }
  }

  /**
   * The counts of the level-{@code level} nodes {@code [from, to]} (at most 64), as this epoch sees them, in one
   * lookup for those not changed in the epoch. Nothing is cached.
   */
  long[] counts(int level, long from, long to) {
    int size = (int) (to - from + 1);
    long[] out = new long[size];
    List<TableKey> misses = new ArrayList<>(size);
    List<Integer> at = new ArrayList<>(size);
    for (int i = 0; i < size; i++) {
      Node n = dirty.get(new Id(level, from + i));
      if (n != null) {
        out[i] = n.count;
      } else {
        misses.add(key(level, from + i));
        at.add(i);
      }
    }
    if (!misses.isEmpty()) {
      List<Optional<Row>> rows = epoch.buffer.lookup(table, misses);
      for (int j = 0; j < rows.size(); j++) {
        if (rows.get(j).isPresent()) {
          long c = rows.get(j).get().getLong("count");
          if (c < 0) {
            throw corrupted(misses.get(j), "count " + c);
          }
          out[at.get(j)] = c;
        }
      }
    }
    return out;
  }

  /** @return whether a node changed in this epoch (a timer was added, deleted or fired) */
  boolean changed() {
    return !dirty.isEmpty();
  }

  /** Writes the changed nodes into the epoch buffer: a node with count 0 is deleted. */
  void flush() {
    if (dirty.isEmpty()) {
      return;
    }
    List<Row> upserts = new ArrayList<>();
    List<TableKey> deletes = new ArrayList<>();
    for (Map.Entry<Id, Node> e : dirty.entrySet()) {
      TableKey k = key(e.getKey().level(), e.getKey().node());
      Node n = e.getValue();
      if (n.count == 0) {
        deletes.add(k);
      } else {
        Row.Builder row = Row.builder(k).set("count", n.count);
        if (e.getKey().level() == 0) {
          row.set("next_seq", n.nextSeq).set("first_seq", n.firstSeq);
        }
        upserts.add(row.build());
      }
    }
    epoch.buffer.write(table, upserts, deletes);
    dirty.clear();
  }

  private StateCorruptedException corrupted(TableKey key, String what) {
    long txid = epoch == null ? 0 : epoch.txid;
    return new StateCorruptedException(table.path(), key.describeParts(), what + " (read in epoch " + txid + ")",
        OptionalLong.of(txid), null);
  }

  /** @return the buffer of the current epoch */
  EpochBuffer buffer() {
    return epoch.buffer;
  }
}
