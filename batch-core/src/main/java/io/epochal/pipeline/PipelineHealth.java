package io.epochal.pipeline;

import io.epochal.api.Stable;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A snapshot of a {@link PipelineService}: its state, the last committed txid and when it committed, how often it
 * restarted, the last failure and, when asked for ({@link PipelineService#healthWithLag()}), each source's lag.
 * Immutable and thread-safe.
 *
 * @param state what the service is doing
 * @param lastCommittedTxid the last txid committed (by this process or, before its first commit, the one it resumed
 *     after); 0 if none
 * @param lastCommitAt when this process last committed a batch; empty before its first commit
 * @param restarts how many times the pipeline was rebuilt after a failure
 * @param lastFailure the last failure (its type and message), also after a successful restart
 * @param sourceLag the lag of each source that can tell it, read by {@link PipelineService#healthWithLag()} from the
 *     running pipeline ({@link Pipeline#sourceLag()}); empty from {@link PipelineService#health()}, which reads no
 *     source, and while no pipeline runs (starting, restarting, stopped)
 *
 * @since 0.1.0
 */
@Stable
public record PipelineHealth(State state, long lastCommittedTxid, Optional<Instant> lastCommitAt, int restarts,
    Optional<String> lastFailure, List<SourceLag> sourceLag) {

  /** What a service is doing. */
  public enum State {
    /** Building the pipeline (first start or restart). */
    STARTING,
    /** Running batches, or waiting for new input. */
    RUNNING,
    /** Waiting for the backoff before a restart after a retryable failure. */
    RESTARTING,
    /** A stop was requested; the batch being committed finishes. */
    STOPPING,
    /** Stopped on request. */
    STOPPED,
    /** Stopped by a failure no restart fixes, or after the restart policy gave up. */
    FAILED
  }

  /**
   * Validates the fields and copies {@code sourceLag}.
   *
   * @param state what the service is doing
   * @param lastCommittedTxid the last txid committed, 0 if none
   * @param lastCommitAt when this process last committed a batch
   * @param restarts how many times the pipeline was rebuilt after a failure
   * @param lastFailure the last failure (its type and message)
   * @param sourceLag the lag of each source that can tell it, as read
   */
  public PipelineHealth {
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(lastCommitAt, "lastCommitAt");
    Objects.requireNonNull(lastFailure, "lastFailure");
    sourceLag = List.copyOf(sourceLag);
  }

  /**
   * The lag summed over every source and partition.
   *
   * @return the total of {@link SourceLag#total()}, or empty if no source's lag was read or one read failed
   * @since 0.5.0
   */
  public OptionalLong lag() {
    if (sourceLag.isEmpty()) {
      return OptionalLong.empty();
    }
    long sum = 0;
    for (SourceLag s : sourceLag) {
      OptionalLong t = s.total();
      if (t.isEmpty()) {
        return OptionalLong.empty();
      }
      sum += t.getAsLong();
    }
    return OptionalLong.of(sum);
  }

  /**
   * Ready for traffic: the pipeline is running.
   *
   * @return whether the state is {@link State#RUNNING}
   */
  public boolean ready() {
    return state == State.RUNNING;
  }

  /**
   * Alive: not failed (a restarting or stopping service is alive).
   *
   * @return whether the state is not {@link State#FAILED}
   */
  public boolean live() {
    return state != State.FAILED;
  }

  /**
   * The age of the last commit.
   *
   * @param now the time to measure at
   * @return the time from the last commit to {@code now}; empty before the first commit
   */
  public Optional<Duration> sinceLastCommit(Instant now) {
    return lastCommitAt.map(at -> Duration.between(at, now));
  }
}
