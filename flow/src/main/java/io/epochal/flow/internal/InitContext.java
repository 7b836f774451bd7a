package io.epochal.flow.internal;

import io.epochal.cache.CacheRegion;
import io.epochal.flow.JoinSpec;
import io.epochal.flow.JoinedStateClient;
import io.epochal.flow.ProcessorContext;
import io.epochal.flow.StateClient;
import io.epochal.flow.StateSpec;
import io.epochal.store.table.EpochBuffer;
import io.epochal.store.table.KeyPartsCodec;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableKey;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * The {@link ProcessorContext} of {@code init}: in the spec pass it records declarations; for a partition it also
 * claims the tables in the pipeline's staging (its checkpoint store's one claim registry), opens them in the
 * staging's table store and makes the clients. Valid only during {@code init}. Internal.
 *
 * @param <K> the key type
 */
final class InitContext<K> implements ProcessorContext<K> {
  /** The pipeline name reported during the spec pass. */
  static final String DECLARING = "<declaring>";

  /** A declared state or joiner, as recorded by the spec pass. */
  record Declared(boolean writer, String name, String table) {
    @Override
    public String toString() {
      return (writer ? "state '" : "joiner '") + name + "' on " + table;
    }
  }

  private final FlowComputation<K, ?, ?> computation;
  private final String pipeline;
  private final int partition;
  private final int partitions;
  private final Supplier<Epoch> epochs;
  /** The pipeline's staging before any batch (reads the committed rows); null in the spec pass. */
  private final EpochBuffer staging;
  /** The partition's watermark as the processor sees it. */
  private final java.util.function.LongSupplier watermark;
  private final List<Declared> declared = new ArrayList<>();
  private final List<MutableClient<K, ?>> states = new ArrayList<>();
  private final List<JoinedClient<K, ?>> joiners = new ArrayList<>();
  private final List<PartitionTimers<K, ?>> timers = new ArrayList<>();
  private boolean finished;

  private InitContext(FlowComputation<K, ?, ?> computation, String pipeline, int partition, int partitions,
      EpochBuffer staging, Supplier<Epoch> epochs, java.util.function.LongSupplier watermark) {
    this.computation = computation;
    this.staging = staging;
    this.watermark = watermark;
    this.pipeline = pipeline;
    this.partition = partition;
    this.partitions = partitions;
    this.epochs = epochs;
  }

  static <K> InitContext<K> declaring(FlowComputation<K, ?, ?> computation) {
    return new InitContext<>(computation, null, 0, 1, null, () -> null, () -> Long.MIN_VALUE);
  }

  static <K> InitContext<K> partition(FlowComputation<K, ?, ?> computation, String pipeline, int partition,
      int partitions, EpochBuffer staging, Supplier<Epoch> epochs, java.util.function.LongSupplier watermark) {
    return new InitContext<>(computation, pipeline, partition, partitions, Objects.requireNonNull(staging, "staging"),
        epochs, watermark);
  }

  private boolean declaringOnly() {
    return pipeline == null;
  }

  @Override
  public String pipeline() {
    return declaringOnly() ? DECLARING : pipeline;
  }

  @Override
  public String computation() {
    return computation.name();
  }

  @Override
  public int partition() {
    return partition;
  }

  @Override
  public int partitions() {
    return partitions;
  }

  private String writerName(String state, boolean external) {
    return "computation '" + computation.name() + "' state '" + state + "'"
        + (external ? "" : " of pipeline '" + pipeline + "'");
  }

  private String internalPath(String computationName, String state) {
    return staging.tablePrefix() + pipeline + "/" + computationName + "/" + state;
  }

  private void declare(boolean writer, String name, String table) {
    if (finished) {
      throw new IllegalStateException("states of computation '" + computation.name() + "' can only be declared "
          + "in init()");
    }
    for (Declared d : declared) {
      if (d.name().equals(name)) {
        throw new IllegalArgumentException("computation '" + computation.name() + "' declares two states or "
            + "joiners named '" + name + "'");
      }
    }
    declared.add(new Declared(writer, name, table));
  }

