package io.epochal.pipeline.internal;

import io.epochal.errors.EpochalException;
import io.epochal.errors.ErrorContext;
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
abstract sealed class BatchSource {

  /** Where a transactional source keeps the metadata of a started batch before emitting it. */
  interface Pending {
    /** The metadata a crashed run recorded for {@code txid}, or null. */
    byte[] recovered(long txid);

    /** Records the metadata of started batch {@code txid} durably, before any record is emitted. */
    void record(long txid, byte[] metadata);
  }

  private final Spout<Object, Object> spout;

  private BatchSource(Spout<Object, Object> spout) {
    this.spout = spout;
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

  final String name() {
    return spout.name();
  }

  final SpoutKind kind() {
    return spout.kind();
  }

  /** Decodes committed metadata. */
  final Object decode(byte[] metadata) {
    return spout.metadataCodec().decode(metadata);
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
  abstract void emit(InFlight batch, Optional<Object> previous, Collector<Object> out, ErrorContext ctx);

  final void success(long txid) {
    spout.success(txid);
  }

  final void close() {
    spout.close();
  }

  private static final class Transactional extends BatchSource {
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
    void emit(InFlight batch, Optional<Object> previous, Collector<Object> out, ErrorContext ctx) {
      tx.emit(batch.attemptId(), batch.meta.orElseThrow(), out);
    }
  }

  private static final class Opaque extends BatchSource {
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
    void emit(InFlight batch, Optional<Object> previous, Collector<Object> out, ErrorContext ctx) {
      Object meta = op.emit(batch.attemptId(), previous, out);
      if (meta == null) {
        throw new EpochalException("opaque spout '" + op.name() + "' returned null metadata from emit ("
            + batch.attemptId() + "); it must return the position after the emitted records", null, false, ctx);
      }
      batch.meta = Optional.of(meta);
      batch.metaBytes = op.metadataCodec().encode(meta);
    }
  }

  private static final class NonTransactional extends BatchSource {
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
    void emit(InFlight batch, Optional<Object> previous, Collector<Object> out, ErrorContext ctx) {
      nt.emit(batch.attemptId(), out);
    }
  }
}
