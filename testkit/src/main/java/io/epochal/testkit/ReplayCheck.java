package io.epochal.testkit;

import io.epochal.api.Evolving;
import io.epochal.codec.Codec;
import io.epochal.pipeline.CombinerAggregator;
import io.epochal.pipeline.Guarantee;
import io.epochal.pipeline.Stream;
import io.epochal.spout.SpoutKind;
import io.epochal.state.IBackingMap;
import io.epochal.state.MapState;
import io.epochal.state.StateFactory;
import io.epochal.state.StateKind;
import io.epochal.store.table.CommitHook;
import io.epochal.store.table.KeyCodec;
import io.epochal.store.table.TableCheckpointStore;
import io.epochal.store.table.TableStates;
import io.epochal.store.table.TableStore;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Supplier;
/**
 * Proves that a user's pipeline, {@link IBackingMap}, map state or {@link TableStore} is exactly-once: runs it under a
 * {@link ReplaySchedule} (input, batch cuts, partitions, batches in flight, failures and process restarts), compares
 * the final state with an {@link Oracle}, and fails with a readable report (the schedule as a numbered timeline, and
 * expected vs actual of the differing keys). Deterministic: retries wait in virtual time through the pipeline's
 * {@link io.epochal.pipeline.Sleeper}, nothing sleeps; with one thread a schedule always replays the same way.
 *
 * <pre>{@code
 * ReplayCheck<String, String, Long> check = ReplayCheck
 *     .forBackingMap(MyBackingMap::new, TransactionalMap::factory)   // the user's store under a txid rule
 *     .aggregate(word -> word, Aggregators.count())                  // what the pipeline does with it
 *     .build();                                                      // oracle: the aggregation of the input
 *
 * @Property void myStoreIsExactlyOnce(@ForAll("schedules") ReplaySchedule<String> schedule) {
 *   check.check(schedule);                                           // jqwik shrinks a failing schedule
 * }
 *
 * @Provide Arbitrary<ReplaySchedule<String>> schedules() {
 *   return ReplayArbitraries.schedules(ReplayArbitraries.words(30));
 * }
 * }</pre>
 *
 * <p>Targets: {@link #forBackingMap} (a backing map under a txid rule), {@link #forMapState} (a map-state factory),
 * {@link #forTableStore} (a table store under the table-backed layouts, on the protocol its capabilities choose), each
 * running the pipeline {@code source.groupBy(key).persistentAggregate(aggregator)}; and {@link #forPipeline} (any
 * topology over the kit's source, with the user's state reader).
 *
 * <p>Each run gets fresh stores from the target's supplier. {@link #forTableStore(StoreOpener, KeyCodec, Codec,
 * StateKind)} reopens the store from its durable part on every simulated restart and for the final read; the
 * suppliers of the other targets (and {@link #forInMemoryTableStore}) are called once per run and their objects
 * survive the run's "crashes" (a crash there rebuilds the pipeline only). Table-store targets give every run its own
 * pipeline name, so an opener that reopens one location (a database) works too.
 *
 * <p>Thread-safe: {@link #run} and {@link #check} may be called concurrently if the target's suppliers allow it.
 *
 * @param <T> the record type of the input
 * @param <K> the key type of the compared state
 * @param <V> the value type of the compared state
 * @since 0.1.0
 */
@Evolving
public final class ReplayCheck<T, K, V> {
  /** The name of the state the map targets declare ({@code persistentAggregate(STATE_NAME, ...)}). */
  public static final String STATE_NAME = "state";

  /** Runs the schedules: the target, the options and the oracle of this check. */
  private final ReplayRunner<T, K, V> runner;

  private ReplayCheck(Builder<T, K, V> b) {
    this.runner = ReplayRunner.withDefaults(b.target, b.name, b.uniqueNames, b.tableStore, b.spoutKind, b.guarantee,
        b.oracle != null ? b.oracle : b.defaultOracle != null ? b.defaultOracle : Oracle.failureFree(),
        b.maxAttempts, b.maxRestarts);
  }

