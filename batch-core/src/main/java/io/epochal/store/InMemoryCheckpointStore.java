package io.epochal.store;

import io.epochal.api.Stable;
import io.epochal.errors.EpochalException;
import io.epochal.errors.ErrorContext;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A {@link CheckpointStore} in memory, for tests and examples. Each instance is its own store; share it between
 * pipeline runs to model a restart (attempt reservations included). Thread-safe; each call is atomic.
 *
 * @since 0.1.0
 */
@Stable
public final class InMemoryCheckpointStore implements CheckpointStore {
  private final ConcurrentHashMap<String, Checkpoint> checkpoints = new ConcurrentHashMap<>();

  @Override
  public Checkpoint load(String pipeline) {
    return checkpoints.getOrDefault(Objects.requireNonNull(pipeline, "pipeline"), Checkpoint.EMPTY);
  }

  @Override
  public void recordPending(String pipeline, long txid, byte[] metadata) {
    Objects.requireNonNull(metadata, "metadata");
    checkpoints.compute(pipeline, (name, current) -> {
      Checkpoint base = current == null ? Checkpoint.EMPTY : current;
      if (txid <= base.committedTxid()) {
        throw new EpochalException("pipeline " + pipeline + ": cannot record pending txid " + txid
            + ", txid " + base.committedTxid() + " is already committed", null, false,
            ErrorContext.NONE.withPipeline(pipeline).withTxid(txid));
      }
      return base.withPending(txid, metadata);
    });
  }

  @Override
  public void commit(String pipeline, long txid, byte[] metadata) {
    commit(pipeline, txid, metadata, java.util.List.of());
  }

  /** {@inheritDoc} The outbox is kept in memory with the checkpoint. */
  @Override
  public void commit(String pipeline, long txid, byte[] metadata, java.util.List<OutboxEntry> outbox) {
    Objects.requireNonNull(metadata, "metadata");
    Objects.requireNonNull(outbox, "outbox");
    checkpoints.compute(pipeline, (name, current) -> {
      Checkpoint base = current == null ? Checkpoint.EMPTY : current;
      if (txid != base.committedTxid() + 1) {
        throw new EpochalException("pipeline " + pipeline + ": commit of txid " + txid
            + " out of order, last committed txid is " + base.committedTxid(), null, false,
            ErrorContext.NONE.withPipeline(pipeline).withTxid(txid));
      }
      return base.committed(txid, metadata, outbox);
    });
  }

  @Override
  public boolean keepsOutbox() {
    return true;
  }

  @Override
  public void reserveAttempts(String pipeline, long attemptCeiling, long txidWindow) {
    checkpoints.compute(Objects.requireNonNull(pipeline, "pipeline"),
        (name, current) -> (current == null ? Checkpoint.EMPTY : current).withReservation(attemptCeiling, txidWindow));
  }

  @Override
  public String describe() {
    return "in-memory checkpoint store";
  }
}
