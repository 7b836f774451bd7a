package io.epochal.pipeline.internal;

import io.epochal.state.Epoch;
import io.epochal.codec.Codec;
import io.epochal.codec.Codecs;
import io.epochal.spout.BatchAttempt;
import io.epochal.spout.Collector;
import io.epochal.spout.NonTransactionalSpout;
import io.epochal.spout.OpaqueSpout;
import io.epochal.spout.TransactionalSpout;
import io.epochal.state.State;
import io.epochal.state.StateContext;
import io.epochal.state.StateFactory;
import io.epochal.state.StateKind;
import io.epochal.store.Checkpoint;
import io.epochal.store.CheckpointStore;
import io.epochal.store.InMemoryCheckpointStore;
import io.epochal.store.OutboxEntry;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import java.util.function.Predicate;

/** Test parts of the engine tests: spouts of every kind over fixed input, and a state that logs its lifecycle. */
final class EngineTesting {
  private EngineTesting() {
  }

  /** A transactional spout over fixed batches; batch {@code i} (0-based) has metadata {@code i}. */
  static final class ListSpout<T> implements TransactionalSpout<T, Long> {
    final List<List<T>> batches;
    /** Every emission: "txid/attempt/metadata". */
    final List<String> emissions = new CopyOnWriteArrayList<>();

    ListSpout(List<List<T>> batches) {
      this.batches = List.copyOf(batches);
    }

    @Override
    public String name() {
      return "list";
    }

    @Override
    public Codec<Long> metadataCodec() {
      return Codecs.longs();
    }

    @Override
    public Optional<Long> nextBatch(long txid, Optional<Long> previous) {
      long next = previous.map(p -> p + 1).orElse(0L);
      return next < batches.size() ? Optional.of(next) : Optional.empty();
    }

    @Override
    public void emit(BatchAttempt attempt, Long metadata, Collector<T> out) {
      emissions.add(attempt.txid() + "/" + attempt.attempt() + "/" + metadata);
      for (T record : batches.get(metadata.intValue())) {
        out.emit(record);
      }
    }
  }

  /**
   * An opaque spout over a fixed list, emitting {@code cut} records per batch; metadata is the offset after the batch.
   * Each emission is logged as "txid/attempt/from-to".
   */
  static final class OffsetSpout<T> implements OpaqueSpout<T, Long> {
    final List<T> records;
    final int cut;
    final List<String> emissions = new CopyOnWriteArrayList<>();

    OffsetSpout(List<T> records, int cut) {
      this.records = List.copyOf(records);
      this.cut = cut;
    }

    @Override
    public String name() {
      return "offsets";
    }

    @Override
    public Codec<Long> metadataCodec() {
      return Codecs.longs();
    }

    @Override
    public boolean isReady(long txid, Optional<Long> previous) {
      return previous.orElse(0L) < records.size();
    }

    @Override
    public Long emit(BatchAttempt attempt, Optional<Long> previous, Collector<T> out) {
      int from = previous.orElse(0L).intValue();
      int to = Math.min(records.size(), from + cut);
      emissions.add(attempt.txid() + "/" + attempt.attempt() + "/" + from + "-" + to);
      for (int i = from; i < to; i++) {
        out.emit(records.get(i));
      }
      return (long) to;
    }
  }

  /** A non-transactional spout emitting the given batches once each. */
  static final class OnceSpout<T> implements NonTransactionalSpout<T> {
    final List<List<T>> batches;
    int next;

    OnceSpout(List<List<T>> batches) {
      this.batches = List.copyOf(batches);
    }

    @Override
    public String name() {
      return "once";
    }

    @Override
    public boolean isReady(long txid) {
      return next < batches.size();
    }

    @Override
    public void emit(BatchAttempt attempt, Collector<T> out) {
      for (T r : batches.get(next++)) {
        out.emit(r);
      }
    }
  }

  /**
   * A state that logs "begin t", "end t", "abort t" (t: the last txid begun) and the records of each update;
   * thread-safe log. Keeps every epoch it was begun with in {@code epochs}.
   */
  static final class LogState implements State {
    final List<String> log;
    final List<Object> applied;
    final List<Epoch> epochs = Collections.synchronizedList(new ArrayList<>());
    private Epoch epoch;
    private long lastTxid;