  // ================================================================================================ entry points

  /**
   * Checks a backing map under a txid rule: {@code rule} makes the map-state factory over the (fault-injecting)
   * backing map, e.g. {@code TransactionalMap::factory} or {@code OpaqueMap::factory}. Every read and every cell the
   * map writes shows in the timeline, with the read-back of each write; the final state is read through {@code rule}
   * over the unwrapped map. The map has no durable part here: the same object survives the run's simulated crashes
   * (only the pipeline is rebuilt); see {@link #forDurableBackingMap} for a map that persists.
   *
   * @param <K> the key type
   * @param <C> the cell type the rule stores in the map (e.g. {@code TransactionalValue<V>})
   * @param <V> the value type of the map state
   * @param newStore a new, empty store per call (one per run; a store that is {@link AutoCloseable} is closed after
   *     the run)
   * @param rule makes the map-state factory of the txid rule over a backing map
   * @return the target, to give the aggregation with {@link MapTarget#aggregate}
   * @throws NullPointerException if an argument is null
   */
  public static <K, C, V> MapTarget<K, V> forBackingMap(Supplier<? extends IBackingMap<K, C>> newStore,
      Function<? super IBackingMap<K, C>, ? extends StateFactory<? extends MapState<K, V>>> rule) {
    return new MapTarget<>(MapWorlds.backingMap(newStore, rule));
  }

  /**
   * Opens a backing map from its durable part, for {@link #forDurableBackingMap}.
   *
   * @param <K> the key type
   * @param <C> the cell type
   * @since 0.3.0
   */
  @FunctionalInterface
  public interface BackingMapOpener<K, C> {
    /**
     * Opens (or reopens) the map.
     *
     * @param directory the run's own new directory, the same for every incarnation of the run and deleted after it
     * @return the map over what was made durable in {@code directory} (empty on the run's first start)
     * @throws Exception if the map cannot be opened; the run fails with it
     */
    IBackingMap<K, C> open(Path directory) throws Exception;
  }

  /**
   * Checks a backing map that has a durable part: like {@link #forBackingMap}, but the kit opens the map in the run's
   * directory on every start and every simulated restart (the dead incarnation's map object is dropped without
   * {@code close()}, and closed after the run if it is {@link AutoCloseable}), and reads the final state through a
   * freshly opened map (after closing the last one). So what the map keeps only in memory is lost at a crash.
   *
   * @param <K> the key type
   * @param <C> the cell type the rule stores in the map
   * @param <V> the value type of the map state
   * @param open opens the map in the run's directory; must be able to open it while a dropped instance is open
   * @param rule makes the map-state factory of the txid rule over a backing map
   * @return the target, to give the aggregation with {@link MapTarget#aggregate}
   * @throws NullPointerException if an argument is null
   * @since 0.3.0
   */
  public static <K, C, V> MapTarget<K, V> forDurableBackingMap(BackingMapOpener<K, C> open,
      Function<? super IBackingMap<K, C>, ? extends StateFactory<? extends MapState<K, V>>> rule) {
    return new MapTarget<>(MapWorlds.durableBackingMap(open, rule));
  }

  /**
   * Checks a map-state factory (a user's own {@link MapState}): its states are wrapped with
   * {@link FaultInjector#wrapStates}, so a fault inside its writes applies the updates of a prefix of the keys, and
   * its written values show in the timeline. The final state is read through a fresh state of the same factory.
   *
   * @param <K> the key type
   * @param <V> the value type
   * @param newFactory a factory over new, empty storage per call (one per run)
   * @return the target, to give the aggregation with {@link MapTarget#aggregate}
   * @throws NullPointerException if {@code newFactory} is null
   */
  public static <K, V> MapTarget<K, V> forMapState(
      Supplier<? extends StateFactory<? extends MapState<K, V>>> newFactory) {
    return new MapTarget<>(MapWorlds.mapState(newFactory));
  }