  @Override
  public <S> StateClient<K, S> state(StateSpec<K, S> spec) {
    Objects.requireNonNull(spec, "spec");
    String external = spec.externalTablePath().orElse(null);
    declare(true, spec.name(), external != null ? external : "<pipeline>/" + computation.name() + "/" + spec.name());
    if (spec.ttl().isPresent() && spec.ttl().get().domain() == io.epochal.flow.TimeDomain.EVENT_TIME
        && computation.watermark() == null) {
      throw new IllegalArgumentException("state '" + spec.name() + "' of computation '" + computation.name()
          + "' has an event-time TTL, but the computation has no watermark: declare it with a WatermarkStrategy "
          + "(Flow.process(.., strategy)) or use a processing-time TTL");
    }
    if (declaringOnly()) {
      MutableClient<K, S> stub = new MutableClient<>(spec, computation.name(),
          external != null ? external : DECLARING + "/" + computation.name() + "/" + spec.name(), null, null,
          () -> null);
      states.add(stub);
      return stub;
    }
    String path = external != null ? external : internalPath(computation.name(), spec.name());
    staging.claim(path, writerName(spec.name(), external != null));
    Table table = external != null
        ? Tables.openExternal(staging.store(), path, spec.keys(), spec.layout(),
            "external state '" + spec.name() + "' of computation '" + computation.name() + "'")
        : Tables.openInternal(staging.store(), path, spec.keys(), spec.codec().id(), spec.layout());
    CacheRegion<TableKey, S> region = spec.cached()
        ? computation.cache().newRegion(path + "#" + partition, spec.codec()).build()
        : null;
    MutableClient.TtlIndex<K> ttl = spec.ttl().isPresent() ? ttlIndex(spec, table) : null;
    MutableClient<K, S> client = new MutableClient<>(spec, computation.name(), path, table, region, epochs, ttl);
    states.add(client);
    return client;
  }

  /** Suffix of the base path of a state's TTL tables. */
  static final String TTL = ".ttl";
  /** Suffix of the path of a state's deadlines table. */
  static final String DEADLINES = ".ttl-deadlines";

  /**
   * Claims, opens and checks the TTL tables of {@code spec}: the deadlines table (the state's key columns → deadline)
   * and the hidden expiration timers, both under the computation's internal prefix.
   */
  private <S> MutableClient.TtlIndex<K> ttlIndex(StateSpec<K, S> spec, Table stateTable) {
    io.epochal.flow.StateTtl ttl = spec.ttl().orElseThrow();
    if (!staging.atomic()) {
      throw new IllegalStateException("state '" + spec.name() + "' of computation '" + computation.name()
          + "' has a TTL, which needs the epoch protocol (a store with atomic multi-table commit), but pipeline '"
          + pipeline + "' commits per key on " + staging.store().describe() + ": an expiration could not commit "
          + "with its deadline");
    }
    String base = internalPath(computation.name(), spec.name()) + TTL;
    String deadlinesPath = internalPath(computation.name(), spec.name()) + DEADLINES;
    String writer = "computation '" + computation.name() + "' TTL of state '" + spec.name() + "' of pipeline '"
        + pipeline + "'";
    staging.claim(deadlinesPath, writer);
    for (String path : TimerTables.paths(base)) {
      staging.claim(path, writer);
    }
    io.epochal.store.table.TableSchema.Builder schema = io.epochal.store.table.TableSchema.builder(deadlinesPath);
    for (io.epochal.store.table.Column c : spec.keys().columns()) {
      schema.key(c);
    }
    Table deadlines = staging.store().openTable(schema.requiredValue("deadline", io.epochal.store.table.ColumnType.INT64)
        .attribute("epochal.key", spec.keys().id()).attribute("epochal.ttl.domain", ttl.domain().name()).build());
    io.epochal.flow.TimerSpec<K, Void> timerSpec = io.epochal.flow.TimerSpec.of(spec.name() + TTL, ttl.domain(),
        new KeyPartsCodec<>(spec.keys(), deadlines.schema())).maxFiredPerBatch(ttl.maxExpirationsPerBatch())
        .pageSize(Math.min(1024, ttl.maxExpirationsPerBatch())).build();
    TimerTables tables = TimerTables.open(staging.store(), base, timerSpec);
    boolean recorded = tables.checkPartitions(staging, pipeline, computation.name(), timerSpec.name(), partitions);
    return new MutableClient.TtlIndex<>(deadlines, new PartitionTimers<>(timerSpec, computation.name(), partition,
        partitions, recorded, tables, epochs));
  }

