package io.epochal.trident;

import io.epochal.codec.Codec;
import io.epochal.spout.BatchAttempt;
import io.epochal.spout.Collector;
import io.epochal.spout.NonTransactionalSpout;
import io.epochal.spout.Spout;
import io.epochal.spout.SpoutKind;
import io.epochal.spout.TransactionalSpout;
import io.epochal.trident.SpoutSupport.Meta;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.storm.trident.spout.ICommitterTridentSpout;
import org.apache.storm.trident.spout.ITridentSpout;
import org.apache.storm.trident.topology.TransactionAttempt;
import org.apache.storm.trident.tuple.TridentTuple;
import org.apache.storm.tuple.Fields;

/**
 * Generic Trident {@link ITridentSpout}s on the Epochal engine, driven as Storm's {@code TridentSpoutCoordinator} and
 * {@code TridentSpoutExecutor} drive them: per new txid, {@code isReady(txid)}, then
 * {@code initializeTransaction(txid, previous metadata, null)} on the coordinator, and
 * {@code emitBatch(attempt, metadata, collector)} on the emitter for every attempt; after the commit,
 * {@code commit(attempt)} (for an {@link ICommitterTridentSpout}), then {@code success} on emitter and coordinator.
 *
 * <p>The transactional adapter fixes the coordinator's metadata before emission (it is recorded in the checkpoint, so
 * a replay after a crash emits with the same metadata, where Trident reads it back from ZooKeeper); it emits the batch
 * once ahead of time to learn whether it is empty (an empty batch means "no new data now": the txid is not used) and
 * keeps the tuples for the first attempt. Metadata is stored as JSON, as Trident stores it, when it reads back equal,
 * by Java serialization otherwise ({@link SpoutSupport#nullableMetadataCodec}). The non-transactional adapter does the
 * same without recording anything. The coordinator and the emitter get the contexts Storm gives them
 * ({@link SpoutSupport#coordinatorContext()}, {@link SpoutSupport#emitterContext()}).
 */
final class TridentSpoutAdapters {
  private TridentSpoutAdapters() {
  }

  /** The adapter of {@code kind}; see {@code EpochalTrident.spout(String, ITridentSpout, SpoutKind)}. */
  static Spout<TridentTuple, ?> of(String name, ITridentSpout<?> spout, SpoutKind kind) {
    SpoutSupport support = SpoutSupport.of(name, spout.getOutputFields(), spout.getComponentConfiguration());
    switch (Objects.requireNonNull(kind, "kind")) {
      case TRANSACTIONAL:
        return new Transactional(support, spout);
      case NON_TRANSACTIONAL:
        return (NonTransactionalSpout<TridentTuple>) new NonTransactional(support, spout);
      default:
        throw new IllegalArgumentException("a generic ITridentSpout cannot be run as OPAQUE: its emitter keeps its "
            + "position itself, where Epochal cannot checkpoint it. Implement IOpaquePartitionedTridentSpout, or "
            + "declare TRANSACTIONAL or NON_TRANSACTIONAL");
    }
  }

  /** The coordinator, the emitter and the tuples emitted ahead of time. Used by one engine thread. */
  private static final class Driver {
    final SpoutSupport support;
    final ITridentSpout<Object> spout;
    final TreeMap<Long, List<TridentTuple>> ahead = new TreeMap<>();
    final TreeMap<Long, Integer> lastAttempt = new TreeMap<>();
    ITridentSpout.BatchCoordinator<Object> coordinator;
    ITridentSpout.Emitter<Object> emitter;

    @SuppressWarnings("unchecked")
    Driver(SpoutSupport support, ITridentSpout<?> spout) {
      this.support = support;
      this.spout = (ITridentSpout<Object>) Objects.requireNonNull(spout, "spout");
    }

    ITridentSpout.BatchCoordinator<Object> coordinator() {
      if (coordinator == null) {
        coordinator = spout.getCoordinator(support.name, support.conf, support.coordinatorContext());
      }
      return coordinator;
    }

    ITridentSpout.Emitter<Object> emitter() {
      if (emitter == null) {
        emitter = spout.getEmitter(support.name, support.conf, support.emitterContext());
      }
      return emitter;
    }

