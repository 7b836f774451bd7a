package io.epochal.testkit;

import io.epochal.api.Evolving;
import io.epochal.spout.OpaqueSpout;
import io.epochal.spout.TransactionalSpout;
import io.epochal.state.IBackingMap;
import io.epochal.state.MapState;
import io.epochal.state.StateFactory;
import io.epochal.state.StateKind;
import io.epochal.store.CheckpointStore;
import io.epochal.store.table.CommitHook;
import io.epochal.store.table.TableCheckpointStore;
import io.epochal.store.table.TableStore;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;

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
 * <p>The wrappers of each SPI are package-private classes ({@code FaultInjectingBackingMap},
 * {@code FaultInjectingStateFactory} and {@code FaultInjectingMapState}, {@code FaultInjectingCheckpointStore},
 * {@code LeaseFaultStore}, {@code FaultInjectingSpouts}); the injector holds the schedule and the state of the faults
 * they fire.
 *
 * <p>Thread-safe. One injector per run; share it across the restarts of that run.
 *
 * @since 0.1.0
 */
@Evolving
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

  /**
   * Adds faults to the schedule (for example-based tests that fail the next batch).
   *
   * @param faults the faults to add; each fires once, when its txid reaches its point
   */
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

  /** Takes the pending fault at {@code point} for {@code txid} out of the schedule, or returns null if none. */
  synchronized Fault take(FaultPoint point, long txid) {
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

  /** Takes the pending fault at {@code point} for the batch at the {@linkplain #head() head}, or null. */
  Fault take(FaultPoint point) {
    return take(point, head);
  }

  /** Records {@code fault} in the timeline and throws it: a {@link SimulatedCrash} or an {@link InjectedFailure}. */
  RuntimeException raise(Fault fault, long txid) {
    timeline.fault(fault, txid);
    if (fault.crash()) {
      throw new SimulatedCrash(fault);
    }
    throw new InjectedFailure(fault);
  }

  /** Moves the batch whose commit phase runs now (the checkpoint wrapper, after a load or a commit). */
  void head(long txid) {
    head = txid;
  }

  /** @return whether {@link #commitHook()} was called: the store under test fails inside its commits */
  boolean hookInstalled() {
    return hookInstalled;
  }

  // ------------------------------------------------------------------------------------------------ backing maps

  /**
   * Wraps a backing map so that {@link FaultPoint#BEFORE_STATE_WRITE} (at its first {@code multiGet} of a batch) and
   * {@link FaultPoint#INSIDE_MULTIPUT} fire, and every cell it writes is recorded in the timeline. The whole
   * lifecycle ({@code begin(epoch)}, {@code end()}, {@code abort()}) is forwarded, so layers under it (a
   * {@code CachedMap}, a table-backed map) still see every attempt begin, end and fail, with the engine's epoch.
   *
   * @param <K> the key type
   * @param <C> the cell type
   * @param backing the map to wrap
   * @return the fault-injecting map, delegating to {@code backing}
   */
  public <K, C> IBackingMap<K, C> wrap(IBackingMap<K, C> backing) {
    Objects.requireNonNull(backing, "backing");
    return new FaultInjectingBackingMap<>(this, backing);
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

  // ------------------------------------------------------------------------------------------------ map states

  /**
   * Wraps a factory of map states (a user's own {@link MapState}, or one whose backing map cannot be reached) so
   * that {@link FaultPoint#BEFORE_STATE_WRITE} fires at a state's first read or update of a batch and
   * {@link FaultPoint#INSIDE_MULTIPUT} applies the updates of a prefix of the keys, then fails; every value written
   * is recorded in the timeline. The wrapper keeps the factory's {@link StateKind} and the staging its states need
   * (so the epoch protocol still covers a table-backed factory).
   *
   * @param <K> the key type
   * @param <V> the value type
   * @param factory the factory to wrap
   * @return a factory whose states inject faults and delegate to {@code factory}'s states
   */
  @SuppressWarnings("unchecked")
  public <K, V> StateFactory<MapState<K, V>> wrapStates(StateFactory<? extends MapState<K, V>> factory) {
    Objects.requireNonNull(factory, "factory");
    return FaultInjectingStateFactory.of(this, (StateFactory<MapState<K, V>>) factory);
  }

  // ------------------------------------------------------------------------------------------------ checkpoints

  /**
   * Wraps a checkpoint store so that {@link FaultPoint#AFTER_STATE_WRITES}, {@link FaultPoint#INSIDE_CHECKPOINT_COMMIT}
   * and {@link FaultPoint#DURING_CHECKPOINT_COMMIT} fire, and so that the injector knows the batch in its commit
   * phase. Forwards the wrapped store's staging ({@code staging(pipeline, type)}).
   *
   * @param store the checkpoint store to wrap
   * @return the fault-injecting checkpoint store, delegating to {@code store}
   */
  public CheckpointStore wrap(CheckpointStore store) {
    Objects.requireNonNull(store, "store");
    return new FaultInjectingCheckpointStore(this, store);
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
   * @param store the table store to build the checkpoint store over
   * @return the wrapper, to give to the checkpoint store instead of {@code store}
   * @since 0.3.0
   */
  public TableStore withLeaseFaults(TableStore store) {
    Objects.requireNonNull(store, "store");
    LeaseFaultStore wrapped = new LeaseFaultStore(store, timeline);
    synchronized (this) {
      leaseStore = store.capabilities().fencing() ? wrapped : null;
    }
    return wrapped;
  }

  /** @return the stale commits the store accepted after their lease was taken over, one line each */
  public synchronized List<String> fencingViolations() {
    return List.copyOf(violations);
  }

  /** Takes the pending lease point of the head batch, or null if none or the kit sees no lease. */
  synchronized Fault takeLeasePoint() {
    if (leaseStore == null || leaseStore.lease == null) {
      return null; // the kit cannot see a lease here: lease points stay unfired
    }
    Fault f = take(FaultPoint.LEASE_TAKEN_BEFORE_COMMIT);
    return f != null ? f : take(FaultPoint.LEASE_TAKEN_INSIDE_COMMIT);
  }

  /**
   * Runs a stale worker's checkpoint commit under lease point {@code zombie} (its lease taken over before the commit
   * or inside it); the worker dies either way, and a commit that lands is recorded as a fencing violation.
   */
  void commitAsZombie(Fault zombie, Runnable commit, long txid) {
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

  /** @return true if {@code inside} was armed but the commit completed (it made at most prefix table writes) */
  boolean commitThroughHook(Fault inside, Runnable commit, long txid) {
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
   *
   * @return the hook; it does nothing unless an {@code INSIDE_CHECKPOINT_COMMIT} fault is armed
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
   *
   * @param <T> the record type
   * @param <M> the batch metadata type
   * @param spout the spout to wrap
   * @return the fault-injecting spout, delegating to {@code spout}
   */
  public <T, M> TransactionalSpout<T, M> wrap(TransactionalSpout<T, M> spout) {
    Objects.requireNonNull(spout, "spout");
    return FaultInjectingSpouts.transactional(this, spout);
  }

  /**
   * Wraps an opaque spout so that {@link FaultPoint#AFTER_EMIT} fires (by the emitted txid; the failed attempt's
   * position is discarded, so the replay re-cuts from the committed one) and emissions are recorded in the timeline.
   *
   * @param <T> the record type
   * @param <M> the batch metadata type
   * @param spout the spout to wrap
   * @return the fault-injecting spout, delegating to {@code spout}
   */
  public <T, M> OpaqueSpout<T, M> wrap(OpaqueSpout<T, M> spout) {
    Objects.requireNonNull(spout, "spout");
    return FaultInjectingSpouts.opaque(this, spout);
  }
}
