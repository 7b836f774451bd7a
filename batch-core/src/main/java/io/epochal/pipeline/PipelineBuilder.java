package io.epochal.pipeline;

import io.epochal.api.Stable;
import io.epochal.pipeline.internal.Coordinator;
import io.epochal.pipeline.internal.Graph;
import io.epochal.pipeline.internal.GuaranteeCheck;
import io.epochal.spout.Spout;
import io.epochal.store.CheckpointStore;
import io.epochal.store.InMemoryCheckpointStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Declares a pipeline: settings, then its sources and the operations on them, then {@link #build()}.
 *
 * <p>Each setting may be set once ({@link IllegalStateException} otherwise) and is validated at once
 * ({@link IllegalArgumentException}). Settings must come before {@link #source}. {@link #build()} checks that the
 * requested {@link Guarantee} is deliverable and never changes the builder. Not thread-safe.
 *
 * @since 0.1.0
 */
@Stable
public final class PipelineBuilder {
  private final String name;
  private final Graph graph = new Graph();
  private Integer partitions;
  private Integer threads;
  private Integer maxBatchesInFlight;
  private RetryPolicy retryPolicy;
  private Guarantee guarantee;
  private CheckpointStore checkpointStore;
  private Sleeper sleeper;
  private final List<PipelineListener> listeners = new ArrayList<>();
  private boolean sourced;

  PipelineBuilder(String name) {
    Objects.requireNonNull(name, "name");
    if (name.isBlank()) {
      throw new IllegalArgumentException("pipeline name must not be blank");
    }
    this.name = name;
  }

  /**
   * State partitions (default 1): keys are spread by contiguous ranges of {@code farm_hash(key)} ({@link Partitioner}).
   *
   * @param partitions the number of partitions of every keyed node and state, at least 1
   * @return this builder
   * @throws IllegalStateException if already set, or set after {@link #source}
   * @throws IllegalArgumentException if {@code partitions < 1}
   */
  public PipelineBuilder partitions(int partitions) {
    requireUnset(this.partitions, "partitions");
    requireBeforeSource("partitions");
    requirePositive(partitions, "partitions");
    this.partitions = partitions;
    graph.partitions(partitions);
    return this;
  }

  /**
   * Worker threads for the process phase and per-partition commits (default 1: everything on the caller).
   *
   * @param threads the number of worker threads, at least 1
   * @return this builder
   * @throws IllegalStateException if already set
   * @throws IllegalArgumentException if {@code threads < 1}
   */
  public PipelineBuilder threads(int threads) {
    requireUnset(this.threads, "threads");
    requirePositive(threads, "threads");
    this.threads = threads;
    return this;
  }

  /**
   * Batches whose processing may overlap (default 1); commits stay in txid order.
   *
   * @param maxBatchesInFlight the most batches started and not committed at once, at least 1
   * @return this builder
   * @throws IllegalStateException if already set
   * @throws IllegalArgumentException if {@code maxBatchesInFlight < 1}
   */
  public PipelineBuilder maxBatchesInFlight(int maxBatchesInFlight) {
    requireUnset(this.maxBatchesInFlight, "maxBatchesInFlight");
    requirePositive(maxBatchesInFlight, "maxBatchesInFlight");
    this.maxBatchesInFlight = maxBatchesInFlight;
    return this;
  }

  /**
   * Retries of a failed batch (default {@link RetryPolicy#defaults()}).
   *
   * @param retryPolicy how often a failed batch is retried and how long to wait between attempts, not null
   * @return this builder
   * @throws IllegalStateException if already set
   */
  public PipelineBuilder retryPolicy(RetryPolicy retryPolicy) {
    requireUnset(this.retryPolicy, "retryPolicy");
    this.retryPolicy = Objects.requireNonNull(retryPolicy, "retryPolicy");
    return this;
  }

  /**
   * The required guarantee (default {@link Guarantee#EXACTLY_ONCE}); weaker ones are explicit opt-ins.
   *
   * @param guarantee the delivery guarantee {@link #build()} checks the sources and states against, not null
   * @return this builder
   * @throws IllegalStateException if already set
   */
  public PipelineBuilder guarantee(Guarantee guarantee) {
    requireUnset(this.guarantee, "guarantee");
    this.guarantee = Objects.requireNonNull(guarantee, "guarantee");
    return this;
  }

  /**
   * Where committed txids and spout metadata live (default: a new {@link InMemoryCheckpointStore}).
   *
   * @param checkpointStore the store of the pipeline's checkpoint (and of its epochs' staging, if it offers any), not
   *     null
   * @return this builder
   * @throws IllegalStateException if already set
   */
  public PipelineBuilder checkpointStore(CheckpointStore checkpointStore) {
    requireUnset(this.checkpointStore, "checkpointStore");
    this.checkpointStore = Objects.requireNonNull(checkpointStore, "checkpointStore");
    return this;
  }

  /**
   * How the coordinator waits between retries (default {@link Sleeper#system()}); tests pass a virtual one.
   *
   * @param sleeper waits for the retry policy's backoffs, not null
   * @return this builder
   * @throws IllegalStateException if already set
   */
  public PipelineBuilder sleeper(Sleeper sleeper) {
    requireUnset(this.sleeper, "sleeper");
    this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
    return this;
  }

  /**
   * Adds a listener (progress, metrics); may be called any number of times.
   *
   * @param listener called on the coordinator thread as batches commit or fail, not null
   * @return this builder
   */
  public PipelineBuilder listener(PipelineListener listener) {
    listeners.add(Objects.requireNonNull(listener, "listener"));
    return this;
  }

  /**
   * Declares a source. A pipeline may have several (e.g. shows and clicks, combined with {@link Stream#merge}): each
   * txid is then one batch made of one batch of each source, and every source's metadata commits in the same epoch.
   * The guarantee check covers each source with each state its records reach.
   *
   * @param spout the source's spout; its name must be unique among the pipeline's spouts
   * @param <T> the record type
   * @return the stream of the spout's records
   * @throws IllegalArgumentException if another source has the same spout name
   */
  public <T> Stream<T> source(Spout<T, ?> spout) {
    Stream<T> stream = graph.source(spout);
    sourced = true;
    return stream;
  }

  /**
   * Builds the pipeline and loads its checkpoint.
   *
   * @return the built pipeline, resuming after the checkpoint's committed txid; close it when done
   * @throws io.epochal.errors.GuaranteeNotDeliverableException if {@link Guarantee#EXACTLY_ONCE} is requested and
   *     the spout, a state or the store cannot deliver it (the message names the spout, the state and the fix)
   * @throws io.epochal.errors.StagingUnavailableException if a state needs a staging (e.g. a table state's
   *     {@code EpochBuffer}) the pipeline's checkpoint store does not offer
   * @throws IllegalStateException if no source was declared
   */
  public Pipeline build() {
    Graph.Snapshot snapshot = graph.snapshot();
    Guarantee requested = guarantee == null ? Guarantee.EXACTLY_ONCE : guarantee;
    CheckpointStore checkpoints = checkpointStore == null ? new InMemoryCheckpointStore() : checkpointStore;
    GuaranteeCheck.validate(name, requested, snapshot, checkpoints);
    Coordinator.Config config = new Coordinator.Config(name,
        partitions == null ? 1 : partitions,
        threads == null ? 1 : threads,
        maxBatchesInFlight == null ? 1 : maxBatchesInFlight,
        retryPolicy == null ? RetryPolicy.defaults() : retryPolicy,
        requested,
        checkpoints,
        List.copyOf(listeners),
        sleeper == null ? Sleeper.system() : sleeper);
    return new Coordinator(config, snapshot);
  }

  private void requireBeforeSource(String setting) {
    if (sourced) {
      throw new IllegalStateException(setting + " must be set before source(...)");
    }
  }

  private static void requireUnset(Object current, String setting) {
    if (current != null) {
      throw new IllegalStateException(setting + " was already set to " + current);
    }
  }

  private static void requirePositive(int value, String setting) {
    if (value < 1) {
      throw new IllegalArgumentException(setting + " must be >= 1, was " + value);
    }
  }
}
