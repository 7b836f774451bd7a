package io.epochal.testkit;

import io.epochal.state.Epoch;
import io.epochal.spout.BatchAttempt;
import io.epochal.spout.Collector;
import io.epochal.spout.OpaqueSpout;
import io.epochal.spout.TransactionalSpout;
import io.epochal.spouts.ForwardingSpouts;
import io.epochal.state.ForwardingBackingMap;
import io.epochal.state.IBackingMap;
import io.epochal.state.MapState;
import io.epochal.state.StateContext;
import io.epochal.state.StateFactory;
import io.epochal.state.StateKind;
import io.epochal.state.ValueUpdater;
import io.epochal.store.Checkpoint;
import io.epochal.store.CheckpointStore;
import io.epochal.store.table.CommitHook;
import io.epochal.store.table.TableCheckpointStore;
import io.epochal.store.table.TableStore;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * Fires scheduled {@link Fault}s deterministically and records what the run did in a {@link ReplayTimeline}. Wrap the
 * pieces of a pipeline: its checkpoint store ({@link #wrap(CheckpointStore)}, required: it tells the injector which
 * batch is in its commit phase), its backing maps ({@link #wrap(IBackingMap)}, or {@link #layer()} for table-backed
 * states), its map-state factories ({@link #wrapStates(StateFactory)}), its spout ({@link #wrap(TransactionalSpout)},
 * {@link #wrap(OpaqueSpout)}), its table store's commit hook ({@link #commitHook()}) and, for the lease points, the
 * table store under its checkpoint store ({@link #withLeaseFaults(TableStore)}). Backing maps and map states record
 * what each read returned, and a backing map's writes are read back: a write the map does not hold shows as a
 * {@link TimelineEvent.Kind#LOST_WRITE} step. Each fault fires once: the
 * first time its batch reaches its point (see {@link FaultPoint}).
 *
 * <p>Thread-safe. One injector per run; share it across the restarts of that run.
 *
 * @since 0.1.0
 */
public final class FaultInjector {
  private final List<Fault> pending;
  private final List<Fault> fired = new ArrayList<>();
  private final ReplayTimeline timeline;
  private volatile long head = 1;
  private volatile boolean hookInstalled;
  /** The INSIDE_CHECKPOINT_COMMIT fault armed for the checkpoint commit running now, with its hook call count. */
  private Fault armedInside;
  private int hookCalls;
  private InjectedFailure insideFailure;
  private LeaseFaultStore leaseStore;
  private final List<String> violations = new ArrayList<>();

  /** @param schedule the faults to fire, in any order */
  public FaultInjector(Collection<Fault> schedule) {
    this(schedule, new ReplayTimeline());
  }

  /**
   * @param schedule the faults to fire, in any order
   * @param timeline where the wrappers record what they see
   */
  public FaultInjector(Collection<Fault> schedule, ReplayTimeline timeline) {
    this.pending = new ArrayList<>(Objects.requireNonNull(schedule, "schedule"));
    for (Fault f : pending) {
      Objects.requireNonNull(f, "fault");
    }
    this.timeline = Objects.requireNonNull(timeline, "timeline");
  }

  /** Adds faults to the schedule (for example-based tests that fail the next batch). */
  public synchronized void schedule(Fault... faults) {
    for (Fault f : faults) {
      pending.add(Objects.requireNonNull(f, "fault"));
    }
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

  /** @return the timeline the wrappers record into */
  public ReplayTimeline timeline() {
    return timeline;
  }

  private synchronized Fault take(FaultPoint point, long txid) {
    for (Iterator<Fault> it = pending.iterator(); it.hasNext();) {
      Fault f = it.next();
      if (f.point() == point && f.txid() == txid) {
        it.remove();
        fired.add(f);
        return f;
      }
    }
    return null;
  }

  private Fault take(FaultPoint point) {
    return take(point, head);
  }

  private RuntimeException raise(Fault fault, long txid) {
    timeline.fault(fault, txid);
    if (fault.crash()) {
      throw new SimulatedCrash(fault);
    }
    throw new InjectedFailure(fault);
  }

  // ------------------------------------------------------------------------------------------------ backing maps

  /**
   * Wraps a backing map so that {@link FaultPoint#BEFORE_STATE_WRITE} (at its first {@code multiGet} of a batch) and
   * {@link FaultPoint#INSIDE_MULTIPUT} fire, and every cell it writes is recorded in the timeline. The whole
   * lifecycle ({@code begin(epoch)}, {@code end()}, {@code abort()}) is forwarded, so layers under it (a
   * {@code CachedMap}, a table-backed map) still see every attempt begin, end and fail, with the engine's epoch.
   */
  public <K, C> IBackingMap<K, C> wrap(IBackingMap<K, C> backing) {
    Objects.requireNonNull(backing, "backing");
    return new ForwardingBackingMap<>(backing) {
      @Override
      public Map<K, C> multiGet(Collection<? extends K> keys) {
        Fault f = take(FaultPoint.BEFORE_STATE_WRITE);
        if (f != null) {
          throw raise(f, f.txid());
        }
        long txid = head;
        Map<K, C> result = backing.multiGet(keys);
        timeline.read(txid, keys, result);
        return result;
      }

      @Override
      public void multiPut(Map<K, C> cells) {
        long txid = head;
        Fault f = cells.size() > 1 ? take(FaultPoint.INSIDE_MULTIPUT) : null;
        Map<K, C> written = f == null ? cells : prefix(cells, Math.min(f.prefix(), cells.size() - 1));
        backing.multiPut(written);
        // read back what the map holds now (straight from it: no fault fires, nothing is recorded as a read)
        timeline.wrote(txid, written, backing.multiGet(written.keySet()));
        if (f != null) {
          throw raise(f, txid);
        }
      }

      @Override
      public String describe() {
        return backing.describe();
      }

      @Override
      public String toString() {
        return "FaultInjecting(" + backing + ")";
      }
    };
  }

  /**
   * @return a {@link io.epochal.store.table.BackingMapLayer} that wraps the table-backed maps of
   *     {@code TableStates.builder(..).layer(..)} with {@link #wrap(IBackingMap)}
   */
  public io.epochal.store.table.BackingMapLayer layer() {
    return new io.epochal.store.table.BackingMapLayer() {
      @Override
      public <K, C> IBackingMap<K, C> wrap(IBackingMap<K, C> inner) {
        return FaultInjector.this.wrap(inner);
      }
    };
  }

  private static <K, C> Map<K, C> prefix(Map<K, C> cells, int written) {
    Map<K, C> prefix = new LinkedHashMap<>();
    for (Map.Entry<K, C> e : cells.entrySet()) {
      if (prefix.size() == written) {
        break;
      }
      prefix.put(e.getKey(), e.getValue());
    }
    return prefix;
  }

  // ------------------------------------------------------------------------------------------------ map states

  /**
   * Wraps a factory of map states (a user's own {@link MapState}, or one whose backing map cannot be reached) so
   * that {@link FaultPoint#BEFORE_STATE_WRITE} fires at a state's first read or update of a batch and
   * {@link FaultPoint#INSIDE_MULTIPUT} applies the updates of a prefix of the keys, then fails; every value written
   * is recorded in the timeline. The wrapper keeps the factory's {@link StateKind} and the staging its states need
   * (so the epoch protocol still covers a table-backed factory).
   */
  @SuppressWarnings("unchecked")
  public <K, V> StateFactory<MapState<K, V>> wrapStates(StateFactory<? extends MapState<K, V>> factory) {
    Objects.requireNonNull(factory, "factory");
    return new StateWrapper<>(this, (StateFactory<MapState<K, V>>) factory);
  }

  private static final class StateWrapper<K, V> implements StateFactory<MapState<K, V>> {
    final FaultInjector injector;
    final StateFactory<MapState<K, V>> factory;

    StateWrapper(FaultInjector injector, StateFactory<MapState<K, V>> factory) {
      this.injector = injector;
      this.factory = factory;
    }

    @Override
    public MapState<K, V> makeState(StateContext context) {
      return injector.new FaultInjectingMapState<>(factory.makeState(context));
    }

    @Override
    public StateKind kind() {
      return factory.kind();
    }

    /** Delegated: the wrapper stages nothing itself. */
    @Override
    public java.util.Optional<Class<? extends io.epochal.state.Staging>> staging() {
      return factory.staging();
    }

    @Override
    public boolean takesEveryBatch() {
      return factory.takesEveryBatch();
    }

    @Override
    public String describe() {
      return factory.describe();
    }
  }

  private final class FaultInjectingMapState<K, V> implements MapState<K, V> {
    private final MapState<K, V> state;
    /** The txid of the epoch this partition was begun with, for the timeline and the faults. */
    private long txid;

    FaultInjectingMapState(MapState<K, V> state) {
      this.state = Objects.requireNonNull(state, "state factory returned null");
    }

    private void beforeWrite() {
      Fault f = take(FaultPoint.BEFORE_STATE_WRITE);
      if (f != null) {
        throw raise(f, f.txid());
      }
    }

    @Override
    public void begin(Epoch epoch) {
      txid = epoch.txid();
      state.begin(epoch);
    }

    @Override
    public void end() {
      state.end();
    }

    @Override
    public void abort() {
      state.abort();
    }

    @Override
    public Map<K, V> multiGet(Collection<? extends K> keys) {
      beforeWrite();
      Map<K, V> result = state.multiGet(keys);
      timeline.read(txid, keys, result);
      return result;
    }

    @Override
    public Map<K, V> multiUpdate(Map<K, ? extends ValueUpdater<V>> updaters) {
      beforeWrite();
      Fault f = updaters.size() > 1 ? take(FaultPoint.INSIDE_MULTIPUT) : null;
      if (f == null) {
        Map<K, V> result = state.multiUpdate(updaters);
        timeline.wrote(txid, result);
        return result;
      }
      Map<K, ValueUpdater<V>> prefix = new LinkedHashMap<>(prefix(updaters, Math.min(f.prefix(),
          updaters.size() - 1)));
      timeline.wrote(txid, state.multiUpdate(prefix));
      throw raise(f, txid);
    }

    @Override
    public void multiPut(Map<K, V> values) {
      beforeWrite();
      Fault f = values.size() > 1 ? take(FaultPoint.INSIDE_MULTIPUT) : null;
      if (f == null) {
        state.multiPut(values);
        timeline.wrote(txid, values);
        return;
      }
      Map<K, V> prefix = prefix(values, Math.min(f.prefix(), values.size() - 1));
      state.multiPut(prefix);
      timeline.wrote(txid, prefix);
      throw raise(f, txid);
    }

    @Override
    public String toString() {
      return "FaultInjecting(" + state + ")";
    }
  }

  // ------------------------------------------------------------------------------------------------ checkpoints

  /**
   * Wraps a checkpoint store so that {@link FaultPoint#AFTER_STATE_WRITES}, {@link FaultPoint#INSIDE_CHECKPOINT_COMMIT}
   * and {@link FaultPoint#DURING_CHECKPOINT_COMMIT} fire, and so that the injector knows the batch in its commit
   * phase. Forwards the wrapped store's staging ({@code staging(pipeline, type)}).
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
        commit(pipeline, txid, metadata, java.util.List.of());
      }

      @Override
      public boolean keepsOutbox() {
        return store.keepsOutbox();
      }

      @Override
      public void commit(String pipeline, long txid, byte[] metadata,
          java.util.List<io.epochal.store.OutboxEntry> outbox) {
        Fault before = take(FaultPoint.AFTER_STATE_WRITES);
        if (before != null) {
          throw raise(before, txid);
        }
        Fault zombie = takeLeasePoint();
        if (zombie != null) {
          commitAsZombie(zombie, () -> store.commit(pipeline, txid, metadata, outbox), txid);
        }
        Fault inside = take(FaultPoint.INSIDE_CHECKPOINT_COMMIT);
        if (inside != null && !hookInstalled) {
          throw raise(inside, txid); // the store cannot fail midway: fail before it writes anything
        }
        boolean landedUnderInside = commitThroughHook(inside, () -> store.commit(pipeline, txid, metadata, outbox), txid);
        head = txid + 1;
        if (landedUnderInside) {
          // The commit made at most prefix table writes, so all of them landed: the call fails after it.
          throw raise(inside, txid);
        }
        Fault during = take(FaultPoint.DURING_CHECKPOINT_COMMIT, txid); // head already moved on to txid + 1
        if (during != null) {
          throw raise(during, txid);
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
    };
  }

  // ------------------------------------------------------------------------------------------------ leases

  /**
   * Wraps the table store a {@link TableCheckpointStore} is built over, so that the lease points
   * ({@link FaultPoint#LEASE_TAKEN_BEFORE_COMMIT}, {@link FaultPoint#LEASE_TAKEN_INSIDE_COMMIT}) can fire: the wrapper
   * remembers the lease the checkpoint store takes, and a lease point takes it over for a new owner through
   * {@code store} itself (before the stale worker's checkpoint commit, or between its transaction's
   * {@code begin(lease)} and {@code commit()}). The store must then refuse the stale commit; if it lands, the
   * violation is recorded ({@link #fencingViolations()}) and the stale worker dies anyway. Lease points fire only if
   * the store declares {@link io.epochal.store.table.StoreCapabilities#fencing() fencing}. Wrap the store of every
   * incarnation (the last one wrapped is the one whose lease is taken).
   *
   * @since 0.3.0
   */
  public TableStore withLeaseFaults(TableStore store) {
    Objects.requireNonNull(store, "store");
    LeaseFaultStore wrapped = new LeaseFaultStore(store);
    synchronized (this) {
      leaseStore = store.capabilities().fencing() ? wrapped : null;
    }
    return wrapped;
  }

  /** @return the stale commits the store accepted after their lease was taken over, one line each */
  public synchronized List<String> fencingViolations() {
    return List.copyOf(violations);
  }

  private synchronized Fault takeLeasePoint() {
    if (leaseStore == null || leaseStore.lease == null) {
      return null; // the kit cannot see a lease here: lease points stay unfired
    }
    Fault f = take(FaultPoint.LEASE_TAKEN_BEFORE_COMMIT);
    return f != null ? f : take(FaultPoint.LEASE_TAKEN_INSIDE_COMMIT);
  }

  private void commitAsZombie(Fault zombie, Runnable commit, long txid) {
    timeline.fault(zombie, txid);
    LeaseFaultStore lf;
    synchronized (this) {
      lf = leaseStore;
    }
    if (zombie.point() == FaultPoint.LEASE_TAKEN_BEFORE_COMMIT) {
      lf.takeOver(txid, "before the commit");
    } else {
      lf.armed = txid;
    }
    try {
      commit.run();
    } catch (RuntimeException refused) {
      timeline.fenced(txid, "the stale worker's commit was refused (" + refused + "); it dies");
      throw new SimulatedCrash(zombie);
    } finally {
      lf.armed = 0;
    }
    String violation = "the store accepted the commit of txid " + txid + " by " + lf.staleOwner + " after "
        + lf.newOwner + " took " + lf.leaseName + " over " + lf.when + " (" + zombie.point() + ")";
    synchronized (this) {
      violations.add(violation);
    }
    timeline.fencingViolated(txid, violation);
    throw new SimulatedCrash(zombie);
  }

  /** The table store under a checkpoint store, seen by the lease points. */
  private final class LeaseFaultStore extends io.epochal.testkit.store.ForwardingTableStore {
    volatile io.epochal.store.table.Lease lease;
    volatile long armed;
    volatile String leaseName = "?";
    volatile String staleOwner = "?";
    volatile String newOwner = "?";
    volatile String when = "";

    LeaseFaultStore(TableStore delegate) {
      super(delegate);
    }

    @Override
    public io.epochal.store.table.Lease acquireLease(String name, String owner) {
      io.epochal.store.table.Lease l = super.acquireLease(name, owner);
      lease = l;
      return l;
    }

    @Override
    public io.epochal.store.table.StoreTransaction begin(io.epochal.store.table.Lease lease) {
      return new io.epochal.testkit.store.ForwardingStoreTransaction(super.begin(lease)) {
        @Override
        public void commit() {
          long txid = armed;
          if (txid != 0) {
            armed = 0;
            takeOver(txid, "between begin and commit");
          }
          super.commit();
        }
      };
    }

    void takeOver(long txid, String when) {
      io.epochal.store.table.Lease stale = lease;
      String successor = stale.owner() + "-successor";
      delegate().acquireLease(stale.name(), successor);
      this.leaseName = "lease '" + stale.name() + "'";
      this.staleOwner = stale.owner();
      this.newOwner = successor;
      this.when = when;
      timeline.leaseTaken(txid, successor + " took lease '" + stale.name() + "' over from " + stale.owner() + " "
          + when);
    }
  }

  /** @return true if {@code inside} was armed but the commit completed (it made at most prefix table writes) */
  private boolean commitThroughHook(Fault inside, Runnable commit, long txid) {
    if (inside == null) {
      commit.run();
      return false;
    }
    InjectedFailure failure;
    synchronized (this) {
      armedInside = inside;
      hookCalls = 0;
      insideFailure = null;
    }
    try {
      commit.run();
    } catch (RuntimeException e) {
      synchronized (this) {
        failure = insideFailure;
      }
      if (failure != null && causedBy(e, failure)) {
        timeline.fault(inside, txid);
        if (inside.crash()) {
          throw new SimulatedCrash(inside);
        }
      }
      throw e;
    } finally {
      synchronized (this) {
        armedInside = null;
      }
    }
    return true;
  }

  private static boolean causedBy(Throwable t, Throwable cause) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c == cause) {
        return true;
      }
    }
    return false;
  }

  /**
   * A hook to install in the table store under test ({@code TableStores.inMemoryBuilder().commitHook(..)}, a
   * store's builder, or {@code TableStoreContract.createStore(hook)}): it fires
   * {@link FaultPoint#INSIDE_CHECKPOINT_COMMIT} inside the store's commit of a checkpoint, after {@link Fault#prefix()}
   * table writes. It always throws a retryable {@link InjectedFailure} into the store (whose atomicity decides what
   * lands); for a crash fault the checkpoint wrapper turns the failed commit into a {@link SimulatedCrash}. Calling
   * this method tells the injector that the store fails inside its commits.
   */
  public CommitHook commitHook() {
    hookInstalled = true;
    return tablePath -> {
      InjectedFailure failure = null;
      synchronized (this) {
        if (armedInside != null && insideFailure == null && hookCalls++ == armedInside.prefix()) {
          insideFailure = new InjectedFailure(armedInside);
          failure = insideFailure;
        }
      }
      if (failure != null) {
        throw failure;
      }
    };
  }

  // ------------------------------------------------------------------------------------------------ spouts

  /**
   * Wraps a transactional spout so that {@link FaultPoint#AFTER_EMIT} fires (by the emitted txid) and emissions are
   * recorded in the timeline. Coordinator calls are delegated unchanged.
   */
  public <T, M> TransactionalSpout<T, M> wrap(TransactionalSpout<T, M> spout) {
    Objects.requireNonNull(spout, "spout");
    return new ForwardingSpouts.Transactional<>() {
      @Override
      public TransactionalSpout<T, M> wrapped() {
        return spout;
      }

      @Override
      public <U, R> R aroundEmit(BatchAttempt attempt, Collector<U> out, Function<Collector<U>, R> emission) {
        return emitThrough(attempt, out, emission);
      }

      @Override
      public String toString() {
        return "FaultInjecting(" + spout + ")";
      }
    };
  }

  /**
   * Wraps an opaque spout so that {@link FaultPoint#AFTER_EMIT} fires (by the emitted txid; the failed attempt's
   * position is discarded, so the replay re-cuts from the committed one) and emissions are recorded in the timeline.
   */
  public <T, M> OpaqueSpout<T, M> wrap(OpaqueSpout<T, M> spout) {
    Objects.requireNonNull(spout, "spout");
    return new ForwardingSpouts.Opaque<>() {
      @Override
      public OpaqueSpout<T, M> wrapped() {
        return spout;
      }

      @Override
      public <U, R> R aroundEmit(BatchAttempt attempt, Collector<U> out, Function<Collector<U>, R> emission) {
        return emitThrough(attempt, out, emission);
      }

      @Override
      public String toString() {
        return "FaultInjecting(" + spout + ")";
      }
    };
  }

  private <T, R> R emitThrough(BatchAttempt attempt, Collector<T> out, Function<Collector<T>, R> emission) {
    List<T> records = new ArrayList<>();
    R result = emission.apply(r -> {
      out.emit(r);
      records.add(r);
    });
    timeline.emitted(attempt, records);
    Fault f = take(FaultPoint.AFTER_EMIT, attempt.txid());
    if (f != null) {
      throw raise(f, attempt.txid());
    }
    return result;
  }
}