    LogState(List<String> log, List<Object> applied) {
      this.log = log;
      this.applied = applied;
    }

    @Override
    public void begin(Epoch epoch) {
      this.epoch = epoch;
      lastTxid = epoch.txid();
      epochs.add(epoch);
      log.add("begin " + epoch.txid());
    }

    @Override
    public void end() {
      log.add("end " + requireEpoch("end").txid());
      epoch = null;
    }

    @Override
    public void abort() {
      log.add("abort " + (lastTxid == 0 ? "none" : String.valueOf(lastTxid)));
      epoch = null;
    }

    /** @return the open epoch; fails outside begin..end, as the map states do */
    Epoch requireEpoch(String call) {
      if (epoch == null) {
        throw new IllegalStateException(call + " outside begin..end");
      }
      return epoch;
    }
  }

  /** Makes {@link LogState}s sharing one log; {@code kind} is declared as given. */
  static final class LogStates implements StateFactory<LogState> {
    final List<String> log = Collections.synchronizedList(new ArrayList<>());
    /** Records applied by committed and failed attempts alike, as "txid:record". */
    final List<Object> applied = Collections.synchronizedList(new ArrayList<>());
    private final StateKind kind;

    LogStates(StateKind kind) {
      this.kind = kind;
    }

    @Override
    public LogState makeState(StateContext context) {
      return new LogState(log, applied);
    }

    @Override
    public StateKind kind() {
      return kind;
    }
  }

  /** An updater that applies records and throws {@code failure} for the attempts {@code failWhen} selects. */
  static <T> io.epochal.pipeline.StateUpdater<LogState, T> updater(Predicate<BatchAttempt> failWhen,
      java.util.function.Supplier<RuntimeException> failure) {
    return (state, batch, records) -> {
      if (failWhen.test(batch)) {
        throw failure.get();
      }
      for (T r : records) {
        state.applied.add(batch.txid() + ":" + r);
      }
    };
  }

  /**
   * A checkpoint store (with an outbox) over an in-memory one whose commit of txid {@code txid} fails once with
   * {@code failure} (a {@link RuntimeException} or an {@link Error}): before the commit lands ({@code landed} false: the batch is retried), or after it landed
   * ({@code landed} true: a crash whose reply was lost). Logs {@code "committed t"} and {@code "commit t failed"}.
   */
  static final class FailingCommit implements CheckpointStore {
    final InMemoryCheckpointStore real;
    final List<String> log;
    private final long txid;
    private final boolean landed;
    private final Supplier<? extends Throwable> failure;
    private final AtomicBoolean failed = new AtomicBoolean();

    FailingCommit(InMemoryCheckpointStore real, long txid, boolean landed, Supplier<? extends Throwable> failure) {
      this(real, txid, landed, failure, new CopyOnWriteArrayList<>());
    }

    FailingCommit(InMemoryCheckpointStore real, long txid, boolean landed, Supplier<? extends Throwable> failure,
        List<String> log) {
      this.real = real;
      this.txid = txid;
      this.landed = landed;
      this.failure = failure;
      this.log = log;
    }

    private void fail() {
      Throwable t = failure.get();
      if (t instanceof RuntimeException r) {
        throw r;
      }
      throw (Error) t;
    }

    @Override
    public Checkpoint load(String pipeline) {
      return real.load(pipeline);
    }

    @Override
    public void recordPending(String pipeline, long t, byte[] metadata) {
      real.recordPending(pipeline, t, metadata);
    }

    @Override
    public void commit(String pipeline, long t, byte[] metadata) {
      commit(pipeline, t, metadata, List.of());
    }

    @Override
    public void commit(String pipeline, long t, byte[] metadata, List<OutboxEntry> outbox) {
      boolean fail = t == txid && failed.compareAndSet(false, true);
      if (fail && !landed) {
        log.add("commit " + t + " failed");
        fail();
      }
      real.commit(pipeline, t, metadata, outbox);
      log.add("committed " + t);
      if (fail) {
        fail();
      }
    }

    @Override
    public boolean keepsOutbox() {
      return true;
    }

    @Override
    public void reserveAttempts(String pipeline, long attemptCeiling, long txidWindow) {
      real.reserveAttempts(pipeline, attemptCeiling, txidWindow);
    }
  }
}
