package io.epochal.state.internal;

import io.epochal.spout.BatchAttempt;
import io.epochal.state.Epoch;
import java.util.Objects;
import java.util.Optional;

/**
 * An epoch with no staging ({@link Epoch#of}, {@link Epoch#readAfter}). Internal: not an API. Immutable.
 *
 * @param pipeline the pipeline's name
 * @param attempt the batch and attempt
 * @param readOnly whether map states refuse writes in it
 */
public record PlainEpoch(String pipeline, BatchAttempt attempt, boolean readOnly) implements Epoch {
  /**
   * Checks that the pipeline and the attempt are not null.
   *
   * @param pipeline the pipeline's name, not null
   * @param attempt the batch and attempt, not null
   * @param readOnly whether map states refuse writes in it
   */
  public PlainEpoch {
    Objects.requireNonNull(pipeline, "pipeline");
    Objects.requireNonNull(attempt, "attempt");
  }

  @Override
  public <T> Optional<T> staging(Class<T> type) {
    Objects.requireNonNull(type, "type");
    return Optional.empty();
  }

  @Override
  public String toString() {
    return (readOnly ? "read-only epoch after txid " + (attempt.txid() - 1) : "epoch " + attempt) + " of pipeline '"
        + pipeline + "'";
  }
}
