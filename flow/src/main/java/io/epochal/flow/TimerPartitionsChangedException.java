package io.epochal.flow;

import io.epochal.api.Evolving;
import io.epochal.errors.EpochalException;
import io.epochal.errors.ErrorContext;
import java.util.Objects;

/**
 * A pipeline with timers was built with another partition count than the one its pending timers were written with.
 * Timer rows carry the engine partition that owns them, so under another count some timers would never fire and
 * others would fire in a partition that does not hold their key's states: the pipeline refuses to build instead.
 * Not retryable. {@link #context()} names the pipeline and the timer table that recorded the count.
 *
 * <p>Immutable once thrown.
 *
 * @since 0.5.0
 */
@Evolving
public final class TimerPartitionsChangedException extends EpochalException {
  private static final long serialVersionUID = 1L;

  /** The name of the pipeline that refused to build. */
  private final String pipeline;
  /** The name of the Flow computation that declares the timers. */
  private final String computation;
  /** The name of the timer spec whose pending timers were written under another partition count. */
  private final String timers;
  /** The path of the timer table that recorded the partition count. */
  private final String table;
  /** The partition count the pending timers were written with. */
  private final int storedPartitions;
  /** The partition count the pipeline is being built with. */
  private final int configuredPartitions;

  /**
   * Creates the exception, with a message that names both counts and how to recover.
   *
   * @param pipeline the pipeline
   * @param computation the Flow computation declaring the timers
   * @param timers the name of the timer spec
   * @param table the path of the table that recorded the partition count
   * @param storedPartitions the partition count the timers were written with
   * @param configuredPartitions the partition count the pipeline is built with
   */
  public TimerPartitionsChangedException(String pipeline, String computation, String timers, String table,
      int storedPartitions, int configuredPartitions) {
    super("Pipeline '" + pipeline + "': the timers '" + timers + "' of computation '" + computation + "' were "
        + "written by the pipeline with " + storedPartitions + " partitions (recorded in table " + table + "), but it "
        + "is now built with " + configuredPartitions + ". Timer rows carry the engine partition, so under another "
        + "partition count some timers would never fire and others would fire without their key's states. Build "
        + "the pipeline with .partitions(" + storedPartitions + ") again; to change the partition count, let the "
        + "pending timers fire (or delete them) under " + storedPartitions + " partitions, then drop the tables "
        + "of these timers.", null, false,
        ErrorContext.NONE.withPipeline(Objects.requireNonNull(pipeline, "pipeline"))
            .withTable(Objects.requireNonNull(table, "table")));
    this.pipeline = pipeline;
    this.computation = Objects.requireNonNull(computation, "computation");
    this.timers = Objects.requireNonNull(timers, "timers");
    this.table = table;
    this.storedPartitions = storedPartitions;
    this.configuredPartitions = configuredPartitions;
  }

  /** @return the pipeline's name */
  public String pipeline() {
    return pipeline;
  }

  /** @return the computation's name */
  public String computation() {
    return computation;
  }

  /** @return the timer spec's name */
  public String timers() {
    return timers;
  }

  /** @return the path of the table that recorded the partition count */
  public String table() {
    return table;
  }

  /** @return the partition count the pending timers were written with */
  public int storedPartitions() {
    return storedPartitions;
  }

  /** @return the partition count the pipeline is built with */
  public int configuredPartitions() {
    return configuredPartitions;
  }
}