  @Override
  public <S> JoinedStateClient<K, S> joiner(JoinSpec<K, S> spec) {
    Objects.requireNonNull(spec, "spec");
    String byPath = spec.tablePath().orElse(null);
    declare(false, spec.name(), byPath != null ? byPath
        : "<pipeline>/" + spec.computation().orElseThrow() + "/" + spec.state().orElseThrow());
    if (declaringOnly()) {
      JoinedClient<K, S> stub = new JoinedClient<>(spec, computation.name(), byPath, null, null, null, () -> null);
      joiners.add(stub);
      return stub;
    }
    String path = byPath != null ? byPath : internalPath(spec.computation().orElseThrow(), spec.state().orElseThrow());
    Table table = byPath != null
        ? Tables.openExternal(staging.store(), path, spec.keys(), spec.layout(),
            "joiner '" + spec.name() + "' of computation '" + computation.name() + "'")
        : Tables.openInternal(staging.store(), path, spec.keys(), spec.codec().id(), spec.layout());
    CacheRegion<TableKey, S> region = computation.cache().newRegion("join:" + path + "#" + partition, spec.codec())
        .ttl(spec.ttl()).build();
    JoinedClient<K, S> client = new JoinedClient<>(spec, computation.name(), path, staging.store(), table,
        region, epochs, joinTtl(spec, path));
    joiners.add(client);
    return client;
  }

  /**
   * Finds the TTL of the state a joiner reads, from the joined table: a state with a TTL has the deadlines table
   * {@code <path>.ttl-deadlines}, whose {@code epochal.ttl.domain} attribute names the TTL's domain; an event-time TTL
   * is judged at the writer computation's committed watermark, in its {@code .watermark} table beside the state
   * ({@code <pipeline>/<computation>/.watermark}). Asked when the joiner is bound and, if no TTL was found then, at its
   * first epoch (a writer in the same pipeline may be made after the joiner). Nothing is claimed: the joiner only
   * reads.
   *
   * @return the lookup; it throws {@link IllegalStateException} if the deadlines table has no valid domain, or the
   *     TTL is in event time and the writer's watermark table does not exist
   */
  private <S> Supplier<java.util.Optional<JoinedClient.JoinTtl>> joinTtl(JoinSpec<K, S> spec, String path) {
    io.epochal.store.table.TableStore store = staging.store();
    String deadlinesPath = path + DEADLINES;
    String watermarkPath = spec.computation().isPresent()
        ? Watermarks.path(staging.tablePrefix(), pipeline, spec.computation().get())
        : path.substring(0, Math.max(0, path.lastIndexOf('/'))) + "/" + ComputationWatermark.TABLE;
    String joiner = "joiner '" + spec.name() + "' of computation '" + computation.name() + "' of pipeline '"
        + pipeline + "'";
    String writer = spec.computation().map(c -> "state '" + spec.state().orElseThrow() + "' of computation '" + c
        + "'").orElse("the state in table " + path);
    io.epochal.cache.StateCache cache = computation.cache();
    int part = partition;
    return () -> {
      java.util.Optional<Table> deadlines = store.findTable(deadlinesPath);
      if (deadlines.isEmpty()) {
        return java.util.Optional.empty();
      }
      String domainName = deadlines.get().schema().attributes().get("epochal.ttl.domain");
      io.epochal.flow.TimeDomain domain;
      try {
        domain = io.epochal.flow.TimeDomain.valueOf(Objects.requireNonNull(domainName, "no domain"));
      } catch (RuntimeException e) {
        throw new IllegalStateException(joiner + " reads " + writer + ", whose deadlines table " + deadlinesPath
            + " has no valid 'epochal.ttl.domain' attribute (" + domainName + "): it cannot tell when rows expire",
            e);
      }
      Table watermark = null;
      if (domain == io.epochal.flow.TimeDomain.EVENT_TIME) {
        watermark = store.findTable(watermarkPath).orElseThrow(() -> new IllegalStateException(joiner + " reads "
            + writer + ", which has an event-time TTL, but the writer's watermark table " + watermarkPath
            + " does not exist: the joiner judges expiry at the writer's committed watermark, so it cannot read "
            + "this state"));
      }
      CacheRegion<TableKey, Long> cached = cache.newRegion("join:" + deadlinesPath + "#" + part,
          io.epochal.codec.Codecs.longs()).ttl(spec.ttl()).build();
      return java.util.Optional.of(new JoinedClient.JoinTtl(deadlines.get(), domain, watermark, cached));
    };
  }

