package io.epochal.store;

import io.epochal.api.Stable;
import io.epochal.spout.BatchAttempt;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The base of a {@link CheckpointEpoch} layer: forwards every call (pipeline, attempt, staging, the read-only and
 * applied-cells flags, {@link #commit(byte[], List)}, {@link #abort()}) to the wrapped epoch. Override what the layer
 * changes and call {@code super} to keep forwarding; a layer that overrides nothing behaves exactly as the wrapped
 * epoch. Thread-safety is the wrapped epoch's plus the subclass's.
 *
 * @since 0.7.0
 */
@Stable
public abstract class ForwardingCheckpointEpoch implements CheckpointEpoch {
  private final CheckpointEpoch delegate;

  /**
   * A layer over {@code delegate}.
   *
   * @param delegate the wrapped epoch, which receives every call not overridden; not null
   * @throws NullPointerException if {@code delegate} is null
   */
  protected ForwardingCheckpointEpoch(CheckpointEpoch delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
  }

  /** @return the wrapped epoch */
  public final CheckpointEpoch wrapped() {
    return delegate;
  }

  @Override
  public String pipeline() {
    return delegate.pipeline();
  }

  @Override
  public BatchAttempt attempt() {
    return delegate.attempt();
  }

  @Override
  public <T> Optional<T> staging(Class<T> type) {
    return delegate.staging(type);
  }

  @Override
  public boolean readOnly() {
    return delegate.readOnly();
  }

  @Override
  public boolean skipsAppliedCells() {
    return delegate.skipsAppliedCells();
  }

  @Override
  public void commit(byte[] metadata, List<OutboxEntry> outbox) {
    delegate.commit(metadata, outbox);
  }

  @Override
  public void abort() {
    delegate.abort();
  }

  @Override
  public String toString() {
    return delegate.toString();
  }
}