  /**
   * Opens the table store under test from its durable part: called on the first start of every run, again on every
   * simulated restart (the previous incarnation's store object is dropped without {@code close()}, like a killed
   * process's, and closed only after the run; see {@link MapTarget#closingTheDeadStore()} for stores that lock their
   * directory), and once more, after a clean {@code close()} of the last one, to read the final state. So anything
   * the store keeps only in memory (row caches, write buffers) is lost at a crash, as it would be in production. The
   * opener must be able to open the location while a dropped instance is still open.
   *
   * @since 0.3.0
   */
  @FunctionalInterface
  public interface StoreOpener {
    /**
     * Opens (or reopens) the store.
     *
     * @param directory the run's own new directory, the same for every incarnation of the run and deleted after it
     *     (ignore it for a store whose durable part is elsewhere, such as a database: every run has its own pipeline
     *     name, hence its own tables and checkpoint row)
     * @param hook the fault-injection hook the store must call in its commits, once per table write
     * @return the store over what was made durable (empty on the run's first start)
     * @throws Exception if the store cannot be opened; the run fails with it
     */
    TableStore open(Path directory, CommitHook hook) throws Exception;
  }

  /**
   * Checks a table store that has a durable part, under the table-backed map layout of {@code rule}
   * ({@code TRANSACTIONAL}: {@code TransactionalTableLayout}, {@code OPAQUE}: {@code OpaqueTableLayout},
   * {@code NON_TRANSACTIONAL}: plain values), with no table prefix. See {@link #forTableStore(StoreOpener, String,
   * StateKind, Function)}.
   *
   * @param <K> the key type
   * @param <V> the value type
   * @param open opens the store in the run's directory with the given commit hook
   * @param keys maps the keys to the state table's key columns
   * @param values encodes the values in the state table
   * @param rule the txid rule: {@code TRANSACTIONAL}, {@code OPAQUE} or {@code NON_TRANSACTIONAL}
   * @return the target, to give the aggregation with {@link MapTarget#aggregate}
   * @throws IllegalArgumentException if {@code rule} is {@code READ_ONLY}
   * @throws NullPointerException if an argument is null
   * @since 0.3.0
   */
  public static <K, V> MapTarget<K, V> forTableStore(StoreOpener open, KeyCodec<K> keys, Codec<V> values,
      StateKind rule) {
    Objects.requireNonNull(keys, "keys");
    Objects.requireNonNull(values, "values");
    return forTableStore(open, "", rule, checkpoints -> TableStates.builder(keys, values));
  }

  /**
   * Checks a table store that has a durable part: the kit {@linkplain StoreOpener opens it} in the run's directory
   * on every start and every simulated restart (a crash drops the store object and reopens it from what it made
   * durable), and reads the final state through a freshly opened store. Each incarnation builds a new
   * {@link TableCheckpointStore} over it (owner {@code worker-<incarnation>}, taking the pipeline's lease over like
   * a restarted process), on the protocol the store's capabilities choose (the epoch protocol on an atomic
   * multi-table commit), and states from {@code states} with the fault layer added.
   * {@link FaultPoint#INSIDE_CHECKPOINT_COMMIT} fires inside the store's commits through the hook the store is
   * opened with; the lease points ({@link FaultPoint#LEASE_TAKEN_BEFORE_COMMIT},
   * {@link FaultPoint#LEASE_TAKEN_INSIDE_COMMIT}) take the pipeline's lease over for a new owner when the store
   * declares fencing, and fail the check if the stale worker's commit lands. Unless {@link Builder#spout} is set,
   * every schedule runs under each kind of the kit's spout the pipeline builder accepts as exactly-once over this
   * store (transactional always; opaque too on an atomic multi-table commit), so a capability the store declares
   * is always exercised.
   *
   * @param open opens the store in the run's directory with the given commit hook
   * @param tablePrefix the checkpoint store's table prefix ({@code ""} for none)
   * @param rule the txid rule: {@code TRANSACTIONAL}, {@code OPAQUE} or {@code NON_TRANSACTIONAL}
   * @param states the state builder over a checkpoint store (key codec, value codec, empty values, ...); must not
   *     set a layer
   * @param <K> the key type
   * @param <V> the value type
   * @return the target, to give the aggregation with {@link MapTarget#aggregate}
   * @throws IllegalArgumentException if {@code rule} is {@code READ_ONLY}
   * @throws NullPointerException if an argument is null
   * @since 0.3.0
   */
  public static <K, V> MapTarget<K, V> forTableStore(StoreOpener open, String tablePrefix, StateKind rule,
      Function<? super TableCheckpointStore, TableStates.Builder<K, V>> states) {
    Objects.requireNonNull(open, "open");
    return tableTarget(open, null, tablePrefix, rule, states);
  }

