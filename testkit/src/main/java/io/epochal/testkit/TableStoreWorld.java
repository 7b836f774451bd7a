package io.epochal.testkit;

import static io.epochal.testkit.ReplayResources.deleteRecursively;
import static io.epochal.testkit.ReplayResources.newRunDirectory;

import io.epochal.state.MapState;
import io.epochal.state.StateFactory;
import io.epochal.state.StateKind;
import io.epochal.state.opaque.OpaqueTableLayout;
import io.epochal.state.transactional.TransactionalTableLayout;
import io.epochal.store.CheckpointStore;
import io.epochal.store.InMemoryCheckpointStore;
import io.epochal.store.table.CommitHook;
import io.epochal.store.table.TableCheckpointStore;
import io.epochal.store.table.TableStates;
import io.epochal.store.table.TableStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * The world of one run of a table-store target ({@link ReplayCheck#forTableStore} and
 * {@link ReplayCheck#forInMemoryTableStore}): a durable store is reopened in the run's directory on every start and
 * every simulated restart (the dead incarnation's store dropped, or closed first when the target closes dead stores)
 * and once more to read the final state; an in-memory store is built once and kept. Each incarnation gets a
 * {@link TableCheckpointStore} over the store with the lease faults added, and states of the table-backed layout of
 * the target's rule with the fault layer. One per run, used from the run's thread: not thread-safe.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
final class TableStoreWorld<K, V> implements ReplayWorld<K, V> {
  private final FaultInjector faults;
  private final ReplayCheck.StoreOpener open;
  private final Function<? super CommitHook, ? extends TableStore> newStore;
  private final String tablePrefix;
  private final StateKind rule;
  private final Function<? super TableCheckpointStore, TableStates.Builder<K, V>> states;
  /** Set by {@link ReplayCheck.MapTarget#closingTheDeadStore()}, possibly after the target was made. */
  private final boolean[] closeDead;
  private final boolean durable;
  private final Path dir;
  private final List<TableStore> abandoned = new ArrayList<>();
  private TableStore store;
  private CheckpointStore readerCheckpoints = new InMemoryCheckpointStore();

  /**
   * @param open opens a durable store, or null for an in-memory one
   * @param newStore builds the in-memory store when {@code open} is null
   */
  private TableStoreWorld(FaultInjector faults, ReplayCheck.StoreOpener open,
      Function<? super CommitHook, ? extends TableStore> newStore, String tablePrefix, StateKind rule,
      Function<? super TableCheckpointStore, TableStates.Builder<K, V>> states, boolean[] closeDead) {
    this.faults = faults;
    this.open = open;
    this.newStore = newStore;
    this.tablePrefix = tablePrefix;
    this.rule = rule;
    this.states = states;
    this.closeDead = closeDead;
    this.durable = open != null;
    this.dir = durable ? newRunDirectory() : null;
  }

  /**
   * The worlds of a table-store target: a durable store if {@code open} is not null, else an in-memory one from
   * {@code newStore}.
   *
   * @throws IllegalArgumentException if {@code rule} is {@code READ_ONLY}
   * @throws NullPointerException if {@code tablePrefix}, {@code rule} or {@code states} is null
   */
  static <K, V> ReplayWorld.Factory<K, V> factory(ReplayCheck.StoreOpener open,
      Function<? super CommitHook, ? extends TableStore> newStore, String tablePrefix, StateKind rule,
      Function<? super TableCheckpointStore, TableStates.Builder<K, V>> states, boolean[] closeDead) {
    Objects.requireNonNull(tablePrefix, "tablePrefix");
    Objects.requireNonNull(rule, "rule");
    Objects.requireNonNull(states, "states");
    if (rule == StateKind.READ_ONLY) {
      throw new IllegalArgumentException("a table-store check needs a written state, not READ_ONLY");
    }
    return (faults, pipeline) -> new TableStoreWorld<>(faults, open, newStore, tablePrefix, rule, states, closeDead);
  }

  private TableStore open(CommitHook hook) {
    if (!durable) {
      if (store == null) {
        store = Objects.requireNonNull(newStore.apply(hook), "newStore returned null");
      }
      return store;
    }
    if (store != null) {
      TableStore dead = store;
      store = null;
      if (closeDead[0]) {
        dead.close(); // the store's directory lock must be released before it can be reopened
      } else {
        abandoned.add(dead); // dropped like a killed process's: close() never runs before the reopen
      }
    }
    try {
      store = Objects.requireNonNull(open.open(dir, hook), "the store opener returned null");
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException("the store opener failed to open " + dir, e);
    }
    return store;
  }

  @Override
  public StateFactory<? extends MapState<K, V>> states(ReplayContext context) {
    TableStore leased = faults.withLeaseFaults(open(faults.commitHook()));
    TableCheckpointStore checkpoints = TableCheckpointStore.builder(leased).tablePrefix(tablePrefix)
        .owner("worker-" + context.incarnation()).build();
    context.useCheckpointStore(checkpoints);
    return layout(rule, states.apply(checkpoints).layer(context.layer()));
  }

  @Override
  public CheckpointStore readerCheckpoints() {
    return readerCheckpoints;
  }

  @Override
  public StateFactory<? extends MapState<K, V>> reader() {
    if (durable && store != null) {
      TableStore last = store;
      store = null;
      last.close(); // the run is over: a clean shutdown, then the final state is read through a fresh store
    }
    TableCheckpointStore checkpoints = TableCheckpointStore.builder(open(CommitHook.NONE))
        .tablePrefix(tablePrefix).owner("replay-check-reader").build();
    readerCheckpoints = checkpoints;
    return layout(rule, states.apply(checkpoints));
  }

  @Override
  public String restartNote() {
    return durable ? "reopens the store from its durable part (the old store object is dropped)"
        : "rebuilds the pipeline over the same store object (an in-memory store: it has no durable part)";
  }

  @Override
  public void close() {
    try {
      if (store != null) {
        store.close();
      }
      for (TableStore dead : abandoned) {
        dead.close();
      }
    } finally {
      if (dir != null) {
        deleteRecursively(dir);
      }
    }
  }

  private static <K, V> StateFactory<MapState<K, V>> layout(StateKind rule, TableStates.Builder<K, V> builder) {
    return switch (rule) {
      case TRANSACTIONAL -> TransactionalTableLayout.factory(builder);
      case OPAQUE -> OpaqueTableLayout.factory(builder);
      case NON_TRANSACTIONAL -> builder.nonTransactional();
      case READ_ONLY -> throw new IllegalArgumentException("READ_ONLY");
    };
  }
}
