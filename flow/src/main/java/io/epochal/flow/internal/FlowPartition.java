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
 * lookup per state), {@link #process} runs the processor for one key (sorting out late records against the
 * watermark, if the computation has one; with an input delay it buffers them instead), {@link #finish} releases the
 * due delayed records, fires the due timers (event-time ones up to the watermark advanced by the batch's records) and
 * the due expirations of states with a TTL, {@code end()} writes the changed states (and their deadlines) into the
 * epoch buffer and ends the epoch,
 * {@code abort()} ends it and drops the cache regions of the read-write states. Driven by the keyed-process node of {@code GroupedStream.process}, which attaches each emitted record to its key.
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
  /** The computation's watermark; null without a watermark strategy. */
  private final ComputationWatermark watermarks;

  private volatile Epoch epoch;
  private volatile io.epochal.state.Epoch engineEpoch;
  /** The watermark as the processor sees it: at the batch's start while processing, after its records in onTimer. */
  private volatile long watermark = Long.MIN_VALUE;
  /** The input delay, null without one. */
  private final io.epochal.flow.DelaySpec<T> delay;
  /** The buffer of delayed records (hidden event-time timers), null without a delay. */
  private final PartitionTimers<byte[], T> delayed;
  /** The number of the next record buffered in this attempt. */
  private int delayedSeq;
  /** Whether a state has a TTL. */
  private final boolean expiring;
  /** The processing time of the attempt for the TTL states (read once, at begin). */
  private volatile long ttlProcessingTime;

  FlowPartition(FlowComputation<K, T, R> computation, StateContext context, EpochBuffer staging) {
    this.computation = computation;
    this.context = context;
    this.processor = computation.newProcessor();
    InitContext<K> init = InitContext.partition(computation, context.pipeline(), context.partitionIndex(),
        context.numPartitions(), staging, () -> epoch, () -> watermark);
    processor.init(init);
    this.delay = computation.delay();
    this.delayed = delay == null ? null : init.delayBuffer(delay);
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
    this.watermarks = computation.watermark();
    this.expiring = states.stream().anyMatch(MutableClient::expires);
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
        .orElseThrow(() -> new io.epochal.errors.EpochalException("computation '" + computation.name()
            + "' of pipeline '" + context.pipeline() + "' stages its rows in the epoch's EpochBuffer, but "
            + engineEpoch + " has none: the pipeline's checkpoint store must be a table checkpoint store", null,
            false, io.epochal.errors.ErrorContext.NONE.withPipeline(context.pipeline()).withTxid(txid)));
    Epoch e = new Epoch(txid, buffer);
    for (MutableClient<K, ?> s : states) {
      s.begin(e);
    }
    for (JoinedClient<K, ?> j : joiners) {
      j.begin(e, () -> computation.clock().processingTime(engineEpoch.attempt()));
    }
    for (PartitionTimers<K, ?> t : timers) {
      t.begin(e);
    }
    if (delayed != null) {
      delayed.begin(e);
      delayedSeq = 0;
    }
    if (watermarks != null) {
      watermarks.begin(engineEpoch, buffer);
      watermark = watermarks.startWatermark(engineEpoch);
    }
    if (expiring) {
      ttlProcessingTime = computation.clock().processingTime(engineEpoch.attempt());
      for (MutableClient<K, ?> s : states) {
        s.ttlReadTime(ttlProcessingTime, watermark);
      }
    }
    this.engineEpoch = engineEpoch;
    epoch = e;
  }

  /**
   * Loads the keys of this partition's records of the batch in one bulk lookup per state (cache hits excluded): the
   * {@code begin} of the keyed-process node, with the keys {@code groupBy} computed.
   *
   * @param batch the batch attempt; its txid must be the current epoch's
   * @param keys the distinct keys of this partition's records of the batch (ignored with an input delay: the records
   *     are buffered, and their keys loaded when they are released)
   * @throws IllegalStateException if called outside the epoch of {@code batch}
   */
  public void load(BatchAttempt batch, List<K> keys) {
    requireEpoch(batch.txid(), "load");
    if (delayed != null) {
      return; // the batch's records are buffered, not processed: their keys are loaded when they are released
    }
    for (MutableClient<K, ?> s : states) {
      s.load(keys);
    }
    for (JoinedClient<K, ?> j : joiners) {
      j.load(keys);
    }
  }

  /**
   * Runs the processor for one key's records; every emitted record is attached to that key by the node. With a
   * watermark, records below the watermark in force at the batch's start are late: counted, and processed, dropped
   * or handed to {@code processLate} as the strategy's late policy says.
   *
   * @param batch the batch attempt; its txid must be the current epoch's
   * @param key the key of {@code records}
   * @param records this partition's records of the batch with that key, in arrival order
   * @param out receives the records the processor emits for {@code key}
   * @throws IllegalStateException if called outside the epoch of {@code batch}
   */
  public void process(BatchAttempt batch, K key, List<T> records, Consumer<? super R> out) {
    Epoch e = requireEpoch(batch.txid(), "process");
    if (e.ended()) {
      throw new IllegalStateException("epoch " + e.txid + " of computation '" + computation.name()
          + "' ended while processing");
    }
    if (watermarks == null || watermark == Long.MIN_VALUE) {
      deliver(batch, key, records, out);
      return;
    }
    List<T> onTime = new java.util.ArrayList<>(records.size());
    List<T> late = new java.util.ArrayList<>();
    for (T r : records) {
      (watermarks.strategy().timestampOf(r) < watermark ? late : onTime).add(r);
    }
    if (late.isEmpty()) {
      deliver(batch, key, records, out);
      return;
    }
    watermarks.countLate(engineEpoch, late.size());
    switch (watermarks.strategy().latePolicy()) {
      case PROCESS -> deliver(batch, key, records, out);
      case DROP -> {
        if (!onTime.isEmpty()) {
          deliver(batch, key, java.util.Collections.unmodifiableList(onTime), out);
        }
      }
      case SIDE_OUTPUT -> {
        if (!onTime.isEmpty()) {
          deliver(batch, key, java.util.Collections.unmodifiableList(onTime), out);
        }
        processor.processLate(key, java.util.Collections.unmodifiableList(late), out::accept);
      }
      default -> throw new IllegalStateException("late policy " + watermarks.strategy().latePolicy());
    }
  }

  /** Processes the records now, or buffers them until the watermark passes their timestamp plus the delay. */
  private void deliver(BatchAttempt batch, K key, List<T> records, Consumer<? super R> out) {
    if (delayed == null) {
      processor.process(key, records, out::accept);
      return;
    }
    for (T r : records) {
      long ts = watermarks.strategy().timestampOf(r);
      long d = delay.millis();
      long release = ts > Long.MAX_VALUE - d ? Long.MAX_VALUE : Math.max(0, ts + d);
      byte[] id = java.nio.ByteBuffer.allocate(12).putLong(batch.txid()).putInt(delayedSeq++).array();
      delayed.addNew(id, release, r); // (txid, number in the attempt): new by construction, no lookup
    }
  }

  /**
   * Releases the buffered records due at {@code eventTime} (at most the delay's bound, in release order), grouped by
   * key in order of their first released record, and processes each key's records once, after loading their keys.
   */
  private void release(long eventTime, java.util.function.BiConsumer<? super K, ? super R> out) {
    java.util.LinkedHashMap<K, List<T>> released = new java.util.LinkedHashMap<>();
    delayed.fire(eventTime, new PartitionTimers.Handler<>() {
      @Override
      public void load(List<byte[]> ids) {
      }

      @Override
      public void fire(byte[] id, io.epochal.flow.Timer timer) {
        T r = delayed.payloadOf(timer).orElseThrow(() -> new IllegalStateException("a delayed record of computation '"
            + computation.name() + "' has no payload"));
        released.computeIfAbsent(computation.keyFn().apply(r), k -> new java.util.ArrayList<>()).add(r);
      }
    });
    if (released.isEmpty()) {
      return;
    }
    List<K> keys = new java.util.ArrayList<>(released.keySet());
    for (MutableClient<K, ?> s : states) {
      s.load(keys);
    }
    for (JoinedClient<K, ?> j : joiners) {
      j.load(keys);
    }
    for (java.util.Map.Entry<K, List<T>> e : released.entrySet()) {
      K key = e.getKey();
      processor.process(key, java.util.Collections.unmodifiableList(e.getValue()), r -> out.accept(key, r));
    }
  }

  /**
   * Fires the partition's due timers, after the batch's records: processing-time timers up to the clock's reading,
   * event-time timers up to the watermark. The {@code end} of the keyed-process node. Before the timers it advances
   * the watermark and releases the due delayed records; after them it expires the due keys of states with a TTL.
   *
   * @param batch the batch attempt; its txid must be the current epoch's
   * @param out receives the records the processor emits for released records and in {@code onTimer}, each with the
   *     key it was emitted for
   * @throws IllegalStateException if called outside the epoch of {@code batch}
   */
  public void finish(BatchAttempt batch, java.util.function.BiConsumer<? super K, ? super R> out) {
    Epoch e = requireEpoch(batch.txid(), "finish");
    if (watermarks != null) {
      watermark = watermarks.advance(engineEpoch);
    }
    if (delayed != null) {
      release(watermark == Long.MIN_VALUE ? -1 : watermark, out);
    }
    if (!timers.isEmpty()) {
      fireTimers(e, batch, out);
    }
    if (expiring) {
      long eventTime = watermark == Long.MIN_VALUE ? -1 : watermark;
      for (MutableClient<K, ?> s : states) {
        if (s.expires()) {
          s.expire(s.spec().ttl().orElseThrow().domain() == io.epochal.flow.TimeDomain.PROCESSING_TIME
              ? ttlProcessingTime : eventTime);
        }
      }
    }
  }

  private void fireTimers(Epoch e, BatchAttempt batch, java.util.function.BiConsumer<? super K, ? super R> out) {
    long processingTime = computation.clock().processingTime(batch);
    long eventTime = watermark == Long.MIN_VALUE ? -1 : watermark;
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

  @Override
  public void end() {
    Epoch e = epoch;
    if (e == null || e.ended()) {
      throw new IllegalStateException("end() of computation '" + computation.name() + "' partition "
          + context.partitionIndex() + " outside its epoch (current: " + e + ")");
    }
    try {
      for (MutableClient<K, ?> s : states) {
        if (s.expires()) {
          s.flush(s.spec().ttl().orElseThrow().domain() == io.epochal.flow.TimeDomain.PROCESSING_TIME
              ? ttlProcessingTime : watermark);
        } else {
          s.flush();
        }
      }
      for (PartitionTimers<K, ?> t : timers) {
        t.flush();
      }
      if (delayed != null) {
        delayed.flush();
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
    if (watermarks != null) {
      watermarks.abort();
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
    if (delayed != null) {
      delayed.abort();
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