  /**
   * Checks a table store that has <b>no durable part</b> (it lives in memory only): the same store object is kept
   * across the simulated restarts of a run, so a "crash" here means the object survives and only the pipeline is
   * rebuilt; nothing the store keeps in memory can be lost by it. Use {@link #forTableStore(StoreOpener, KeyCodec,
   * Codec, StateKind)} for a store that persists, so restarts reopen it. Otherwise as there.
   *
   * @param <K> the key type
   * @param <V> the value type
   * @param newStore builds a new, empty store with the given commit hook, once per run
   * @param keys maps the keys to the state table's key columns
   * @param values encodes the values in the state table
   * @param rule the txid rule: {@code TRANSACTIONAL}, {@code OPAQUE} or {@code NON_TRANSACTIONAL}
   * @return the target, to give the aggregation with {@link MapTarget#aggregate}
   * @throws IllegalArgumentException if {@code rule} is {@code READ_ONLY}
   * @throws NullPointerException if an argument is null
   * @since 0.3.0
   */
  public static <K, V> MapTarget<K, V> forInMemoryTableStore(
      Function<? super CommitHook, ? extends TableStore> newStore, KeyCodec<K> keys, Codec<V> values,
      StateKind rule) {
    Objects.requireNonNull(keys, "keys");
    Objects.requireNonNull(values, "values");
    return forInMemoryTableStore(newStore, "", rule, checkpoints -> TableStates.builder(keys, values));
  }

  /**
   * Like {@link #forInMemoryTableStore(Function, KeyCodec, Codec, StateKind)}, with a table prefix and a state
   * builder as for {@link #forTableStore(StoreOpener, String, StateKind, Function)}.
   *
   * @param <K> the key type
   * @param <V> the value type
   * @param newStore builds a new, empty store with the given commit hook, once per run
   * @param tablePrefix the checkpoint store's table prefix ({@code ""} for none)
   * @param rule the txid rule: {@code TRANSACTIONAL}, {@code OPAQUE} or {@code NON_TRANSACTIONAL}
   * @param states the state builder over a checkpoint store; must not set a layer
   * @return the target, to give the aggregation with {@link MapTarget#aggregate}
   * @throws IllegalArgumentException if {@code rule} is {@code READ_ONLY}
   * @throws NullPointerException if an argument is null
   * @since 0.3.0
   */
  public static <K, V> MapTarget<K, V> forInMemoryTableStore(
      Function<? super CommitHook, ? extends TableStore> newStore, String tablePrefix, StateKind rule,
      Function<? super TableCheckpointStore, TableStates.Builder<K, V>> states) {
    Objects.requireNonNull(newStore, "newStore");
    return tableTarget(null, newStore, tablePrefix, rule, states);
  }

  private static <K, V> MapTarget<K, V> tableTarget(StoreOpener open,
      Function<? super CommitHook, ? extends TableStore> newStore, String tablePrefix, StateKind rule,
      Function<? super TableCheckpointStore, TableStates.Builder<K, V>> states) {
    boolean[] closeDead = {false};
    MapTarget<K, V> target = new MapTarget<>(TableStoreWorld.factory(open, newStore, tablePrefix, rule, states,
        closeDead));
    target.uniqueNames = true;
    target.tableStore = true;
    target.closeDeadStores = open != null ? closeDead : null;
    return target;
  }

