package io.epochal.testkit;

import io.epochal.codec.Codec;
import io.epochal.pipeline.CombinerAggregator;
import io.epochal.pipeline.Guarantee;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.RetryPolicy;
import io.epochal.pipeline.Stream;
import io.epochal.pipeline.internal.KeyPartitioner;
import io.epochal.spout.Spout;
import io.epochal.spout.SpoutKind;
import io.epochal.state.IBackingMap;
import io.epochal.state.MapState;
import io.epochal.state.ReadOnlyMapState;
import io.epochal.state.StateContext;
import io.epochal.state.StateFactory;
import io.epochal.state.StateKind;
import io.epochal.state.opaque.OpaqueTableLayout;
import io.epochal.state.transactional.TransactionalTableLayout;
import io.epochal.store.CheckpointStore;
import io.epochal.store.InMemoryCheckpointStore;
import io.epochal.store.table.CommitHook;
import io.epochal.store.table.KeyCodec;
import io.epochal.store.table.TableCheckpointStore;
import io.epochal.store.table.TableStates;
import io.epochal.store.table.TableStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
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
 *     .build();                                                      // oracle: the failure-free run
 *
 * @Property
 * void myStoreIsExactlyOnce(@ForAll("schedules") ReplaySchedule<String> schedule) {
 *   check.check(schedule);                                           // jqwik shrinks a failing schedule
 * }
 *
 * @Provide
 * Arbitrary<ReplaySchedule<String>> schedules() {
 *   return ReplayArbitraries.schedules(ReplayArbitraries.words(30));
 * }
 * }</pre>
 *
 * <p>Targets: {@link #forBackingMap} (a backing map under a txid rule), {@link #forMapState} (a map-state factory),
 * {@link #forTableStore} (a table store under the table-backed layouts, on the protocol its capabilities choose), each
 * running the pipeline {@code source.groupBy(key).persistentAggregate(aggregator)}; and {@link #forPipeline} (any
 * topology over the kit's source, with the user's state reader).
 *
 * <p>Each run gets fresh stores from the target's supplier (kept across the restarts of the run), so the supplier
 * must return an independent store per call; table-store targets also give every run its own pipeline name, so a
 * supplier that reopens one location works too.
 *
 * <p>Thread-safe: {@link #run} and {@link #check} may be called concurrently if the target's suppliers allow it.
 *
 * @param <T> the record type of the input
 * @param <K> the key type of the compared state
 * @param <V> the value type of the compared state
 * @since 0.1.0
 */
public final class ReplayCheck<T, K, V> {
  /** The name of the state the map targets declare ({@code persistentAggregate(STATE_NAME, ...)}). */
  public static final String STATE_NAME = "state";
  private static final AtomicInteger RUNS = new AtomicInteger();

  private final Target<T, K, V> target;
  private final String name;
  private final SpoutKind spoutKind;
  private final Guarantee guarantee;
  private final Oracle<T, K, V> oracle;
  private final int maxAttempts;
  private final int maxRestarts;
  private final boolean uniqueNames;

  private ReplayCheck(Builder<T, K, V> b) {
    this.target = b.target;
    this.uniqueNames = b.uniqueNames;
    this.name = b.name == null ? "replay-check" : b.name;
    this.spoutKind = b.spoutKind == null ? SpoutKind.TRANSACTIONAL : b.spoutKind;
    this.guarantee = b.guarantee == null ? Guarantee.EXACTLY_ONCE : b.guarantee;
    this.oracle = b.oracle == null ? Oracle.failureFree() : b.oracle;
    this.maxAttempts = b.maxAttempts == null ? 50 : b.maxAttempts;
    this.maxRestarts = b.maxRestarts == null ? 50 : b.maxRestarts;
  }

  // ================================================================================================ entry points

  /**
   * Checks a backing map under a txid rule: {@code rule} makes the map-state factory over the (fault-injecting)
   * backing map, e.g. {@code TransactionalMap::factory} or {@code OpaqueMap::factory}. Every cell the map writes shows
   * in the timeline; the final state is read through {@code rule} over the unwrapped map.
   *
   * @param newStore a new, empty store per call (one per run; a store that is {@link AutoCloseable} is closed after
   *     the run)
   * @throws NullPointerException if an argument is null
   */
  public static <K, C, V> MapTarget<K, V> forBackingMap(Supplier<? extends IBackingMap<K, C>> newStore,
      Function<? super IBackingMap<K, C>, ? extends StateFactory<? extends MapState<K, V>>> rule) {
    Objects.requireNonNull(newStore, "newStore");
    Objects.requireNonNull(rule, "rule");
    return new MapTarget<>((faults, pipeline) -> {
      IBackingMap<K, C> raw = Objects.requireNonNull(newStore.get(), "newStore returned null");
      return new World<K, V>() {
        @Override
        public StateFactory<? extends MapState<K, V>> states(ReplayContext context) {
          return rule.apply(context.wrap(raw));
        }

        @Override
        public StateFactory<? extends MapState<K, V>> reader() {
          return rule.apply(raw);
        }

        @Override
        public void close() {
          closeIfCloseable(raw);
        }
      };
    });
  }

  /**
   * Checks a map-state factory (a user's own {@link MapState}): its states are wrapped with
   * {@link FaultInjector#wrapStates}, so a fault inside its writes applies the updates of a prefix of the keys, and
   * its written values show in the timeline. The final state is read through a fresh state of the same factory.
   *
   * @param newFactory a factory over new, empty storage per call (one per run)
   * @throws NullPointerException if {@code newFactory} is null
   */
  public static <K, V> MapTarget<K, V> forMapState(
      Supplier<? extends StateFactory<? extends MapState<K, V>>> newFactory) {
    Objects.requireNonNull(newFactory, "newFactory");
    return new MapTarget<>((faults, pipeline) -> {
      StateFactory<? extends MapState<K, V>> raw = Objects.requireNonNull(newFactory.get(),
          "newFactory returned null");
      return new World<K, V>() {
        @Override
        public StateFactory<? extends MapState<K, V>> states(ReplayContext context) {
          return context.wrapStates(raw);
        }

        @Override
        public StateFactory<? extends MapState<K, V>> reader() {
          return raw;
        }
      };
    });
  }

  /**
   * Checks a table store under the table-backed map layout of {@code rule} ({@code TRANSACTIONAL}:
   * {@code TransactionalTableLayout}, {@code OPAQUE}: {@code OpaqueTableLayout}, {@code NON_TRANSACTIONAL}: plain
   * values), with no table prefix. See {@link #forTableStore(Function, String, StateKind,
   * Function)}.
   */
  public static <K, V> MapTarget<K, V> forTableStore(Function<? super CommitHook, ? extends TableStore> newStore,
      KeyCodec<K> keys, Codec<V> values, StateKind rule) {
    Objects.requireNonNull(keys, "keys");
    Objects.requireNonNull(values, "values");
    return forTableStore(newStore, "", rule, checkpoints -> TableStates.builder(checkpoints, keys, values));
  }

  /**
   * Checks a table store: each incarnation builds a new {@link TableCheckpointStore} over it (owner
   * {@code worker-<incarnation>}, taking the pipeline's lease over like a restarted process), on the protocol the
   * store's capabilities choose (the epoch protocol on an atomic multi-table commit), and states from
   * {@code states} with the fault layer added. {@link FaultPoint#INSIDE_CHECKPOINT_COMMIT} fires inside the store's
   * commits through the hook the store is built with. The store is closed after the run.
   *
   * @param newStore builds the store with the given commit hook; may reopen one location (every run has its own
   *     pipeline name, hence its own tables and checkpoint row)
   * @param tablePrefix the checkpoint store's table prefix ({@code ""} for none)
   * @param rule the txid rule: {@code TRANSACTIONAL}, {@code OPAQUE} or {@code NON_TRANSACTIONAL}
   * @param states the state builder over a checkpoint store (key codec, value codec, empty values, ...); must not
   *     set a layer
   * @throws IllegalArgumentException if {@code rule} is {@code READ_ONLY}
   * @throws NullPointerException if an argument is null
   */
  public static <K, V> MapTarget<K, V> forTableStore(Function<? super CommitHook, ? extends TableStore> newStore,
      String tablePrefix, StateKind rule, Function<? super TableCheckpointStore, TableStates.Builder<K, V>> states) {
    Objects.requireNonNull(newStore, "newStore");
    Objects.requireNonNull(tablePrefix, "tablePrefix");
    Objects.requireNonNull(rule, "rule");
    Objects.requireNonNull(states, "states");
    if (rule == StateKind.READ_ONLY) {
      throw new IllegalArgumentException("a table-store check needs a written state, not READ_ONLY");
    }
    MapTarget<K, V> target = new MapTarget<>((faults, pipeline) -> {
      TableStore store = Objects.requireNonNull(newStore.apply(faults.commitHook()), "newStore returned null");
      return new World<K, V>() {
        @Override
        public StateFactory<? extends MapState<K, V>> states(ReplayContext context) {
          TableCheckpointStore checkpoints = TableCheckpointStore.builder(store).tablePrefix(tablePrefix)
              .owner("worker-" + context.incarnation()).build();
          context.useCheckpointStore(checkpoints);
          return layout(rule, states.apply(checkpoints).layer(context.layer()));
        }

        @Override
        public StateFactory<? extends MapState<K, V>> reader() {
          TableCheckpointStore checkpoints = TableCheckpointStore.builder(store).tablePrefix(tablePrefix)
              .owner("replay-check-reader").build();
          return layout(rule, states.apply(checkpoints));
        }

        @Override
        public void close() {
          store.close();
        }
      };
    });
    target.uniqueNames = true;
    return target;
  }

  private static <K, V> StateFactory<MapState<K, V>> layout(StateKind rule, TableStates.Builder<K, V> builder) {
    return switch (rule) {
      case TRANSACTIONAL -> TransactionalTableLayout.factory(builder);
      case OPAQUE -> OpaqueTableLayout.factory(builder);
      case NON_TRANSACTIONAL -> builder.nonTransactional();
      case READ_ONLY -> throw new IllegalArgumentException("READ_ONLY");
    };
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
   * @throws NullPointerException if an argument is null
   */
  public static <W, T, K, V> Builder<T, K, V> forPipeline(Supplier<? extends W> newWorld,
      PipelineUnderTest<T, W> topology, Function<? super W, ? extends Map<K, V>> reader) {
    Objects.requireNonNull(newWorld, "newWorld");
    Objects.requireNonNull(topology, "topology");
    Objects.requireNonNull(reader, "reader");
    return new Builder<>((faults, pipeline) -> {
      W world = Objects.requireNonNull(newWorld.get(), "newWorld returned null");
      return new Session<T, K, V>() {
        @Override
        public void declare(Stream<T> source, ReplayContext context) {
          topology.declare(source, world, context);
        }

        @Override
        public Map<K, V> read(List<T> input, int partitions, long lastTxid) {
          return Map.copyOf(Objects.requireNonNull(reader.apply(world), "reader returned null"));
        }

        @Override
        public void close() {
          closeIfCloseable(world);
        }
      };
    }, false);
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

  /** The stores of one run of a map target. */
  private interface World<K, V> {
    /** A factory of fault-wrapped states for one incarnation (may set the context's checkpoint store). */
    StateFactory<? extends MapState<K, V>> states(ReplayContext context);

    /** An unwrapped factory over the same stores, to read the final state. */
    StateFactory<? extends MapState<K, V>> reader();

    default void close() {
    }
  }

  /** Opens one run's world. */
  @FunctionalInterface
  private interface WorldFactory<K, V> {
    World<K, V> open(FaultInjector faults, String pipeline);
  }

  /** A target's one run. */
  private interface Session<T, K, V> {
    void declare(Stream<T> source, ReplayContext context);

    Map<K, V> read(List<T> input, int partitions, long lastTxid);

    void close();
  }

  @FunctionalInterface
  private interface Target<T, K, V> {
    Session<T, K, V> open(FaultInjector faults, String pipeline);
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
    private final WorldFactory<K, V> worlds;
    private boolean uniqueNames;

    private MapTarget(WorldFactory<K, V> worlds) {
      this.worlds = worlds;
    }

    /**
     * The check's pipeline aggregates the input by {@code keyFn} with {@code aggregator} into the state; the final
     * state compared is the value of every key of the input, read as the next batch would see it.
     *
     * @throws NullPointerException if an argument is null
     */
    public <T> Builder<T, K, V> aggregate(Function<? super T, ? extends K> keyFn,
        CombinerAggregator<? super T, V> aggregator) {
      Objects.requireNonNull(keyFn, "keyFn");
      Objects.requireNonNull(aggregator, "aggregator");
      return new Builder<>((faults, pipeline) -> {
        World<K, V> world = worlds.open(faults, pipeline);
        return new Session<T, K, V>() {
          @Override
          public void declare(Stream<T> source, ReplayContext context) {
            source.<K>groupBy(keyFn).persistentAggregate(STATE_NAME, world.states(context), aggregator);
          }

          @Override
          public Map<K, V> read(List<T> input, int partitions, long lastTxid) {
            Set<K> keys = new LinkedHashSet<>();
            for (T record : input) {
              keys.add(keyFn.apply(record));
            }
            return readMap(world.reader(), pipeline, STATE_NAME, partitions, lastTxid, keys);
          }

          @Override
          public void close() {
            world.close();
          }
        };
      }, uniqueNames);
    }
  }

  /**
   * Reads {@code keys} from the states {@code factory} makes for a pipeline, as batch {@code lastTxid + 1} would see
   * them: each key through a fresh state of its partition ({@code farm_hash(key) mod partitions}).
   *
   * @return the keys that have a value
   */
  static <K, V> Map<K, V> readMap(StateFactory<? extends ReadOnlyMapState<K, V>> factory, String pipeline,
      String stateName, int partitions, long lastTxid, Collection<? extends K> keys) {
    Map<Integer, List<K>> byPartition = new HashMap<>();
    for (K key : keys) {
      byPartition.computeIfAbsent(KeyPartitioner.partition(key, partitions), p -> new ArrayList<>()).add(key);
    }
    Map<K, V> out = new HashMap<>();
    for (Map.Entry<Integer, List<K>> part : byPartition.entrySet()) {
      ReadOnlyMapState<K, V> state = factory.makeState(new StateContext(pipeline, stateName, part.getKey(),
          partitions));
      try {
        out.putAll(state.multiGet(lastTxid + 1, part.getValue()));
      } finally {
        closeIfCloseable(state);
      }
    }
    return out;
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
    private final Target<T, K, V> target;
    private final boolean uniqueNames;
    private String name;
    private SpoutKind spoutKind;
    private Guarantee guarantee;
    private Oracle<T, K, V> oracle;
    private Integer maxAttempts;
    private Integer maxRestarts;

    private Builder(Target<T, K, V> target, boolean uniqueNames) {
      this.target = target;
      this.uniqueNames = uniqueNames;
    }

    /** The pipeline's name (default {@code "replay-check"}; table-store targets add a run number). */
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
     * The kit's spout: {@code TRANSACTIONAL} (default: every replay emits the same records) or {@code OPAQUE} (a
     * replay re-cuts the batch from the committed position, with the schedule's {@link BatchCuts#recuts()}).
     *
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
     */
    public Builder<T, K, V> guarantee(Guarantee guarantee) {
      requireUnset(this.guarantee, "guarantee");
      this.guarantee = Objects.requireNonNull(guarantee, "guarantee");
      return this;
    }

    /** What the final state is compared with (default {@link Oracle#failureFree()}). */
    public Builder<T, K, V> oracle(Oracle<T, K, V> oracle) {
      requireUnset(this.oracle, "oracle");
      this.oracle = Objects.requireNonNull(oracle, "oracle");
      return this;
    }

    /** Attempts per txid before the pipeline gives up (default 50; a schedule fails a txid at most a few times). */
    public Builder<T, K, V> maxAttempts(int maxAttempts) {
      requireUnset(this.maxAttempts, "maxAttempts");
      requirePositive(maxAttempts, "maxAttempts");
      this.maxAttempts = maxAttempts;
      return this;
    }

    /** Simulated process restarts per run before the run fails (default 50). */
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
   * Runs {@code schedule} and, with the {@link Oracle#failureFree()} oracle, the same schedule without faults on
   * fresh stores; never throws for a difference.
   *
   * @return the result; {@link ReplayResult#passed()} tells whether the state matched
   * @throws NullPointerException if {@code schedule} is null
   * @throws ReplayCheckFailure if the failure-free reference run itself fails (the code under test is broken without
   *     faults, or refused by the pipeline builder)
   */
  public ReplayResult<K, V> run(ReplaySchedule<T> schedule) {
    Objects.requireNonNull(schedule, "schedule");
    int runNo = RUNS.incrementAndGet();
    Map<K, V> expected;
    if (oracle.isFailureFree()) {
      ReplayResult<K, V> reference = runOnce(schedule.failureFree(), runNo, true, null);
      if (reference.error().isPresent()) {
        throw new ReplayCheckFailure(reference);
      }
      expected = reference.actual();
    } else {
      expected = oracle.expected(schedule.input());
    }
    return runOnce(schedule, runNo, false, expected);
  }

  /**
   * Runs {@code schedule} and throws unless the final state equals the oracle's.
   *
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
    return oracle;
  }

  private ReplayResult<K, V> runOnce(ReplaySchedule<T> schedule, int runNo, boolean reference,
      Map<K, V> expected) {
    String pipeline = uniqueNames ? name + "-" + runNo + (reference ? "-failure-free" : "") : name;
    Parallelism par = schedule.parallelism();
    ReplayTimeline timeline = new ReplayTimeline();
    timeline.partitions(par.partitions());
    FaultInjector faults = new FaultInjector(schedule.faults(), timeline);
    AtomicLong virtualNanos = new AtomicLong();
    Spout<T, ?> spout = spoutKind == SpoutKind.OPAQUE
        ? faults.wrap(KitSpouts.opaque("input", schedule.input(), schedule.cuts()))
        : faults.wrap(KitSpouts.transactional("input", schedule.input(), schedule.cuts()));
    CheckpointStore runCheckpoints = new InMemoryCheckpointStore();
    Session<T, K, V> session = target.open(faults, pipeline);
    ReplayHarness.Outcome outcome = null;
    Throwable error = null;
    Map<K, V> actual = null;
    try {
      outcome = ReplayHarness.runToEnd(incarnation -> {
        ReplayContext context = new ReplayContext(pipeline, incarnation, par, faults);
        PipelineBuilder builder = Pipeline.newBuilder(pipeline)
            .partitions(par.partitions())
            .threads(par.threads())
            .maxBatchesInFlight(par.maxBatchesInFlight())
            .guarantee(guarantee)
            .retryPolicy(new RetryPolicy(maxAttempts, Duration.ofMillis(10), Duration.ofSeconds(1)))
            .sleeper(d -> virtualNanos.addAndGet(d.toNanos()))
            .listener(timeline.listener());
        session.declare(builder.source(spout), context);
        CheckpointStore checkpoints = context.checkpointStore() != null ? context.checkpointStore() : runCheckpoints;
        builder.checkpointStore(faults.wrap(checkpoints));
        return builder.build();
      }, maxRestarts, timeline);
      actual = session.read(schedule.input(), par.partitions(), outcome.lastTxid());
    } catch (RuntimeException | AssertionError e) {
      error = e;
      timeline.stopped(e);
    } finally {
      session.close();
    }
    return new ReplayResult<>(schedule, oracle.describe(), expected, actual, faults.fired(), faults.unfired(),
        timeline.events(), outcome, error, Duration.ofNanos(virtualNanos.get()), reference);
  }

  private static void closeIfCloseable(Object o) {
    if (o instanceof AutoCloseable c) {
      try {
        c.close();
      } catch (Exception e) {
        throw new IllegalStateException("closing " + o + " failed", e);
      }
    }
  }

  @Override
  public String toString() {
    return "ReplayCheck(" + name + ", " + spoutKind + " spout, " + guarantee + ", oracle: " + oracle.describe()
        + ")";
  }
}