  @Override
  public <P> io.epochal.flow.TimerClient<K, P> timers(io.epochal.flow.TimerSpec<K, P> spec) {
    Objects.requireNonNull(spec, "spec");
    declare(true, spec.name(), "<pipeline>/" + computation.name() + "/" + spec.name() + TimerTables.TIMERS);
    if (declaringOnly()) {
      PartitionTimers<K, P> stub = new PartitionTimers<>(spec, computation.name(), 0, 1, false, null, () -> null);
      timers.add(stub);
      return stub;
    }
    if (!staging.atomic()) {
      throw new IllegalStateException("timers '" + spec.name() + "' of computation '" + computation.name()
          + "' need the epoch protocol (a store with atomic multi-table commit), but pipeline '" + pipeline
          + "' commits per key on " + staging.store().describe() + ": a timer's deletion could not commit with its"
          + " handler's results");
    }
    String base = internalPath(computation.name(), spec.name());
    for (String path : TimerTables.paths(base)) {
      staging.claim(path, "computation '" + computation.name() + "' timers '" + spec.name() + "' of pipeline '"
          + pipeline + "'");
    }
    TimerTables tables = TimerTables.open(staging.store(), base, spec);
    boolean recorded = tables.checkPartitions(staging, pipeline, computation.name(), spec.name(), partitions);
    PartitionTimers<K, P> client = new PartitionTimers<>(spec, computation.name(), partition, partitions, recorded,
        tables, epochs);
    timers.add(client);
    return client;
  }

  /** The name of the hidden timer spec that buffers a delayed computation's records. */
  static final String DELAYED = ".delayed";

  /**
   * Claims, opens and checks the tables buffering the delayed records of the computation's partition: a hidden
   * event-time timer spec whose timers are the buffered records (key: the record's txid and number in its batch
   * attempt, trigger: timestamp plus delay, payload: the encoded record). Not a declaration of the processor's.
   */
  <T> PartitionTimers<byte[], T> delayBuffer(io.epochal.flow.DelaySpec<T> delay) {
    Objects.requireNonNull(delay, "delay");
    if (!staging.atomic()) {
      throw new IllegalStateException("the input delay of computation '" + computation.name() + "' needs the epoch "
          + "protocol (a store with atomic multi-table commit), but pipeline '" + pipeline + "' commits per key on "
          + staging.store().describe());
    }
    io.epochal.flow.TimerSpec<byte[], T> spec = io.epochal.flow.TimerSpec.withPayload(DELAYED,
        io.epochal.flow.TimeDomain.EVENT_TIME, io.epochal.codec.Codecs.bytes(), delay.records())
        .maxFiredPerBatch(delay.maxReleasedPerBatch()).pageSize(delay.pageSize()).build();
    String base = internalPath(computation.name(), DELAYED);
    for (String path : TimerTables.paths(base)) {
      staging.claim(path, "computation '" + computation.name() + "' delayed input of pipeline '" + pipeline + "'");
    }
    TimerTables tables = TimerTables.open(staging.store(), base, spec);
    boolean recorded = tables.checkPartitions(staging, pipeline, computation.name(), spec.name(), partitions);
    return new PartitionTimers<>(spec, computation.name(), partition, partitions, recorded, tables, epochs);
  }

  @Override
  public long currentWatermark() {
    return watermark.getAsLong();
  }

  List<PartitionTimers<K, ?>> timers() {
    return List.copyOf(timers);
  }

  /** Ends {@code init}: later declarations are refused. @return what was declared */
  List<Declared> finish() {
    finished = true;
    return List.copyOf(declared);
  }

  List<MutableClient<K, ?>> states() {
    return List.copyOf(states);
  }

  List<JoinedClient<K, ?>> joiners() {
    return List.copyOf(joiners);
  }
}