  /**
   * Checks any pipeline: {@code topology} declares it on the kit's source for each incarnation (wrapping its stores
   * with {@link ReplayContext#wrap}, {@link ReplayContext#layer} or {@link ReplayContext#wrapStates}, and optionally
   * running on its own checkpoint store with {@link ReplayContext#useCheckpointStore}); {@code reader} reads the final
   * state of the world after the run. The kit sets partitions, threads, batches in flight, retries, the virtual
   * sleeper, the guarantee and the timeline listener before calling {@code topology}.
   *
   * @param newWorld the stores of one run (a new, empty world per call; an {@link AutoCloseable} world is closed
   *     after the run)
   * @param topology declares the operations after the source
   * @param reader the state to compare, read from the world after the run
   * @param <W> the world type: the stores of one run
   * @param <T> the record type of the input
   * @param <K> the key type of the compared state
   * @param <V> the value type of the compared state
   * @return a builder of the check, its oracle {@link Oracle#failureFree()} unless set
   * @throws NullPointerException if an argument is null
   */
  public static <W, T, K, V> Builder<T, K, V> forPipeline(Supplier<? extends W> newWorld,
      PipelineUnderTest<T, W> topology, Function<? super W, ? extends Map<K, V>> reader) {
    return new Builder<>(ReplaySessions.pipeline(newWorld, topology, reader), false, false, null);
  }

  // ================================================================================================ types

  /**
   * Declares a pipeline under test on the kit's source, once per incarnation of a run.
   *
   * @param <T> the record type
   * @param <W> the world: the stores of one run, kept across its restarts
   */
  @FunctionalInterface
  public interface PipelineUnderTest<T, W> {
    /**
     * @param source the schedule's input, cut into batches by the kit's spout
     * @param world this run's stores
     * @param context the fault wrappers and incarnation of this "process"
     */
    void declare(Stream<T> source, W world, ReplayContext context);
  }

  /**
   * A map state under test, waiting for the aggregation the check's pipeline runs on it:
   * {@code source.<K>groupBy(keyFn).persistentAggregate(STATE_NAME, state, aggregator)}.
   *
   * @param <K> the key type
   * @param <V> the value type
   * @since 0.1.0
   */
  public static final class MapTarget<K, V> {
    private final ReplayWorld.Factory<K, V> worlds;
    private boolean uniqueNames;
    private boolean tableStore;
    private boolean[] closeDeadStores;

    private MapTarget(ReplayWorld.Factory<K, V> worlds) {
      this.worlds = worlds;
    }

    /**
     * For a store that cannot be reopened while a dropped instance is still open (RocksDB and other stores that lock
     * their directory): at a simulated crash the kit closes the dead incarnation's store before it reopens it,
     * instead of dropping it unclosed (the default, as a killed process never runs {@code close()}). Then the crash
     * cannot catch what only {@code close()} makes durable: a store's {@code close()} must not flush what its commits
     * did not.
     *
     * @return this target
     * @throws IllegalStateException if this target does not reopen its store (not {@link #forTableStore(StoreOpener,
     *     KeyCodec, Codec, StateKind)})
     * @since 0.3.0
     */
    public MapTarget<K, V> closingTheDeadStore() {
      if (closeDeadStores == null) {
        throw new IllegalStateException("only a table-store target that reopens its store closes a dead one");
      }
      closeDeadStores[0] = true;
      return this;
    }

