package io.epochal.testkit;

import io.epochal.api.Evolving;
import io.epochal.codec.Codec;
import io.epochal.codec.Codecs;
import io.epochal.pipeline.BatchReport;
import io.epochal.pipeline.Guarantee;
import io.epochal.pipeline.KeyValue;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.PipelineListener;
import io.epochal.pipeline.RetryPolicy;
import io.epochal.pipeline.RunSummary;
import io.epochal.pipeline.Stream;
import io.epochal.sink.CollectingSink;
import io.epochal.spout.BatchAttempt;
import io.epochal.spout.Collector;
import io.epochal.spout.TransactionalSpout;
import io.epochal.state.ReadOnlyMapState;
import io.epochal.state.StateFactory;
import io.epochal.store.CheckpointStore;
import io.epochal.store.InMemoryCheckpointStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Runs a pipeline in a test, one epoch at a time, like Kafka Streams' {@code TopologyTestDriver}: no threads of its
 * own, no real sleeps, no external services. Feed batches with {@link #pipeInput}, commit them one txid at a time with
 * {@link #step()}, then inspect the values the pipeline emitted ({@link #output}, for streams captured with
 * {@link TestOutputs#capture}, e.g. a state's new-values stream) and the state it committed ({@link #read}).
 *
 * <pre>{@code
 * InMemoryBackingMap<String, TransactionalValue<Long>> store = new InMemoryBackingMap<>();
 * StateFactory<MapState<String, Long>> counts = TransactionalMap.factory(store);
 * try (PipelineTestDriver<String> driver = PipelineTestDriver.<String>builder((input, outputs) -> outputs.capture(
 *     "counts", input.groupBy(w -> w).persistentAggregate("counts", counts, Aggregators.count()).newValuesStream()))
 *     .build()) {
 *   driver.pipeInput("a", "b", "a");
 *   driver.step();                                              // txid 1
 *   assertEquals(Map.of("a", 2L, "b", 1L), driver.outputAsMap("counts"));
 *   assertEquals(Optional.of(2L), driver.read(counts, "counts", "a"));
 * }
 * }</pre>
 *
 * <p><b>Faults.</b> The driver's spout and checkpoint store go through a {@link FaultInjector} ({@link #faults()},
 * or the one given to {@link Builder#faults}); wrap your own stores with it and {@link FaultInjector#schedule} faults
 * to watch a batch fail and replay. A {@link SimulatedCrash} makes the driver rebuild the pipeline from the topology
 * (a new "process" over the same stores, so create them outside the topology) and continue.
 *
 * <p><b>Outputs</b> are sinks of the pipeline: {@link TestOutputs#capture} sends the stream {@code to} a
 * {@link CollectingSink}, which publishes a batch's values when its epoch commits, so a failed attempt never shows,
 * and each committed batch's values show exactly once. The driver reads the sinks directly.
 *
 * <p>Not thread-safe: one test thread drives it. Nulls are rejected with {@link NullPointerException}.
 *
 * @param <T> the input record type
 * @since 0.1.0
 */
@Evolving
public final class PipelineTestDriver<T> implements AutoCloseable {

  /** Declares the pipeline under test over the driver's input. Called again after each simulated crash. */
  @FunctionalInterface
  public interface DriverTopology<T> {
    /**
     * @param input the batches piped into the driver
     * @param outputs where to capture streams whose values the test inspects
     */
    void declare(Stream<T> input, TestOutputs outputs);
  }

  /** Captures streams of the pipeline under test, by name. */
  public interface TestOutputs {
    /**
     * Captures every record of {@code stream} of each committed batch under {@code name} (a state's
     * {@code newValuesStream()}, a {@code stateQuery} or {@code lookup} result, any stream).
     *
     * @param <R> the stream's record type
     * @param name the name the test reads the values under ({@link PipelineTestDriver#output(String)})
     * @param stream the stream of the pipeline under test to capture
     * @throws IllegalArgumentException if {@code name} is already captured
     */
    <R> void capture(String name, Stream<R> stream);
  }

  private final String name;
  private final DriverTopology<T> topology;
  private final int partitions;
  private final Guarantee guarantee;
  private final RetryPolicy retryPolicy;
  private final int maxRestarts;
  private final FaultInjector faults;
  private final CheckpointStore checkpoints;
  private final List<List<T>> batches = new ArrayList<>();
  private final TransactionalSpout<T, Long> spout;
  /** One sink per captured output, kept across restarts (what they published stays published). */
  private final DriverOutputs outputs = new DriverOutputs();
  private final List<BatchReport> reports = new ArrayList<>();
  private final AtomicLong virtualNanos = new AtomicLong();
  private Pipeline pipeline;
  private int incarnation;
  private boolean closed;

  private PipelineTestDriver(Builder<T> b) {
    this.name = b.name == null ? "test-driver" : b.name;
    this.topology = b.topology;
    this.partitions = b.partitions == null ? 1 : b.partitions;
    this.guarantee = b.guarantee == null ? Guarantee.EXACTLY_ONCE : b.guarantee;
    this.retryPolicy = b.retryPolicy == null ? new RetryPolicy(10, Duration.ofMillis(10), Duration.ofSeconds(1))
        : b.retryPolicy;
    this.maxRestarts = 20;
    this.faults = b.faults == null ? new FaultInjector(List.of()) : b.faults;
    this.faults.timeline().partitions(partitions);
    this.checkpoints = b.checkpointStore == null ? new InMemoryCheckpointStore() : b.checkpointStore;
    this.spout = faults.wrap(new InputSpout());
    this.pipeline = buildPipeline();
  }

  /**
   * Starts building a driver for the pipeline {@code topology} declares.
   *
   * @param <T> the input record type
   * @param topology declares the pipeline over the driver's input; called again after each simulated crash
   * @return a builder with no option set
   * @throws NullPointerException if {@code topology} is null
   */
  public static <T> Builder<T> builder(DriverTopology<T> topology) {
    return new Builder<>(Objects.requireNonNull(topology, "topology"));
  }

  /**
   * Configures a {@link PipelineTestDriver}. Each option may be set once ({@link IllegalStateException} otherwise).
   * Not thread-safe.
   *
   * @param <T> the input record type
   */
  public static final class Builder<T> {
    private final DriverTopology<T> topology;
    private String name;
    private Integer partitions;
    private Guarantee guarantee;
    private RetryPolicy retryPolicy;
    private FaultInjector faults;
    private CheckpointStore checkpointStore;

    private Builder(DriverTopology<T> topology) {
      this.topology = topology;
    }

    /**
     * Sets the pipeline's name (default {@code "test-driver"}).
     *
     * @param name the name, used for the checkpoint and the states' tables
     * @return this builder
     */
    public Builder<T> name(String name) {
      requireUnset(this.name, "name");
      this.name = Objects.requireNonNull(name, "name");
      return this;
    }

    /**
     * Sets the number of state partitions (default 1).
     *
     * @param partitions at least 1
     * @return this builder
     * @throws IllegalArgumentException if {@code partitions < 1}
     */
    public Builder<T> partitions(int partitions) {
      requireUnset(this.partitions, "partitions");
      if (partitions < 1) {
        throw new IllegalArgumentException("partitions must be >= 1, was " + partitions);
      }
      this.partitions = partitions;
      return this;
    }

    /**
     * Sets the guarantee the pipeline is built with (default {@code EXACTLY_ONCE}).
     *
     * @param guarantee the delivery guarantee; a weaker one lets a pairing through that exactly-once refuses
     * @return this builder
     */
    public Builder<T> guarantee(Guarantee guarantee) {
      requireUnset(this.guarantee, "guarantee");
      this.guarantee = Objects.requireNonNull(guarantee, "guarantee");
      return this;
    }

    /**
     * Sets the retries of a failed batch (default 10 attempts; the backoff passes in virtual time).
     *
     * @param retryPolicy the attempts per txid and the backoff between them
     * @return this builder
     */
    public Builder<T> retryPolicy(RetryPolicy retryPolicy) {
      requireUnset(this.retryPolicy, "retryPolicy");
      this.retryPolicy = Objects.requireNonNull(retryPolicy, "retryPolicy");
      return this;
    }

    /**
     * Sets the injector the driver's spout and checkpoint store go through (default: a new one, no faults).
     *
     * @param faults the injector, whose timeline the driver also records into
     * @return this builder
     */
    public Builder<T> faults(FaultInjector faults) {
      requireUnset(this.faults, "faults");
      this.faults = Objects.requireNonNull(faults, "faults");
      return this;
    }

    /**
     * Sets the checkpoint store (default: a new in-memory one); e.g. the {@code TableCheckpointStore} of table states.
     *
     * @param checkpointStore the store of the committed txid and the spout metadata, kept across simulated crashes
     * @return this builder
     */
    public Builder<T> checkpointStore(CheckpointStore checkpointStore) {
      requireUnset(this.checkpointStore, "checkpointStore");
      this.checkpointStore = Objects.requireNonNull(checkpointStore, "checkpointStore");
      return this;
    }

    /**
     * Builds the pipeline (nothing runs until {@link PipelineTestDriver#step()}).
     *
     * @return the driver, with no batch piped
     * @throws io.epochal.errors.GuaranteeNotDeliverableException if the pipeline cannot deliver its guarantee
     */
    public PipelineTestDriver<T> build() {
      return new PipelineTestDriver<>(this);
    }

    private static void requireUnset(Object current, String option) {
      if (current != null) {
        throw new IllegalStateException(option + " was already set to " + current);
      }
    }
  }

  // ------------------------------------------------------------------------------------------------ driving

  /**
   * Queues one batch: the next {@link #step()} commits exactly these records under the next txid.
   *
   * @param records the batch's records, in order (copied; may be empty for an empty batch)
   */
  public void pipeInput(List<? extends T> records) {
    requireOpen();
    List<T> copy = List.copyOf(records);
    synchronized (batches) {
      batches.add(copy);
    }
  }

  /**
   * Queues one batch of {@code records}; see {@link #pipeInput(List)}.
   *
   * @param records the batch's records, in order
   */
  @SafeVarargs
  public final void pipeInput(T... records) {
    List<T> batch = new ArrayList<>(records.length);
    for (T record : records) {
      batch.add(record);
    }
    pipeInput(batch);
  }

  /** @return batches piped but not yet committed */
  public int pendingBatches() {
    synchronized (batches) {
      return (int) (batches.size() - pipeline.lastCommittedTxid());
    }
  }

  /**
   * Commits the next piped batch (one txid), replaying it through any scheduled faults and restarting the pipeline
   * after a simulated crash.
   *
   * @return the committed batch's report (its attempts count the replays of the last incarnation)
   * @throws NoSuchElementException if no batch is pending
   * @throws io.epochal.errors.EpochalException if the pipeline stopped (retries exhausted, state ahead, ...)
   */
  public BatchReport step() {
    requireOpen();
    if (pendingBatches() == 0) {
      throw new NoSuchElementException("no batch to step: pipe one with pipeInput(..) first");
    }
    long before = pipeline.lastCommittedTxid();
    for (int restarts = 0; ; restarts++) {
      try {
        RunSummary summary = pipeline.run(1);
        if (summary.lastTxid() == before) {
          throw new IllegalStateException("the pipeline committed nothing although batch " + (before + 1)
              + " is pending");
        }
        return reports.get(reports.size() - 1);
      } catch (SimulatedCrash crash) {
        if (restarts == maxRestarts) {
          throw new AssertionError("pipeline still crashing after " + maxRestarts + " restarts", crash);
        }
        restart(crash);
        long committed = pipeline.lastCommittedTxid();
        if (committed > before) { // the process died after the checkpoint landed: the batch is committed
          List<T> batch;
          synchronized (batches) {
            batch = batches.get((int) committed - 1);
          }
          BatchReport report = new BatchReport(committed, 1, batch.size(), 0);
          reports.add(report);
          return report;
        }
      }
    }
  }

  /**
   * Commits every pending batch, as {@link #step()} does one.
   *
   * @return the reports of the batches committed by this call, in txid order (empty if none was pending)
   */
  public List<BatchReport> stepAll() {
    List<BatchReport> out = new ArrayList<>();
    while (pendingBatches() > 0) {
      out.add(step());
    }
    return out;
  }

  /** @return the last committed txid (0 before the first step) */
  public long committedTxid() {
    return pipeline.lastCommittedTxid();
  }

  /** @return the reports of every committed batch, in txid order */
  public List<BatchReport> reports() {
    return List.copyOf(reports);
  }

  // ------------------------------------------------------------------------------------------------ inspecting

  /**
   * Reads every value a captured stream published.
   *
   * @param <R> the stream's record type
   * @param name the name given to {@link TestOutputs#capture}
   * @return every value captured under {@code name} by committed batches, in txid order (within a batch, in
   *     partition order)
   * @throws IllegalArgumentException if no stream is captured under {@code name}
   */
  public <R> List<R> output(String name) {
    return outputs.all(name);
  }

  /**
   * Reads the values one committed batch published to a captured stream.
   *
   * @param <R> the stream's record type
   * @param name the name given to {@link TestOutputs#capture}
   * @param txid the batch
   * @return the values captured under {@code name} by batch {@code txid}, empty if it captured none
   * @throws IllegalArgumentException if no stream is captured under {@code name}
   */
  public <R> List<R> output(String name, long txid) {
    return outputs.ofBatch(name, txid);
  }

  /**
   * Reads the values a captured stream published since the last call for it, like reading a topic.
   *
   * @param <R> the stream's record type
   * @param name the name given to {@link TestOutputs#capture}
   * @return the values captured under {@code name} since the last call of this method for it
   * @throws IllegalArgumentException if no stream is captured under {@code name}
   */
  public <R> List<R> readOutput(String name) {
    return outputs.unread(name);
  }

  /**
   * The latest value per key of a captured stream of {@link KeyValue}s (a new-values stream), in key order when keys
   * are comparable.
   *
   * @param <K> the key type
   * @param <V> the value type
   * @param name the name given to {@link TestOutputs#capture}
   * @return each key's value in the latest committed batch that emitted it
   * @throws ClassCastException if the stream's records are not {@link KeyValue}s
   */
  public <K, V> Map<K, V> outputAsMap(String name) {
    return outputs.latestPerKey(name);
  }

  /**
   * Reads keys of a map state as the next batch would see them: each key through a fresh state of its partition,
   * made by {@code factory} (the factory the topology declared the state with, e.g. {@code TransactionalMap.factory(
   * store)}; the read does not touch the pipeline's own state instances).
   *
   * @param <K> the key type
   * @param <V> the value type
   * @param factory the factory the topology declared the state with
   * @param stateName the state's name in the pipeline (table-backed states derive their table from it)
   * @param keys the keys to read
   * @return the keys that have a value, each with its value
   */
  public <K, V> Map<K, V> read(StateFactory<? extends ReadOnlyMapState<K, V>> factory, String stateName,
      Collection<? extends K> keys) {
    requireOpen();
    Objects.requireNonNull(factory, "factory");
    Objects.requireNonNull(stateName, "stateName");
    return StateReads.readMap(factory, checkpoints, name, stateName, partitions, pipeline.lastCommittedTxid(), keys);
  }

  /**
   * Reads one key of a map state (see {@link #read(StateFactory, String, Collection)}).
   *
   * @param <K> the key type
   * @param <V> the value type
   * @param factory the factory the topology declared the state with
   * @param stateName the state's name in the pipeline
   * @param key the key to read
   * @return the key's value, or empty if it has none
   */
  public <K, V> Optional<V> read(StateFactory<? extends ReadOnlyMapState<K, V>> factory, String stateName, K key) {
    return Optional.ofNullable(read(factory, stateName, List.of(key)).get(key));
  }

  /** @return the fault injector the driver's spout and checkpoint store go through */
  public FaultInjector faults() {
    return faults;
  }

  /** @return what happened so far: emissions, writes through wrapped stores, faults, failed attempts, commits */
  public ReplayTimeline timeline() {
    return faults.timeline();
  }

  /** @return the backoff the coordinator waited, in virtual time */
  public Duration virtualTime() {
    return Duration.ofNanos(virtualNanos.get());
  }

  /** @return the pipeline under test (its metrics, guarantee) */
  public Pipeline pipeline() {
    return pipeline;
  }

  /** Closes the pipeline. Idempotent. */
  @Override
  public void close() {
    if (!closed) {
      closed = true;
      pipeline.close();
    }
  }

  private void requireOpen() {
    if (closed) {
      throw new IllegalStateException("the test driver is closed");
    }
  }

  // ------------------------------------------------------------------------------------------------ machinery

  private Pipeline buildPipeline() {
    PipelineBuilder builder = Pipeline.newBuilder(name)
        .partitions(partitions)
        .guarantee(guarantee)
        .retryPolicy(retryPolicy)
        .sleeper(d -> virtualNanos.addAndGet(d.toNanos()))
        .listener(faults.timeline().listener())
        .listener(new PipelineListener() {
          @Override
          public void onBatchCommitted(BatchReport report) {
            reports.add(report);
          }
        })
        .checkpointStore(faults.wrap(checkpoints));
    topology.declare(builder.source(spout), outputs.forIncarnation());
    return builder.build();
  }

  private void restart(SimulatedCrash crash) {
    long committed = pipeline.lastCommittedTxid();
    pipeline.close();
    outputs.discardStaged(); // the dead process's unpublished outputs die with it
    incarnation++;
    faults.timeline().restarted(incarnation, "the process died (" + crash.getMessage() + ") with txid " + committed
        + " committed");
    pipeline = buildPipeline();
    pipeline.run(0); // a restarted process starts its pipeline: the sinks publish what the outbox kept
  }

  /** Emits piped batch {@code i} as the batch after batch {@code i - 1}; replays emit the same records. */
  private final class InputSpout implements TransactionalSpout<T, Long> {
    @Override
    public String name() {
      return "test-input";
    }

    @Override
    public Codec<Long> metadataCodec() {
      return Codecs.longs();
    }

    @Override
    public Optional<Long> nextBatch(long txid, Optional<Long> previous) {
      long next = previous.map(i -> i + 1).orElse(0L);
      synchronized (batches) {
        return next < batches.size() ? Optional.of(next) : Optional.empty();
      }
    }

    @Override
    public void emit(BatchAttempt attempt, Long index, Collector<T> out) {
      List<T> batch;
      synchronized (batches) {
        batch = batches.get(index.intValue());
      }
      for (T record : batch) {
        out.emit(record);
      }
    }
  }
}
