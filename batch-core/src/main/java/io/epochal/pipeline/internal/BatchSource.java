package io.epochal.pipeline.internal;

import io.epochal.errors.EpochalException;
import io.epochal.errors.ErrorContext;
import io.epochal.spout.BatchAttempt;
import io.epochal.spout.Collector;
import io.epochal.spout.NonTransactionalSpout;
import io.epochal.spout.OpaqueSpout;
import io.epochal.spout.Spout;
import io.epochal.spout.SpoutKind;
import io.epochal.spout.TransactionalSpout;
import java.util.Optional;

/**
 * A pipeline's spout, wrapped once by kind: the coordinator asks it to fix a batch's cut ({@link #open}) and to emit
 * an attempt ({@link #emit}) without knowing which kind of spout it is. Used by the coordinator thread only. Internal.
 */
abstract sealed class BatchSource permits BatchSource.Transactional, BatchSource.Opaque, BatchSource.NonTransactional,
    MergedSource {

  /** Where an emission puts the records of each source of the pipeline (index in declaration order). */
  interface Emission {
    /** The collector of source {@code index}. */
    Collector<Object> of(int index);
  }

  /** Where a transactional source keeps the metadata of a started batch before emitting it. */
  interface Pending {
    /** The metadata a crashed run recorded for {@code txid}, or null. */
    byte[] recovered(long txid);

    /** Records the metadata of started batch {@code txid} durably, before any record is emitted. */
    void record(long txid, byte[] metadata);
  }

  private final Spout<Object, Object> spout;

  BatchSource(Spout<Object, Object> spout) {
    this.spout = spout;
  }

  /** Wraps the pipeline's spouts: one by its kind, several in a {@link MergedSource} (one batch of each per txid). */
  static BatchSource of(java.util.List<Spout<?, ?>> spouts) {
    if (spouts.size() == 1) {
      return of(spouts.get(0));
    }
    java.util.List<BatchSource> children = new java.util.ArrayList<>(spouts.size());
    for (Spout<?, ?> s : spouts) {
      children.add(of(s));
    }
    return new MergedSource(children);
  }

  /** Wraps {@code spout} by its kind (the only place that looks at the spout's type). */
  @SuppressWarnings("unchecked")
  static BatchSource of(Spout<?, ?> spout) {
    if (spout instanceof TransactionalSpout<?, ?> tx) {
      return new Transactional((TransactionalSpout<Object, Object>) tx);
    }
    if (spout instanceof OpaqueSpout<?, ?> op) {
      return new Opaque((OpaqueSpout<Object, Object>) op);
    }
    return new NonTransactional((NonTransactionalSpout<Object>) spout);
  }

  String name() {
    return spout.name();
  }

  SpoutKind kind() {
    return spout.kind();
  }

  /** Decodes committed metadata. */
  Object decode(byte[] metadata) {
    return spout.metadataCodec().decode(metadata);
  }

  /**
   * The position an {@code AT_MOST_ONCE} pipeline commits for a batch an earlier run left pending with metadata
   * {@code pending}, the batch after the one committed with {@code committed}: the pending metadata itself.
   */
  Object pendingPosition(byte[] pending, Optional<Object> committed) {
    return decode(pending);
  }

  /** Encodes metadata (of this source's own type). */
  byte[] encode(Object metadata) {
    return spout.metadataCodec().encode(metadata);
  }

  /**
   * Whether the cut of a batch is fixed (and recorded) before it is emitted, so the batches behind a failed one stay
   * valid; otherwise they were cut after its failed emission and must be emitted again after it.
   */
  abstract boolean cutsBeforeEmission();

  /**
   * Fixes what can be fixed of batch {@code batch.txid} before its emission (sets its metadata when known).
   *
   * @return false when the spout has nothing new (nothing was recorded)
   */
  abstract boolean open(InFlight batch, Optional<Object> previous, Pending pending);

  /** Emits the current attempt of {@code batch}; sets its metadata when the emission fixes it. */
  abstract void emit(InFlight batch, Optional<Object> previous, Emission out, ErrorContext ctx);

  /**
   * Whether {@code batch} got past {@link #open} (its cut is fixed as far as it is fixed before emission), so that a
   * failed attempt can be emitted again without opening it anew.
   */
  boolean opened(InFlight batch) {
    return !cutsBeforeEmission() || batch.meta.isPresent();
  }

  /**
   * As a part of a {@link MergedSource}: fixes this source's share of batch {@code txid} before emission, in
   * {@code share} (a transactional cut; readiness otherwise).
   *
   * @return whether this source has records for the batch
   */
  abstract boolean cutShare(long txid, Optional<Object> previous, MergedSource.Share share);

  /** As a part of a {@link MergedSource}: emits this source's share; an opaque source sets the share's metadata. */
  abstract void emitShare(BatchAttempt attempt, Optional<Object> previous, MergedSource.Share share,
      Collector<Object> out, ErrorContext ctx);

  void success(long txid) {
    spout.success(txid);
  }

  void close() {
    spout.close();
  }

  static final class Transactional extends BatchSource {
    private final TransactionalSpout<Object, Object> tx;

    Transactional(TransactionalSpout<Object, Object> tx) {
      super(tx);
      this.tx = tx;
    }

    @Override
    boolean cutsBeforeEmission() {
      return true;
    }

    @Override
    boolean open(InFlight batch, Optional<Object> previous, Pending pending) {
      byte[] recovered = pending.recovered(batch.txid);
      if (recovered != null) {
        batch.meta = Optional.of(tx.metadataCodec().decode(recovered));
        batch.metaBytes = recovered;
        return true;
      }
      Optional<Object> next = tx.nextBatch(batch.txid, previous);
      if (next.isEmpty()) {
        return false;
      }
      byte[] bytes = tx.metadataCodec().encode(next.get());
      pending.record(batch.txid, bytes);
      batch.meta = next;
      batch.metaBytes = bytes;
      return true;
    }

    @Override
    void emit(InFlight batch, Optional<Object> previous, Emission out, ErrorContext ctx) {
      tx.emit(batch.attemptId(), batch.meta.orElseThrow(), out.of(0));
    }

    @Override
    boolean cutShare(long txid, Optional<Object> previous, MergedSource.Share share) {
      share.meta = tx.nextBatch(txid, previous);
      share.present = share.meta.isPresent();
      return share.present;
    }

    @Override
    void emitShare(BatchAttempt attempt, Optional<Object> previous, MergedSource.Share share, Collector<Object> out,
        ErrorContext ctx) {
      tx.emit(attempt, share.meta.orElseThrow(), out);
    }
  }

  static final class Opaque extends BatchSource {
    private final OpaqueSpout<Object, Object> op;

    Opaque(OpaqueSpout<Object, Object> op) {
      super(op);
      this.op = op;
    }

    @Override
    boolean cutsBeforeEmission() {
      return false;
    }

    @Override
    boolean open(InFlight batch, Optional<Object> previous, Pending pending) {
      return op.isReady(batch.txid, previous);
    }

    @Override
    void emit(InFlight batch, Optional<Object> previous, Emission out, ErrorContext ctx) {
      Object meta = emitChecked(batch.attemptId(), previous, out.of(0), ctx);
      batch.meta = Optional.of(meta);
      batch.metaBytes = op.metadataCodec().encode(meta);
    }

    @Override
    boolean cutShare(long txid, Optional<Object> previous, MergedSource.Share share) {
      share.present = op.isReady(txid, previous);
      return share.present;
    }

    @Override
    void emitShare(BatchAttempt attempt, Optional<Object> previous, MergedSource.Share share, Collector<Object> out,
        ErrorContext ctx) {
      share.meta = Optional.of(emitChecked(attempt, previous, out, ctx));
    }

    private Object emitChecked(BatchAttempt attempt, Optional<Object> previous, Collector<Object> out,
        ErrorContext ctx) {
      Object meta = op.emit(attempt, previous, out);
      if (meta == null) {
        throw new EpochalException("opaque spout '" + op.name() + "' returned null metadata from emit (" + attempt
            + "); it must return the position after the emitted records", null, false, ctx);
      }
      return meta;
    }

  }

  static final class NonTransactional extends BatchSource {
    private static final byte[] NO_METADATA = new byte[0];
    private final NonTransactionalSpout<Object> nt;

    @SuppressWarnings({"unchecked", "rawtypes"})
    NonTransactional(NonTransactionalSpout<Object> nt) {
      super((Spout) nt);
      this.nt = nt;
    }

    @Override
    boolean cutsBeforeEmission() {
      return false;
    }

    @Override
    boolean open(InFlight batch, Optional<Object> previous, Pending pending) {
      if (!nt.isReady(batch.txid)) {
        return false;
      }
      batch.meta = Optional.of(NO_METADATA);
      batch.metaBytes = NO_METADATA;
      return true;
    }

    @Override
    void emit(InFlight batch, Optional<Object> previous, Emission out, ErrorContext ctx) {
      nt.emit(batch.attemptId(), out.of(0));
    }

    @Override
    boolean cutShare(long txid, Optional<Object> previous, MergedSource.Share share) {
      share.present = nt.isReady(txid);
      share.meta = share.present ? Optional.of(NO_METADATA) : Optional.empty();
      return share.present;
    }

    @Override
    void emitShare(BatchAttempt attempt, Optional<Object> previous, MergedSource.Share share, Collector<Object> out,
        ErrorContext ctx) {
      nt.emit(attempt, out);
    }
  }
}