    /**
     * The check's pipeline aggregates the input by {@code keyFn} with {@code aggregator} into the state; the final
     * state compared is the value of every key of the input, read as the next batch would see it.
     *
     * @param <T> the record type of the input
     * @param keyFn the key of a record (the {@code groupBy} key)
     * @param aggregator combines the records of a key into its value
     * @return a builder of the check, its default oracle the aggregation of the input by {@code keyFn}
     * @throws NullPointerException if an argument is null
     */
    public <T> Builder<T, K, V> aggregate(Function<? super T, ? extends K> keyFn,
        CombinerAggregator<? super T, V> aggregator) {
      return new Builder<>(ReplaySessions.aggregate(worlds, keyFn, aggregator), uniqueNames, tableStore,
          Oracle.aggregate(keyFn, aggregator));
    }
  }

  /**
   * Configures a {@link ReplayCheck}. Each option may be set once ({@link IllegalStateException} otherwise); bad values
   * throw {@link IllegalArgumentException}. {@link #build()} leaves the builder unchanged. Not thread-safe.
   *
   * @param <T> the record type
   * @param <K> the key type of the compared state
   * @param <V> the value type of the compared state
   * @since 0.1.0
   */
  public static final class Builder<T, K, V> {
    private final ReplaySession.Target<T, K, V> target;
    private final boolean uniqueNames;
    private final boolean tableStore;
    private final Oracle<T, K, V> defaultOracle;
    private String name;
    private SpoutKind spoutKind;
    private Guarantee guarantee;
    private Oracle<T, K, V> oracle;
    private Integer maxAttempts;
    private Integer maxRestarts;

    private Builder(ReplaySession.Target<T, K, V> target, boolean uniqueNames, boolean tableStore,
        Oracle<T, K, V> defaultOracle) {
      this.target = target;
      this.uniqueNames = uniqueNames;
      this.tableStore = tableStore;
      this.defaultOracle = defaultOracle;
    }

    /**
     * Sets the pipeline's name (default {@code "replay-check"}; table-store targets add a run number).
     *
     * @param name the name, not blank; shown in the report and in the stores' tables and leases
     * @return this builder
     * @throws IllegalArgumentException if {@code name} is blank
     */
    public Builder<T, K, V> name(String name) {
      requireUnset(this.name, "name");
      Objects.requireNonNull(name, "name");
      if (name.isBlank()) {
        throw new IllegalArgumentException("name must not be blank");
      }
      this.name = name;
      return this;
    }

    /**
     * The kit's spout: {@code TRANSACTIONAL} (every replay emits the same records) or {@code OPAQUE} (a replay re-cuts
     * the batch from the committed position, with the schedule's {@link BatchCuts#recuts()}). Default: for the
     * table-store targets, each kind the pipeline builder accepts as exactly-once over the store, one after the
     * other (a kind it refuses is skipped); for the other targets {@code TRANSACTIONAL}.
     *
     * @param kind {@code TRANSACTIONAL} or {@code OPAQUE}
     * @return this builder
     * @throws IllegalArgumentException for {@code NON_TRANSACTIONAL}
     */
    public Builder<T, K, V> spout(SpoutKind kind) {
      requireUnset(this.spoutKind, "spout");
      Objects.requireNonNull(kind, "kind");
      if (!KitSpouts.supports(kind)) {
        throw new IllegalArgumentException("the kit's spout is TRANSACTIONAL or OPAQUE, not " + kind);
      }
      this.spoutKind = kind;
      return this;
    }

    /**
     * The guarantee the pipeline is built with (default {@code EXACTLY_ONCE}, which the builder refuses for pairings
     * that cannot deliver it); a weaker one forces a pairing through so the check can show what goes wrong.
     *
     * @param guarantee the delivery guarantee given to the pipeline builder
     * @return this builder
     */
    public Builder<T, K, V> guarantee(Guarantee guarantee) {
      requireUnset(this.guarantee, "guarantee");
      this.guarantee = Objects.requireNonNull(guarantee, "guarantee");
      return this;
    }

