package io.epochal.examples;

import io.epochal.state.ForwardingBackingMap;
import io.epochal.state.IBackingMap;
import io.epochal.store.CheckpointStore;
import io.epochal.testkit.Fault;
import io.epochal.testkit.FaultInjector;
import io.epochal.testkit.RandomFaultSchedule;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * Random failures for the examples' {@code --failure-rate p}, on the testkit's fault model: a
 * {@link RandomFaultSchedule} makes each attempt of a batch fail with probability {@code p} at one of the protocol's
 * points (the state's first read, between two keys of a multiPut, before the checkpoint commit, after the checkpoint
 * commit), and a {@link FaultInjector} fires those faults. The schedule is fed batch by batch, up to the batch in its
 * commit phase, so runs of any length (and resumed runs) get faults. Seeded, thread-safe.
 */
final class RandomFaults {
  private final RandomFaultSchedule schedule;
  private final FaultInjector injector = new FaultInjector(List.of());
  private long scheduledThrough;

  RandomFaults(double rate, long seed) {
    if (!(rate >= 0 && rate < 1)) {
      throw new IllegalArgumentException("--failure-rate must be in [0, 1), was " + rate);
    }
    this.schedule = new RandomFaultSchedule(rate, seed);
  }

  /** @return how many failures were injected so far */
  long injected() {
    return injector.fired().size();
  }

  /** Schedules the faults of every batch up to the one in its commit phase (from the first one this run sees). */
  private synchronized void feed() {
    long head = injector.head();
    if (scheduledThrough == 0) {
      scheduledThrough = head - 1;
    }
    for (; scheduledThrough < head; scheduledThrough++) {
      injector.schedule(schedule.forTxid(scheduledThrough + 1).toArray(Fault[]::new));
    }
  }

  <K, C> IBackingMap<K, C> wrap(IBackingMap<K, C> backing) {
    IBackingMap<K, C> injected = injector.wrap(backing);
    // forwards the whole lifecycle (begin(epoch), end(), abort()) to the injector's map and the map under it
    return new ForwardingBackingMap<>(injected) {
      @Override
      public Map<K, C> multiGet(Collection<? extends K> keys) {
        feed();
        return super.multiGet(keys);
      }

      @Override
      public void multiPut(Map<K, C> cells) {
        feed();
        super.multiPut(cells);
      }

      @Override
      public String describe() {
        return backing.describe();
      }
    };
  }

  /** The checkpoint store, wrapped: the injector learns the batch in its commit phase from it. */
  CheckpointStore wrap(CheckpointStore store) {
    return injector.wrap(store);
  }
}