    /** Fixes and probes batch {@code txid}; empty if the coordinator is not ready or the batch is empty. */
    Optional<Meta> start(long txid, Object previous) {
      if (!coordinator().isReady(txid)) {
        return Optional.empty();
      }
      Object meta = coordinator().initializeTransaction(txid, previous, null);
      Collectors.Buffer buffer = new Collectors.Buffer("ITridentSpout " + support.name, support.fields);
      emitter().emitBatch(SpoutSupport.attempt(txid, 1), meta, buffer);
      if (buffer.tuples.isEmpty()) {
        return Optional.empty();
      }
      ahead.put(txid, buffer.tuples);
      return Optional.of(new Meta(meta));
    }

    void emit(BatchAttempt attempt, Object meta, Collector<TridentTuple> out) {
      lastAttempt.put(attempt.txid(), attempt.attempt());
      List<TridentTuple> batch = attempt.attempt() == 1 ? ahead.remove(attempt.txid()) : null;
      ahead.remove(attempt.txid());
      if (batch != null) {
        batch.forEach(out::emit);
      } else {
        emitter().emitBatch(SpoutSupport.attempt(attempt.txid(), attempt.attempt()), meta,
            new Collectors.Forward("ITridentSpout " + support.name, support.fields, out));
      }
    }

    void success(long txid) {
      Integer attempt = lastAttempt.get(txid);
      TransactionAttempt tx = SpoutSupport.attempt(txid, attempt == null ? 1 : attempt);
      lastAttempt.headMap(txid, true).clear();
      ahead.headMap(txid, true).clear();
      if (emitter() instanceof ICommitterTridentSpout.Emitter committer) {
        committer.commit(tx);
      }
      emitter().success(tx);
      coordinator().success(txid);
    }

    void close() {
      if (emitter != null) {
        emitter.close();
      }
      if (coordinator != null) {
        coordinator.close();
      }
    }
  }

  static final class Transactional implements TransactionalSpout<TridentTuple, Meta>, SpoutSupport.Adapter {
    private final Driver driver;

    Transactional(SpoutSupport support, ITridentSpout<?> spout) {
      this.driver = new Driver(support, spout);
    }

    @Override
    public Fields outputFields() {
      return driver.support.fields;
    }

    @Override
    public String name() {
      return driver.support.name;
    }

    @Override
    public Codec<Meta> metadataCodec() {
      return SpoutSupport.nullableMetadataCodec("batch metadata of Trident spout " + name(),
          driver.spout.getClass().getClassLoader());
    }

    @Override
    public Optional<Meta> nextBatch(long txid, Optional<Meta> previous) {
      return driver.start(txid, previous.map(Meta::value).orElse(null));
    }

    @Override
    public void emit(BatchAttempt attempt, Meta metadata, Collector<TridentTuple> out) {
      driver.emit(attempt, metadata.value(), out);
    }

    @Override
    public void success(long txid) {
      driver.success(txid);
    }

    @Override
    public void close() {
      driver.close();
    }

    @Override
    public String toString() {
      return "transactional ITridentSpout " + name() + " (" + driver.spout.getClass().getName() + ")";
    }
  }

  static final class NonTransactional implements NonTransactionalSpout<TridentTuple>, SpoutSupport.Adapter {
    private final Driver driver;
    private Object previous;
    private final TreeMap<Long, Object> metas = new TreeMap<>();

    NonTransactional(SpoutSupport support, ITridentSpout<?> spout) {
      this.driver = new Driver(support, spout);
    }

    @Override
    public Fields outputFields() {
      return driver.support.fields;
    }

    @Override
    public String name() {
      return driver.support.name;
    }

    @Override
    public boolean isReady(long txid) {
      Object prev = metas.containsKey(txid - 1) ? metas.get(txid - 1) : previous;
      Optional<Meta> meta = driver.start(txid, prev);
      meta.ifPresent(m -> metas.put(txid, m.value()));
      return meta.isPresent();
    }

    @Override
    public void emit(BatchAttempt attempt, Collector<TridentTuple> out) {
      driver.emit(attempt, metas.get(attempt.txid()), out);
    }

    @Override
    public void success(long txid) {
      previous = metas.get(txid);
      metas.headMap(txid, true).clear();
      driver.success(txid);
    }

    @Override
    public void close() {
      driver.close();
    }

    @Override
    public String toString() {
      return "non-transactional ITridentSpout " + name() + " (" + driver.spout.getClass().getName() + ")";
    }
  }
}
