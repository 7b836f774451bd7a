package io.epochal.flow.internal;

import io.epochal.flow.KeyedProcessor;
import io.epochal.spout.BatchAttempt;
import io.epochal.state.State;
import io.epochal.state.StateContext;
import io.epochal.store.table.EpochBuffer;
import java.util.List;
import java.util.function.Consumer;

/**
 * One partition of a Flow computation, driven by the engine as a {@link State}: {@code begin(epoch)} starts the
 * Flow epoch of the engine's epoch (whose staging is the epoch buffer), {@link #load} loads the batch's keys (one bulk
 * lookup per state), {@link #process} runs the processor for one key, {@code end()} writes the changed states into
 * the epoch buffer and ends the epoch, {@code abort()} ends it and drops the cache regions of the read-write states.
 * Driven by the keyed-process node of {@code GroupedStream.process}, which attaches each emitted record to its key.
 * Used by one thread at a time (the engine's contract for a state partition). Internal.
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
  private final List<PartitionTimers<K, ?>> timers;

  private volatile Epoch epoch;

  FlowPartition(FlowComputation<K, T, R> computation, StateContext context, EpochBuffer staging) {
    this.computation = computation;
    this.context = context;
    this.processor = computation.newProcessor();
    InitContext<K> init = InitContext.partition(computation, context.pipeline(), context.partitionIndex(),
        context.numPartitions(), staging, () -> epoch);
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
    this.timers = init.timers();
  }

  private IllegalStateException mismatch(List<InitContext.Declared> declared, List<InitContext.Declared> expected) {
    return new IllegalStateException("the processor of computation '" + computation.name() + "' declared "
        + declared + " in partition " + context.partitionIndex() + " but " + expected + " when it was declared; "
        + "init() must declare the same states every time");
  }

  @Override
  public void begin(io.epochal.state.Epoch engineEpoch) {
    java.util.Objects.requireNonNull(engineEpoch, "epoch");
    long txid = engineEpoch.txid();
    Epoch previous = epoch;
    if (previous != null) {
      previous.end();
    }
    EpochBuffer buffer = engineEpoch.staging(EpochBuffer.class)
        .filter(b -> b.store() == computation.checkpointStore().tableStore())
        .orElseThrow(() -> new io.epochal.errors.EpochalException("computation '" + computation.name()
            + "' of pipeline '" + context.pipeline() + "' keeps its states on "
            + computation.checkpointStore().tableStore().describe() + ", but the pipeline's " + engineEpoch
            + " does not stage rows of that store. Build the pipeline with .checkpointStore(...) set to the table "
            + "checkpoint store of its FlowStates", null, false,
            io.epochal.errors.ErrorContext.NONE.withPipeline(context.pipeline()).withTxid(txid)));
    Epoch e = new Epoch(txid, buffer);
    for (MutableClient<K, ?> s : states) {
      s.begin(e);
    }
    for (JoinedClient<K, ?> j : joiners) {
      j.begin(e);
    }
    for (PartitionTimers<K, ?> t : timers) {
      t.begin(e);
    }
    epoch = e;
  }

  /**
   * Loads the keys of this partition's records of the batch in one bulk lookup per state (cache hits excluded): the
   * {@code begin} of the keyed-process node, with the keys {@code groupBy} computed.
   */
  public void load(BatchAttempt batch, List<K> keys) {
    requireEpoch(batch.txid(), "load");
    for (MutableClient<K, ?> s : states) {
      s.load(keys);
    }
    for (JoinedClient<K, ?> j : joiners) {
      j.load(keys);
    }
  }

  /** Runs the processor for one key's records; every emitted record is attached to that key by the node. */
  public void process(BatchAttempt batch, K key, List<T> records, Consumer<? super R> out) {
    Epoch e = requireEpoch(batch.txid(), "process");
    if (e.ended()) {
      throw new IllegalStateException("epoch " + e.txid + " of computation '" + computation.name()
          + "' ended while processing");
    }
    processor.process(key, records, out::accept);
  }

  /**
   * Fires the partition's due timers, after the batch's records: processing-time timers up to the clock's reading,
   * event-time timers up to the watermark. The {@code end} of the keyed-process node.
   */
  public void finish(BatchAttempt batch, java.util.function.BiConsumer<? super K, ? super R> out) {
    Epoch e = requireEpoch(batch.txid(), "finish");
    if (timers.isEmpty()) {
      return;
    }
    long processingTime = computation.clock().processingTime(batch);
    long eventTime = eventTime(batch);
    PartitionTimers.Handler<K> handler = new PartitionTimers.Handler<>() {
      @Override
      public void load(List<K> keys) {
        for (MutableClient<K, ?> s : states) {
          s.load(keys);
        }
        for (JoinedClient<K, ?> j : joiners) {
          j.load(keys);
        }
      }

      @Override
      public void fire(K key, io.epochal.flow.Timer timer) {
        if (e.ended()) {
          throw new IllegalStateException("epoch " + e.txid + " of computation '" + computation.name()
              + "' ended while firing timers");
        }
        processor.onTimer(key, timer, r -> out.accept(key, r));
      }
    };
    for (PartitionTimers<K, ?> t : timers) {
      long now = t.domain() == io.epochal.flow.TimeDomain.PROCESSING_TIME ? processingTime : eventTime;
      t.fire(now, handler);
    }
  }

  /** The event time timers fire up to: the computation's watermark; -1 (none fire) without a watermark. */
  private long eventTime(BatchAttempt batch) {
    return -1;
  }

  @Override
  public void end() {
    Epoch e = epoch;
    if (e == null || e.ended()) {
      throw new IllegalStateException("end() of computation '" + computation.name() + "' partition "
          + context.partitionIndex() + " outside its epoch (current: " + e + ")");
    }
    try {
      for (MutableClient<K, ?> s : states) {
        s.flush();
      }
      for (PartitionTimers<K, ?> t : timers) {
        t.flush();
      }
    } finally {
      e.end();
    }
  }

  @Override
  public void abort() {
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
    for (PartitionTimers<K, ?> t : timers) {
      t.abort();
    }
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
