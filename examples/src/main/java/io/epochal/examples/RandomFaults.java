package io.epochal.examples;

import io.epochal.state.IBackingMap;
import io.epochal.state.StateFactory;
import io.epochal.store.Checkpoint;
import io.epochal.store.CheckpointStore;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Random failures for the examples' {@code --failure-rate p}: each state read, state write and checkpoint commit
 * fails with probability {@code p} at one of the protocol's points (before the first write, between two keys of a
 * multiPut, before the checkpoint commit, after the checkpoint commit). Seeded, thread-safe.
 */
final class RandomFaults {
  private final double rate;
  private final SplittableRandom random;
  private final AtomicLong injected = new AtomicLong();

  RandomFaults(double rate, long seed) {
    if (rate < 0 || rate >= 1) {
      throw new IllegalArgumentException("--failure-rate must be in [0, 1), was " + rate);
    }
    this.rate = rate;
    this.random = new SplittableRandom(seed);
  }

  long injected() {
    return injected.get();
  }

  private synchronized boolean roll(double p) {
    return rate > 0 && random.nextDouble() < p;
  }

  private RuntimeException fault(String where) {
    injected.incrementAndGet();
    return new IllegalStateException("injected failure " + where);
  }

  <K, C> IBackingMap<K, C> wrap(IBackingMap<K, C> backing) {
    return new IBackingMap<>() {
      @Override
      public Map<K, C> multiGet(Collection<? extends K> keys) {
        if (roll(rate / 4)) {
          throw fault("before the first state write");
        }
        return backing.multiGet(keys);
      }

      @Override
      public void multiPut(Map<K, C> cells) {
        if (cells.size() > 1 && roll(rate / 4)) {
          Map<K, C> half = new LinkedHashMap<>();
          for (Map.Entry<K, C> e : cells.entrySet()) {
            if (half.size() >= cells.size() / 2) {
              break;
            }
            half.put(e.getKey(), e.getValue());
          }
          backing.multiPut(half);
          throw fault("between two keys of one multiPut");
        }
        backing.multiPut(cells);
      }

      @Override
      public String describe() {
        return backing.describe();
      }
    };
  }

  CheckpointStore wrap(CheckpointStore store) {
    return new CheckpointStore() {
      @Override
      public Checkpoint load(String pipeline) {
        return store.load(pipeline);
      }

      @Override
      public void recordPending(String pipeline, long txid, byte[] metadata) {
        store.recordPending(pipeline, txid, metadata);
      }

      @Override
      public void commit(String pipeline, long txid, byte[] metadata) {
        if (roll(rate / 4)) {
          throw fault("after the state writes, before the checkpoint commit");
        }
        store.commit(pipeline, txid, metadata);
        if (roll(rate / 4)) {
          throw fault("during the checkpoint commit (written, reply lost)");
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
