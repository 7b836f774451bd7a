package io.epochal.store;

import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A {@link CheckpointStore} in memory, for tests and examples. Each instance is its own store; share it between
 * pipeline runs to model a restart. Thread-safe; each call is atomic.
 */
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
        throw new IllegalStateException("pipeline " + pipeline + ": cannot record pending txid " + txid
            + ", txid " + base.committedTxid() + " is already committed");
      }
      TreeMap<Long, byte[]> pending = new TreeMap<>(base.pendingMetadata());
      pending.put(txid, metadata.clone());
      return new Checkpoint(base.committedTxid(), base.committedMetadata(), pending);
    });
  }

  @Override
  public void commit(String pipeline, long txid, byte[] metadata) {
    Objects.requireNonNull(metadata, "metadata");
    checkpoints.compute(pipeline, (name, current) -> {
      Checkpoint base = current == null ? Checkpoint.EMPTY : current;
      if (txid != base.committedTxid() + 1) {
        throw new IllegalStateException("pipeline " + pipeline + ": commit of txid " + txid
            + " out of order, last committed txid is " + base.committedTxid());
      }
      TreeMap<Long, byte[]> pending = new TreeMap<>(base.pendingMetadata().tailMap(txid + 1));
      return new Checkpoint(txid, metadata.clone(), pending);
    });
  }

  @Override
  public String describe() {
    return "in-memory checkpoint store";
  }
}
