package io.epochal.store;

import io.epochal.api.Stable;
import io.epochal.spout.BatchAttempt;
import io.epochal.state.Epoch;
import io.epochal.state.EpochSource;
import io.epochal.state.StateContext;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Opens and commits a pipeline's epochs by hand, as the engine does, for tests and benchmarks that drive states
 * without a pipeline: make the states with {@link #context}, then per batch {@code epoch = open(t)}, the states'
 * {@code begin(epoch) → updates → end()}, and {@link #commit(byte[])} (or {@link #abort()} and the states'
 * {@code abort()}). Attempts of one txid are numbered 1, 2, ... Open, commit and abort from one thread.
 *
 * @since 0.3.0
 */
@Stable
public final class ManualEpochs implements EpochSource {
  private final CheckpointStore store;
  private final String pipeline;
  private final Map<Long, Integer> attempts = new HashMap<>();
  private volatile CheckpointEpoch current;

  /**
   * @param store the checkpoint store whose epochs are opened (a table checkpoint store for table-backed states)
   * @param pipeline the pipeline's name
   */
  public ManualEpochs(CheckpointStore store, String pipeline) {
    this.store = Objects.requireNonNull(store, "store");
    this.pipeline = Objects.requireNonNull(pipeline, "pipeline");
  }

  /**
   * Makes the context of one state partition, whose staging is what these epochs' store offers.
   *
   * @param stateName the state's name, unique within the pipeline (used as the table name)
   * @param partition the state partition, in {@code [0, partitions)}
   * @param partitions the number of state partitions, at least 1
   * @return the context of partition {@code partition} of state {@code stateName}, bound to these epochs
   * @throws IllegalArgumentException if {@code partition} is out of range
   */
  public StateContext context(String stateName, int partition, int partitions) {
    return new StateContext(pipeline, stateName, partition, partitions, this);
  }

  /**
   * Opens the next attempt of batch {@code txid}.
   *
   * @param txid the batch's txid
   * @return the epoch of the next attempt at {@code txid} (attempt 1 unless an earlier attempt of it was aborted)
   * @throws IllegalStateException if an epoch is open
   */
  public CheckpointEpoch open(long txid) {
    if (current != null) {
      throw new IllegalStateException(current + " is still open");
    }
    int attempt = attempts.merge(txid, 1, Integer::sum);
    current = store.openEpoch(pipeline, new BatchAttempt(txid, attempt));
    return current;
  }

  /**
   * Commits the open epoch with {@code metadata}: the batch is durable; no epoch is open afterwards.
   *
   * @param metadata the batch's encoded spout metadata, not null
   * @throws IllegalStateException if no epoch is open
   */
  public void commit(byte[] metadata) {
    CheckpointEpoch e = requireOpen();
    current = null;
    e.commit(metadata);
    attempts.remove(e.txid());
  }

  /** Aborts the open epoch; no epoch is open afterwards. */
  public void abort() {
    CheckpointEpoch e = requireOpen();
    current = null;
    e.abort();
  }

  /** @return the epoch open now, if any */
  public Optional<Epoch> current() {
    return Optional.ofNullable(current);
  }

  /** @return what the store's epochs of the pipeline offer ({@link CheckpointStore#staging}) */
  @Override
  public <T> Optional<T> staging(Class<T> type) {
    return store.staging(pipeline, type);
  }

  private CheckpointEpoch requireOpen() {
    CheckpointEpoch e = current;
    if (e == null) {
      throw new IllegalStateException("no epoch of pipeline '" + pipeline + "' is open");
    }
    return e;
  }
}
