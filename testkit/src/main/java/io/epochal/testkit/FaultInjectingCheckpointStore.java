package io.epochal.testkit;

import io.epochal.store.Checkpoint;
import io.epochal.store.CheckpointStore;

/**
 * The checkpoint-store wrapper of {@link FaultInjector#wrap(CheckpointStore)}: fires
 * {@link FaultPoint#AFTER_STATE_WRITES}, the lease points, {@link FaultPoint#INSIDE_CHECKPOINT_COMMIT} (through the
 * injector's commit hook) and {@link FaultPoint#DURING_CHECKPOINT_COMMIT} around the wrapped store's commits, and moves
 * the injector's {@linkplain FaultInjector#head() head} to the batch in its commit phase. Forwards the wrapped store's
 * epochs and staging. Thread-safe if the wrapped store is.
 */
final class FaultInjectingCheckpointStore implements CheckpointStore {
  private final FaultInjector injector;
  private final CheckpointStore store;

  FaultInjectingCheckpointStore(FaultInjector injector, CheckpointStore store) {
    this.injector = injector;
    this.store = store;
  }

  @Override
  public Checkpoint load(String pipeline) {
    Checkpoint cp = store.load(pipeline);
    injector.head(cp.committedTxid() + 1);
    return cp;
  }

  @Override
  public void recordPending(String pipeline, long txid, byte[] metadata) {
    store.recordPending(pipeline, txid, metadata);
  }

  @Override
  public void commit(String pipeline, long txid, byte[] metadata) {
    commit(pipeline, txid, metadata, java.util.List.of());
  }

  @Override
  public boolean keepsOutbox() {
    return store.keepsOutbox();
  }

  @Override
  public void commit(String pipeline, long txid, byte[] metadata,
      java.util.List<io.epochal.store.OutboxEntry> outbox) {
    Fault before = injector.take(FaultPoint.AFTER_STATE_WRITES);
    if (before != null) {
      throw injector.raise(before, txid);
    }
    Fault zombie = injector.takeLeasePoint();
    if (zombie != null) {
      injector.commitAsZombie(zombie, () -> store.commit(pipeline, txid, metadata, outbox), txid);
    }
    Fault inside = injector.take(FaultPoint.INSIDE_CHECKPOINT_COMMIT);
    if (inside != null && !injector.hookInstalled()) {
      throw injector.raise(inside, txid); // the store cannot fail midway: fail before it writes anything
    }
    boolean landedUnderInside = injector.commitThroughHook(inside,
        () -> store.commit(pipeline, txid, metadata, outbox), txid);
    injector.head(txid + 1);
    if (landedUnderInside) {
      // The commit made at most prefix table writes, so all of them landed: the call fails after it.
      throw injector.raise(inside, txid);
    }
    Fault during = injector.take(FaultPoint.DURING_CHECKPOINT_COMMIT, txid); // head already moved on to txid + 1
    if (during != null) {
      throw injector.raise(during, txid);
    }
  }

  @Override
  public void reserveAttempts(String pipeline, long attemptCeiling, long txidWindow) {
    store.reserveAttempts(pipeline, attemptCeiling, txidWindow);
  }

  @Override
  public io.epochal.store.CheckpointEpoch openEpoch(String pipeline, io.epochal.spout.BatchAttempt attempt) {
    // the states stage in the wrapped store's epoch; its commit and abort pass through this wrapper
    return io.epochal.store.CheckpointEpoch.through(this, store.openEpoch(pipeline, attempt));
  }

  @Override
  public void abort(String pipeline, long txid) {
    store.abort(pipeline, txid);
  }

  @Override
  public <T> java.util.Optional<T> staging(String pipeline, Class<T> type) {
    return store.staging(pipeline, type); // the states stage in the wrapped store's epochs
  }

  @Override
  public String describe() {
    return store.describe();
  }

  @Override
  public String toString() {
    return "FaultInjecting(" + store.describe() + ")";
  }
}
