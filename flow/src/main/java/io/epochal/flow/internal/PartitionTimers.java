package io.epochal.flow.internal;

import io.epochal.codec.Codec;
import io.epochal.errors.StateCorruptedException;
import io.epochal.flow.TimeDomain;
import io.epochal.flow.Timer;
import io.epochal.flow.TimerClient;
import io.epochal.flow.TimerSpec;
import io.epochal.store.table.Row;
import io.epochal.store.table.TableKey;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The timers of one {@link TimerSpec} in one partition: the {@link TimerClient} the processor keeps, and the firing
 * of due timers at the end of each batch ({@link #fire}). Every add, delete and firing is staged in the epoch buffer
 * (the timer and slot rows at once, the tree's counts at {@link #flush}); nothing in memory outlives the epoch.
 * Firing walks the {@link TimerTree} in trigger order down to the due trigger times, and reads each trigger's slots
 * a page at a time. Used by one thread at a time. Internal.
 *
 * @param <K> the key type
 * @param <P> the payload type
 */
final class PartitionTimers<K, P> implements TimerClient<K, P> {
  /** What firing calls back into: the partition's state loading and the processor's handler. */
  interface Handler<K> {
    /** Loads the states of the keys of one page of due timers, in one bulk lookup per state. */
    void load(List<K> keys);

    /** Calls the processor's {@code onTimer}. */
    void fire(K key, Timer timer);
  }

  private record Ident(long trigger, ByteBuffer key) {
  }

  private record Pending(byte[] key, byte[] payload) {
  }

  private final TimerSpec<K, P> spec;
  private final String computation;
  private final long partition;
  private final TimerTables tables;
  private final TimerTree tree;
  private final int partitions;
  /** Whether the partition count is known to be committed in the tree table (else staged with timer writes). */
  private final boolean partitionsRecorded;
  private final Supplier<Epoch> currentEpoch;
  private Epoch epoch;
  /** While firing: adds by handlers, applied after the walk (they fire at the earliest in the next batch). */
  private boolean firing;
  private final Map<Ident, Pending> deferred = new LinkedHashMap<>();
  /** While firing: timers deleted by handlers, not to be fired if the walk reaches them. */
  private final Set<Ident> deletedWhileFiring = new HashSet<>();
  private int budget;

  /**
   * A client bound to a partition ({@code tables} non-null) or a declaration stub ({@code tables} null).
   *
   * @param partitions the pipeline's partition count
   * @param partitionsRecorded whether the tree table already records {@code partitions} (else every epoch that
   *     writes timers stages the record, so it commits with the first timer rows)
   */
  PartitionTimers(TimerSpec<K, P> spec, String computation, int partition, int partitions,
      boolean partitionsRecorded, TimerTables tables, Supplier<Epoch> currentEpoch) {
    this.spec = spec;
    this.computation = computation;
    this.partition = partition;
    this.tables = tables;
    this.tree = tables == null ? null : new TimerTree(tables.tree(), partition);
    this.partitions = partitions;
    this.partitionsRecorded = partitionsRecorded;
    this.currentEpoch = currentEpoch;
  }

  TimerSpec<K, P> spec() {
    return spec;
  }

  @Override
  public String name() {
    return spec.name();
  }

  @Override
  public TimeDomain domain() {
    return spec.domain();
  }

  void begin(Epoch e) {
    epoch = e;
    tree.begin(e);
    firing = false;
    deferred.clear();
    deletedWhileFiring.clear();
  }

  void abort() {
    tree.abort();
    firing = false;
    deferred.clear();
    deletedWhileFiring.clear();
  }

  /** Writes the tree's changed counts (and, with the epoch's first timer writes, the partition count) into the epoch. */
  void flush() {
    requireEpoch();
    if (!partitionsRecorded && tree.changed()) {
      epoch.buffer.upsert(tables.tree(), tables.partitionsRow(partitions));
    }
    tree.flush();
  }

  private Epoch requireEpoch() {
    Epoch e = currentEpoch.get();
    if (tables == null || e == null || e != epoch || e.ended()) {
      throw new IllegalStateException("Timers '" + spec.name() + "' of computation '" + computation
          + "' have no current epoch: add or delete timers inside process() or onTimer(), never in init() or after "
          + "a batch");
    }
    return e;
  }

  @Override
  public void add(K key, long trigger) {
    addEncoded(key, trigger, null);
  }

  @Override
  public void add(K key, long trigger, P payload) {
    Objects.requireNonNull(payload, "payload");
    Codec<P> codec = spec.payloads().orElseThrow(() -> new IllegalStateException("timer spec '" + spec.name()
        + "' has no payload codec: declare it with TimerSpec.withPayload"));
    addEncoded(key, trigger, codec.encode(payload));
  }

  /**
   * Adds a timer whose identity (key, trigger) the caller guarantees is new (no pending timer has it, none was added
   * in this epoch): no lookup of the timers table. For the buffer of delayed records, whose keys are unique.
   */
  void addNew(K key, long trigger, P payload) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(payload, "payload");
    if (trigger < 0) {
      throw new IllegalArgumentException("timer '" + spec.name() + "': trigger " + trigger + " is negative");
    }
    requireEpoch();
    if (firing) {
      throw new IllegalStateException("addNew while firing timers '" + spec.name() + "'");
    }
    Codec<P> codec = spec.payloads().orElseThrow(() -> new IllegalStateException("timer spec '" + spec.name()
        + "' has no payload codec"));
    byte[] kb = spec.keys().encode(key);
    TimerTree.Node leaf = tree.node(0, trigger);
    long seq = leaf.nextSeq++;
    tree.count(trigger, +1);
    epoch.buffer.upsert(tables.timers(), Row.builder(timerKey(trigger, kb)).set("seq", seq)
        .set("payload", codec.encode(payload)).build());
    epoch.buffer.upsert(tables.slots(), Row.builder(slotKey(trigger, seq)).set("key", kb).build());
  }

  private void addEncoded(K key, long trigger, byte[] payload) {
    Objects.requireNonNull(key, "key");
    if (trigger < 0) {
      throw new IllegalArgumentException("timer '" + spec.name() + "' for key '" + key + "': trigger " + trigger
          + " is negative");
    }
    requireEpoch();
    byte[] kb = spec.keys().encode(key);
    if (firing) {
      Ident id = new Ident(trigger, ByteBuffer.wrap(kb));
      deferred.put(id, new Pending(kb, payload));
      return;
    }
    apply(kb, trigger, payload);
  }

  private TableKey timerKey(long trigger, byte[] kb) {
    return tables.timers().schema().key(partition, trigger, kb);
  }

  private TableKey slotKey(long trigger, long seq) {
    return tables.slots().schema().key(partition, trigger, seq);
  }

  private void apply(byte[] kb, long trigger, byte[] payload) {
    TableKey tk = timerKey(trigger, kb);
    Optional<Row> existing = epoch.buffer.lookup(tables.timers(), List.of(tk)).get(0);
    if (existing.isPresent()) {
      epoch.buffer.upsert(tables.timers(), Row.builder(tk).set("seq", existing.get().getLong("seq"))
          .set("payload", payload).build());
      return;
    }
    TimerTree.Node leaf = tree.node(0, trigger);
    long seq = leaf.nextSeq++;
    tree.count(trigger, +1);
    epoch.buffer.upsert(tables.timers(), Row.builder(tk).set("seq", seq).set("payload", payload).build());
    epoch.buffer.upsert(tables.slots(), Row.builder(slotKey(trigger, seq)).set("key", kb).build());
  }

  /**
   * One key's timer move for {@link #moveAll}: deletes the timer {@code (key, from)} if {@code from >= 0}, adds
   * {@code (key, to)} (no payload) if {@code to >= 0}.
   *
   * @param <K> the key type
   */
  record Move<K>(K key, long from, long to) {
    Move {
      Objects.requireNonNull(key, "key");
      if (from >= 0 && from == to) {
        throw new IllegalArgumentException("a timer move from " + from + " to the same trigger");
      }
    }
  }

  /**
   * Applies {@code moves} (at most one per key) outside firing, in bulk: ONE lookup of the timers table for every
   * timer they name and ONE of the tree for the nodes on their paths not read yet in the epoch, whatever the number
   * of moves; the rows are written in one write per table. Like {@link #delete} then {@link #add} per move.
   *
   * @throws IllegalStateException outside the epoch, or while firing
   */
  void moveAll(List<Move<K>> moves) {
    requireEpoch();
    if (firing) {
      throw new IllegalStateException("moveAll while firing timers '" + spec.name() + "'");
    }
    if (moves.isEmpty()) {
      return;
    }
    List<byte[]> kbs = new ArrayList<>(moves.size());
    List<TableKey> named = new ArrayList<>(2 * moves.size());
    List<Long> triggers = new ArrayList<>(2 * moves.size());
    for (Move<K> m : moves) {
      byte[] kb = spec.keys().encode(m.key());
      kbs.add(kb);
      if (m.from() >= 0) {
        named.add(timerKey(m.from(), kb));
        triggers.add(m.from());
      }
      if (m.to() >= 0) {
        named.add(timerKey(m.to(), kb));
        triggers.add(m.to());
      }
    }
    List<Optional<Row>> existing = named.isEmpty() ? List.of() : epoch.buffer.lookup(tables.timers(), named);
    tree.prefetch(triggers);
    List<Row> timerUpserts = new ArrayList<>();
    List<TableKey> timerDeletes = new ArrayList<>();
    List<Row> slotUpserts = new ArrayList<>();
    List<TableKey> slotDeletes = new ArrayList<>();
    int at = 0;
    for (int i = 0; i < moves.size(); i++) {
      Move<K> m = moves.get(i);
      if (m.from() >= 0) {
        Optional<Row> row = existing.get(at);
        TableKey tk = named.get(at++);
        if (row.isPresent()) {
          timerDeletes.add(tk);
          slotDeletes.add(slotKey(m.from(), row.get().getLong("seq")));
          tree.count(m.from(), -1);
        }
      }
      if (m.to() >= 0) {
        Optional<Row> row = existing.get(at);
        TableKey tk = named.get(at++);
        if (row.isPresent()) {
          timerUpserts.add(Row.builder(tk).set("seq", row.get().getLong("seq")).set("payload", null).build());
        } else {
          long seq = tree.node(0, m.to()).nextSeq++;
          tree.count(m.to(), +1);
          timerUpserts.add(Row.builder(tk).set("seq", seq).set("payload", null).build());
          slotUpserts.add(Row.builder(slotKey(m.to(), seq)).set("key", kbs.get(i)).build());
        }
      }
    }
    epoch.buffer.write(tables.timers(), timerUpserts, timerDeletes);
    epoch.buffer.write(tables.slots(), slotUpserts, slotDeletes);
  }

  @Override
  public boolean delete(K key, long trigger) {
    Objects.requireNonNull(key, "key");
    requireEpoch();
    if (trigger < 0) {
      return false;
    }
    byte[] kb = spec.keys().encode(key);
    boolean wasDeferred = firing && deferred.remove(new Ident(trigger, ByteBuffer.wrap(kb))) != null;
    TableKey tk = timerKey(trigger, kb);
    Optional<Row> existing = epoch.buffer.lookup(tables.timers(), List.of(tk)).get(0);
    if (existing.isEmpty()) {
      return wasDeferred;
    }
    remove(tk, trigger, existing.get().getLong("seq"));
    if (firing) {
      deletedWhileFiring.add(new Ident(trigger, ByteBuffer.wrap(kb)));
    }
    return true;
  }

  private void remove(TableKey timerKey, long trigger, long seq) {
    epoch.buffer.write(tables.timers(), List.of(), List.of(timerKey));
    epoch.buffer.write(tables.slots(), List.of(), List.of(slotKey(trigger, seq)));
    tree.count(trigger, -1);
  }

  /**
   * Fires the due timers (trigger {@code <= now}) in trigger order, at most {@link TimerSpec#maxFiredPerBatch}, then
   * applies the adds the handlers made.
   *
   * @return how many fired
   */
  int fire(long now, Handler<K> handler) {
    requireEpoch();
    if (now < 0) {
      return 0;
    }
    firing = true;
    budget = spec.maxFiredPerBatch();
    int before = budget;
    try {
      descend(TimerTree.TOP, 0, TimerTree.nodeOf(now, TimerTree.TOP), now, handler);
    } finally {
      firing = false;
    }
    for (Map.Entry<Ident, Pending> e : deferred.entrySet()) {
      apply(e.getValue().key(), e.getKey().trigger(), e.getValue().payload());
    }
    deferred.clear();
    deletedWhileFiring.clear();
    return before - budget;
  }

  /** @return false once the budget is spent */
  private boolean descend(int level, long from, long to, long now, Handler<K> handler) {
    long[] counts = tree.counts(level, from, to);
    for (int i = 0; i < counts.length; i++) {
      if (counts[i] == 0) {
        continue;
      }
      long node = from + i;
      if (level == 0) {
        if (!fireTrigger(node, handler)) {
          return false;
        }
      } else {
        long childFrom = node << TimerTree.BITS;
        long childTo = Math.min(childFrom + (1L << TimerTree.BITS) - 1, TimerTree.nodeOf(now, level - 1));
        if (!descend(level - 1, childFrom, childTo, now, handler)) {
          return false;
        }
      }
    }
    return true;
  }

  /** Fires the pending timers of one trigger time in slot order, a page at a time. @return false if out of budget */
  private boolean fireTrigger(long trigger, Handler<K> handler) {
    TimerTree.Node leaf = tree.node(0, trigger);
    long seq = leaf.firstSeq;
    long end = leaf.nextSeq;
    try {
      while (seq < end) {
        if (budget == 0) {
          return false;
        }
        long pageEnd = Math.min(end, seq + spec.pageSize());
        List<TableKey> slotKeys = new ArrayList<>((int) (pageEnd - seq));
        for (long s = seq; s < pageEnd; s++) {
          slotKeys.add(slotKey(trigger, s));
        }
        List<Optional<Row>> slots = epoch.buffer.lookup(tables.slots(), slotKeys);
        List<Long> seqs = new ArrayList<>();
        List<byte[]> keyBytes = new ArrayList<>();
        List<TableKey> timerKeys = new ArrayList<>();
        for (int i = 0; i < slots.size(); i++) {
          if (slots.get(i).isPresent()) {
            byte[] kb = slots.get(i).get().getBytes("key");
            seqs.add(seq + i);
            keyBytes.add(kb);
            timerKeys.add(timerKey(trigger, kb));
          }
        }
        List<Optional<Row>> rows = timerKeys.isEmpty() ? List.of() : epoch.buffer.lookup(tables.timers(), timerKeys);
        List<K> keys = new ArrayList<>(rows.size());
        for (int i = 0; i < rows.size(); i++) {
          Optional<Row> row = rows.get(i);
          // by value: getLong and the list are boxed, and Longs outside [-128, 127] are distinct objects
          Long stored = row.isEmpty() ? null : row.get().getLong("seq");
          if (stored == null || stored.longValue() != seqs.get(i).longValue()) {
            throw corrupted(timerKeys.get(i), "slot " + seqs.get(i) + " of trigger " + trigger + " names a timer "
                + (row.isEmpty() ? "that has no row" : "whose row has seq " + stored));
          }
          keys.add(decodeKey(timerKeys.get(i), keyBytes.get(i)));
        }
        handler.load(keys);
        for (int i = 0; i < rows.size(); i++) {
          if (deletedWhileFiring.contains(new Ident(trigger, ByteBuffer.wrap(keyBytes.get(i))))) {
            continue;
          }
          if (budget == 0) {
            seq = seqs.get(i);
            return false;
          }
          budget--;
          Timer timer = new Timer(spec.name(), spec.domain(), trigger, payload(timerKeys.get(i), rows.get(i).get()));
          remove(timerKeys.get(i), trigger, seqs.get(i));
          handler.fire(keys.get(i), timer);
        }
        seq = pageEnd;
      }
      return true;
    } finally {
      leaf.firstSeq = Math.min(Math.max(leaf.firstSeq, seq), leaf.nextSeq);
    }
  }

  private K decodeKey(TableKey where, byte[] kb) {
    try {
      return Objects.requireNonNull(spec.keys().decode(kb), "decoded null");
    } catch (RuntimeException e) {
      throw new StateCorruptedException(tables.timers().path(), where.describeParts(), "timer key bytes do not "
          + "decode with " + spec.keys().id() + " (epoch " + epoch.txid + ")", OptionalLong.of(epoch.txid), e);
    }
  }

  private Optional<Object> payload(TableKey where, Row row) {
    byte[] bytes = row.getBytes("payload");
    if (bytes == null) {
      return Optional.empty();
    }
    Codec<P> codec = spec.payloads().orElseThrow(() -> corrupted(where, "a payload, but the spec has no codec"));
    try {
      return Optional.of(Objects.requireNonNull(codec.decode(bytes), "decoded null"));
    } catch (RuntimeException e) {
      throw new StateCorruptedException(tables.timers().path(), where.describeParts(), "timer payload does not "
          + "decode with " + codec.id() + " (epoch " + epoch.txid + ")", OptionalLong.of(epoch.txid), e);
    }
  }

  private StateCorruptedException corrupted(TableKey key, String what) {
    return new StateCorruptedException(tables.timers().path(), key.describeParts(), what + " (epoch " + epoch.txid
        + ")", OptionalLong.of(epoch.txid), null);
  }

  @Override
  public String toString() {
    return "TimerClient[" + spec.name() + ", " + spec.domain() + ", partition " + partition + "]";
  }
}