    /**
     * What the final state is compared with. Default: for the map targets ({@code aggregate(keyFn, aggregator)})
     * {@link Oracle#aggregate(Function, CombinerAggregator) the aggregation of the input}, beside the failure-free
     * run; for {@link #forPipeline} {@link Oracle#failureFree()}, which cannot catch a bug that shows without faults.
     *
     * @param oracle gives the expected final state of a schedule
     * @return this builder
     */
    public Builder<T, K, V> oracle(Oracle<T, K, V> oracle) {
      requireUnset(this.oracle, "oracle");
      this.oracle = Objects.requireNonNull(oracle, "oracle");
      return this;
    }

    /**
     * Sets the attempts per txid before the pipeline gives up (default 50; a schedule fails a txid at most a few
     * times).
     *
     * @param maxAttempts at least 1
     * @return this builder
     * @throws IllegalArgumentException if {@code maxAttempts < 1}
     */
    public Builder<T, K, V> maxAttempts(int maxAttempts) {
      requireUnset(this.maxAttempts, "maxAttempts");
      requirePositive(maxAttempts, "maxAttempts");
      this.maxAttempts = maxAttempts;
      return this;
    }

    /**
     * Sets the simulated process restarts per run before the run fails (default 50).
     *
     * @param maxRestarts at least 0
     * @return this builder
     * @throws IllegalArgumentException if {@code maxRestarts < 0}
     */
    public Builder<T, K, V> maxRestarts(int maxRestarts) {
      requireUnset(this.maxRestarts, "maxRestarts");
      if (maxRestarts < 0) {
        throw new IllegalArgumentException("maxRestarts must be >= 0, was " + maxRestarts);
      }
      this.maxRestarts = maxRestarts;
      return this;
    }

    /** @return the check; the builder is unchanged */
    public ReplayCheck<T, K, V> build() {
      return new ReplayCheck<>(this);
    }

    private static void requireUnset(Object current, String option) {
      if (current != null) {
        throw new IllegalStateException(option + " was already set to " + current);
      }
    }

    private static void requirePositive(int value, String option) {
      if (value < 1) {
        throw new IllegalArgumentException(option + " must be >= 1, was " + value);
      }
    }
  }

  // ================================================================================================ running

  /**
   * Runs {@code schedule}, and the same schedule without faults on fresh stores, under each spout kind of the check
   * (see {@link Builder#spout}); compares with the oracle. Never throws for a difference.
   *
   * @param schedule the input, cuts, parallelism and faults of the run
   * @return the first failing result, or the last passing one; {@link ReplayResult#passed()} tells whether the state
   *     matched
   * @throws NullPointerException if {@code schedule} is null
   * @throws ReplayCheckFailure if the failure-free reference run itself stops (the code under test is broken without
   *     faults, or refused by the pipeline builder under every spout kind)
   */
  public ReplayResult<K, V> run(ReplaySchedule<T> schedule) {
    Objects.requireNonNull(schedule, "schedule");
    return runner.run(schedule);
  }

  /** @return the spout kinds each schedule runs under (a table-store target skips the kinds its store refuses) */
  public List<SpoutKind> spoutKinds() {
    return runner.spoutKinds();
  }

  /**
   * Runs {@code schedule} and throws unless the final state equals the oracle's.
   *
   * @param schedule the input, cuts, parallelism and faults of the run
   * @return the passing result
   * @throws ReplayCheckFailure with the report (schedule, numbered timeline, expected vs actual of the differing
   *     keys) if the state differs or the pipeline stopped
   */
  public ReplayResult<K, V> check(ReplaySchedule<T> schedule) {
    ReplayResult<K, V> result = run(schedule);
    if (!result.passed()) {
      throw new ReplayCheckFailure(result);
    }
    return result;
  }

  /** @return the oracle this check compares with */
  public Oracle<T, K, V> oracle() {
    return runner.oracle();
  }

  @Override
  public String toString() {
    return "ReplayCheck(" + runner.name() + ", " + runner.spoutKinds() + " spout, " + runner.guarantee()
        + ", oracle: " + runner.oracle().describe() + ")";
  }
}
