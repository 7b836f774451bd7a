package io.epochal.testkit;

import io.epochal.state.IBackingMap;
import io.epochal.store.Checkpoint;
import io.epochal.store.CheckpointStore;
import io.epochal.state.StateFactory;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Fires scheduled {@link Fault}s deterministically. Wrap the backing maps and the checkpoint store of a pipeline with
 * {@link #wrap(IBackingMap)} and {@link #wrap(CheckpointStore)}; the injector follows which batch is in its commit
 * phase (the one after the last committed txid: commits are strictly ordered) and fires each fault once, the first
 * time that batch reaches the fault's point.
 *
 * <p>Thread-safe. One injector per run; share it across the restarts of that run.
 */
public final class FaultInjector {
  private final List<Fault> pending;
  private final List<Fault> fired = new ArrayList<>();
  private volatile long head = 1;

  /** @param schedule the faults to fire, in any order */
  public FaultInjector(Collection<Fault> schedule) {
    this.pending = new ArrayList<>(Objects.requireNonNull(schedule, "schedule"));
  }

  /** @return the faults that fired, in firing order */
  public synchronized List<Fault> fired() {
    return List.copyOf(fired);
  }

  /** @return the scheduled faults that never fired (their txid was never reached at their point) */
  public synchronized List<Fault> unfired() {
    return List.copyOf(pending);
  }

  /** @return the batch whose commit phase runs now */
  public long head() {
    return head;
  }

  private synchronized Fault take(FaultPoint point) {
    for (Iterator<Fault> it = pending.iterator(); it.hasNext();) {
      Fault f = it.next();
      if (f.point() == point && f.txid() == head) {
        it.remove();
        fired.add(f);
        return f;
      }
    }
    return null;
  }

  private static void raise(Fault fault) {
    if (fault.crash()) {
      throw new SimulatedCrash(fault);
    }
    throw new InjectedFailure(fault);
  }

  /** Wraps a backing map so that {@link FaultPoint#BEFORE_STATE_WRITE} and {@link FaultPoint#INSIDE_MULTIPUT} fire. */
  public <K, C> IBackingMap<K, C> wrap(IBackingMap<K, C> backing) {
    Objects.requireNonNull(backing, "backing");
    return new IBackingMap<>() {
      @Override
      public Map<K, C> multiGet(Collection<? extends K> keys) {
        Fault f = take(FaultPoint.BEFORE_STATE_WRITE);
        if (f != null) {
          raise(f);
        }
        return backing.multiGet(keys);
      }

      @Override
      public void multiPut(Map<K, C> cells) {
        Fault f = cells.size() > 1 ? take(FaultPoint.INSIDE_MULTIPUT) : null;
        if (f == null) {
          backing.multiPut(cells);
          return;
        }
        int written = Math.min(f.prefix(), cells.size() - 1);
        Map<K, C> prefix = new LinkedHashMap<>();
        for (Map.Entry<K, C> e : cells.entrySet()) {
          if (prefix.size() == written) {
            break;
          }
          prefix.put(e.getKey(), e.getValue());
        }
        backing.multiPut(prefix);
        raise(f);
      }

      @Override
      public String describe() {
        return backing.describe();
      }
    };
  }

  /**
   * Wraps a checkpoint store so that {@link FaultPoint#AFTER_STATE_WRITES} and
   * {@link FaultPoint#DURING_CHECKPOINT_COMMIT} fire, and so that the injector knows the batch in its commit phase.
   */
  public CheckpointStore wrap(CheckpointStore store) {
    Objects.requireNonNull(store, "store");
    return new CheckpointStore() {
      @Override
      public Checkpoint load(String pipeline) {
        Checkpoint cp = store.load(pipeline);
        head = cp.committedTxid() + 1;
        return cp;
      }

      @Override
      public void recordPending(String pipeline, long txid, byte[] metadata) {
        store.recordPending(pipeline, txid, metadata);
      }

      @Override
      public void commit(String pipeline, long txid, byte[] metadata) {
        Fault before = take(FaultPoint.AFTER_STATE_WRITES);
        if (before != null) {
          raise(before);
        }
        store.commit(pipeline, txid, metadata);
        Fault during = take(FaultPoint.DURING_CHECKPOINT_COMMIT);
        head = txid + 1;
        if (during != null) {
          raise(during);
        }
      }

      @Override
      public void abort(String pipeline, long txid) {
        store.abort(pipeline, txid);
      }

      @Override
      public boolean commitsAtomicallyWith(StateFactory<?> factory) {
        return store.commitsAtomicallyWith(factory);
      }

      @Override
      public String describe() {
        return store.describe();
      }
    };
  }
}
