package io.epochal.trident;

import io.epochal.codec.Codec;
import io.epochal.codec.Codecs;
import io.epochal.spout.BatchAttempt;
import io.epochal.spout.Collector;
import io.epochal.spout.NonTransactionalSpout;
import io.epochal.spout.Spout;
import io.epochal.spout.SpoutKind;
import io.epochal.spout.TransactionalSpout;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.storm.trident.spout.IBatchSpout;
import org.apache.storm.trident.tuple.TridentTuple;
import org.apache.storm.tuple.Fields;

/**
 * Trident {@link IBatchSpout}s on the Epochal engine, run as Storm's {@code BatchSpoutExecutor} runs them: the batch
 * id is the txid, {@code emitBatch(txid)} is called for every attempt (a replay relies on the spout re-emitting the
 * same batch for the same id, as {@code FixedBatchSpout} does), and {@code ack(txid)} follows the commit.
 *
 * <p>To find out whether a new batch exists, the adapter emits it once ahead of time and keeps the tuples for the
 * first attempt; an empty batch means "no new data now" (the txid is not used, {@code runUntilIdle} returns, and the
 * next run asks the spout for the same batch id again). {@code open} is called before the first batch.
 */
final class BatchSpoutAdapters {
  private BatchSpoutAdapters() {
  }

  /** The transactional adapter of spout {@code name}; see {@code EpochalTrident.spout(String, IBatchSpout)}. */
  static TransactionalSpout<TridentTuple, ?> transactional(String name, IBatchSpout spout) {
    return new Transactional(SpoutSupport.of(name, spout), spout);
  }

  /** The adapter of {@code kind}; see {@code EpochalTrident.spout(String, IBatchSpout, SpoutKind)}. */
  static Spout<TridentTuple, ?> of(String name, IBatchSpout spout, SpoutKind kind) {
    SpoutSupport support = SpoutSupport.of(name, spout);
    switch (Objects.requireNonNull(kind, "kind")) {
      case TRANSACTIONAL:
        return new Transactional(support, spout);
      case NON_TRANSACTIONAL:
        return (NonTransactionalSpout<TridentTuple>) new NonTransactional(support, spout);
      default:
        throw new IllegalArgumentException("an IBatchSpout cannot be OPAQUE: it has no batch metadata to continue "
            + "from. Declare it TRANSACTIONAL (it re-emits a batch id's tuples) or NON_TRANSACTIONAL");
    }
  }

  /** The spout plus the tuples emitted ahead of time, by batch id. Used by one engine thread. */
  private static final class Source {
    final SpoutSupport support;
    final IBatchSpout spout;
    final TreeMap<Long, List<TridentTuple>> ahead = new TreeMap<>();
    boolean opened;

    Source(SpoutSupport support, IBatchSpout spout) {
      this.support = support;
      this.spout = spout;
    }

    List<TridentTuple> emit(long batchId) {
      if (!opened) {
        spout.open(support.conf, support.emitterContext());
        opened = true;
      }
      Collectors.Buffer buffer = new Collectors.Buffer("IBatchSpout " + support.name, support.fields);
      spout.emitBatch(batchId, buffer);
      return buffer.tuples;
    }

    boolean probe(long batchId) {
      List<TridentTuple> batch = emit(batchId);
      if (batch.isEmpty()) {
        return false;
      }
      ahead.put(batchId, batch);
      return true;
    }

    void emitTo(long batchId, Collector<TridentTuple> out) {
      List<TridentTuple> batch = ahead.remove(batchId);
      for (TridentTuple t : batch != null ? batch : emit(batchId)) {
        out.emit(t);
      }
    }

    void success(long batchId) {
      ahead.headMap(batchId, true).clear();
      spout.ack(batchId);
    }

    void close() {
      ahead.clear();
      if (opened) {
        spout.close();
      }
    }
  }

  static final class Transactional implements TransactionalSpout<TridentTuple, Long>, SpoutSupport.Adapter {
    private final Source source;

    Transactional(SpoutSupport support, IBatchSpout spout) {
      this.source = new Source(support, Objects.requireNonNull(spout, "spout"));
    }

    @Override
    public Fields outputFields() {
      return source.support.fields;
    }

    @Override
    public String name() {
      return source.support.name;
    }

    @Override
    public Codec<Long> metadataCodec() {
      return Codecs.longs();
    }

    @Override
    public Optional<Long> nextBatch(long txid, Optional<Long> previous) {
      return source.probe(txid) ? Optional.of(txid) : Optional.empty();
    }

    @Override
    public void emit(BatchAttempt attempt, Long batchId, Collector<TridentTuple> out) {
      source.emitTo(batchId, out);
    }

    @Override
    public void success(long txid) {
      source.success(txid);
    }

    @Override
    public void close() {
      source.close();
    }

    @Override
    public String toString() {
      return "transactional IBatchSpout " + name() + " (" + source.spout.getClass().getName() + ")";
    }
  }

  static final class NonTransactional implements NonTransactionalSpout<TridentTuple>, SpoutSupport.Adapter {
    private final Source source;

    NonTransactional(SpoutSupport support, IBatchSpout spout) {
      this.source = new Source(support, Objects.requireNonNull(spout, "spout"));
    }

    @Override
    public Fields outputFields() {
      return source.support.fields;
    }

    @Override
    public String name() {
      return source.support.name;
    }

    @Override
    public boolean isReady(long txid) {
      return source.probe(txid);
    }

    @Override
    public void emit(BatchAttempt attempt, Collector<TridentTuple> out) {
      source.emitTo(attempt.txid(), out);
    }

    @Override
    public void success(long txid) {
      source.success(txid);
    }

    @Override
    public void close() {
      source.close();
    }

    @Override
    public String toString() {
      return "non-transactional IBatchSpout " + name() + " (" + source.spout.getClass().getName() + ")";
    }
  }

  static Map<String, Object> componentConf(IBatchSpout spout) {
    return spout.getComponentConfiguration();
  }
}
