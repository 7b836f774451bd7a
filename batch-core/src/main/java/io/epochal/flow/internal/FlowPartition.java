package io.epochal.flow.internal;

import io.epochal.errors.InvalidRecordException;
import io.epochal.flow.Emitter;
import io.epochal.flow.KeyedProcessor;
import io.epochal.spout.BatchAttempt;
import io.epochal.state.State;
import io.epochal.state.StateContext;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.function.Function;

/**
 * One partition of a Flow computation, driven by the engine as a {@link State}: {@code beginCommit(t)} starts epoch
 * {@code t}, {@link #process} loads the batch's keys (one bulk lookup per state) and runs the processor per key,
 * {@code commit(t)} writes the changed states into the epoch buffer and ends the epoch, {@code abort(t)} ends it and
 * drops the cache regions of the read-write states. The emitted records wait for {@link #drain}. Used by one thread at
 * a time (the engine's contract for a state partition). Internal.
 *
 * @param <K> the key type
 * @param <T> the record type
 * @param <R> the output type
 */
public final class FlowPartition<K, T, R> implements State {
  private final FlowComputation<K, T, R> computation;
  private final StateContext context;
  private final KeyedProcessor<K, T, R> processor;
  private final List<MutableClient<K, ?>> states;
  private final List<JoinedClient<K, ?>> joiners;

  private volatile Epoch epoch;
  private List<R> emitted = new ArrayList<>();
  private long emittedTxid;

  FlowPartition(FlowComputation<K, T, R> computation, StateContext context) {
    this.computation = computation;
    this.context = context;
    this.processor = computation.newProcessor();
    InitContext<K> init = InitContext.partition(computation, context.pipeline(), context.partitionIndex(),
        context.numPartitions(), () -> epoch);
    processor.init(init);
    List<InitContext.Declared> declared = init.finish();
    List<InitContext.Declared> expected = computation.declared();
    if (declared.size() != expected.size()) {
      throw mismatch(declared, expected);
    }
    for (int i = 0; i < declared.size(); i++) {
      if (declared.get(i).writer() != expected.get(i).writer()
          || !declared.get(i).name().equals(expected.get(i).name())) {
        throw mismatch(declared, expected);
      }
    }
    this.states = init.states();
    this.joiners = init.joiners();
  }

  private IllegalStateException mismatch(List<InitContext.Declared> declared, List<InitContext.Declared> expected) {
    return new IllegalStateException("the processor of computation '" + computation.name() + "' declared "
        + declared + " in partition " + context.partitionIndex() + " but " + expected + " when it was declared; "
        + "init() must declare the same states every time");
  }

  @Override
  public void beginCommit(long txid) {
    Epoch previous = epoch;
    if (previous != null) {
      previous.end();
    }
    Epoch e = new Epoch(txid, computation.checkpointStore().epoch(context.pipeline(), txid));
    for (MutableClient<K, ?> s : states) {
      s.begin(e);
    }
    for (JoinedClient<K, ?> j : joiners) {
      j.begin(e);
    }
    emitted = new ArrayList<>();
    emittedTxid = txid;
    epoch = e;
  }

  /** Runs the processor over this partition's records of the batch (the persist's updater). */
  public void process(BatchAttempt batch, List<T> records) {
    Epoch e = requireEpoch(batch.txid(), "process");
    Function<? super T, ? extends K> keyFn = computation.keyFn();
    LinkedHashMap<Object, Group<K, T>> groups = new LinkedHashMap<>();
    for (T record : records) {
      K key = keyFn.apply(record);
      if (key == null) {
        throw new InvalidRecordException("computation '" + computation.name() + "' got a null key for record "
            + record + " (" + batch + ")");
      }
      groups.computeIfAbsent(groupKey(key), g -> new Group<>(key)).records.add(record);
    }
    List<K> keys = new ArrayList<>(groups.size());
    for (Group<K, T> g : groups.values()) {
      keys.add(g.key);
    }
    for (MutableClient<K, ?> s : states) {
      s.load(keys);
    }
    for (JoinedClient<K, ?> j : joiners) {
      j.load(keys);
    }
    List<R> out = emitted;
    Emitter<R> emitter = record -> {
      if (record == null) {
        throw new InvalidRecordException("computation '" + computation.name() + "' emitted a null record ("
            + batch + ")");
      }
      out.add(record);
    };
    for (Group<K, T> g : groups.values()) {
      if (e.ended()) {
        throw new IllegalStateException("epoch " + e.txid + " of computation '" + computation.name()
            + "' ended while processing");
      }
      processor.process(g.key, Collections.unmodifiableList(g.records), emitter);
    }
  }

  /** Keys compared by content: a {@code byte[]} key by its bytes. */
  private static Object groupKey(Object key) {
    return key instanceof byte[] b ? ByteBuffer.wrap(b) : key;
  }

  private static final class Group<K, T> {
    final K key;
    final List<T> records = new ArrayList<>();

    Group(K key) {
      this.key = key;
    }
  }

  @Override
  public void commit(long txid) {
    Epoch e = requireEpoch(txid, "commit");
    try {
      for (MutableClient<K, ?> s : states) {
        s.flush();
      }
    } finally {
      e.end();
    }
  }

  @Override
  public void abort(long txid) {
    Epoch e = epoch;
    if (e != null) {
      e.end();
    }
    for (MutableClient<K, ?> s : states) {
      s.abort();
    }
    for (JoinedClient<K, ?> j : joiners) {
      j.abort();
    }
    emitted = new ArrayList<>();
  }

  /**
   * The records emitted in batch {@code batch} (the stateQuery after the persist): all of them with the first record,
   * an empty list with every other, so that {@code flatMap} yields each once.
   */
  public List<List<R>> drain(BatchAttempt batch, List<?> records) {
    List<List<R>> out = new ArrayList<>(records.size());
    List<R> all = emittedTxid == batch.txid() ? emitted : List.of();
    emitted = new ArrayList<>();
    for (int i = 0; i < records.size(); i++) {
      out.add(i == 0 ? List.copyOf(all) : List.of());
    }
    return out;
  }

  private Epoch requireEpoch(long txid, String what) {
    Epoch e = epoch;
    if (e == null || e.txid != txid || e.ended()) {
      throw new IllegalStateException(what + "(" + txid + ") of computation '" + computation.name() + "' partition "
          + context.partitionIndex() + " outside its epoch (current: " + e + ")");
    }
    return e;
  }

  @Override
  public String toString() {
    return "FlowPartition[" + computation.name() + ", partition " + context.partitionIndex() + ", "
        + (epoch == null ? "no epoch" : epoch) + "]";
  }
}
