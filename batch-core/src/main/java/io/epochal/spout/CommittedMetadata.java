package io.epochal.spout;

import io.epochal.api.Stable;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The metadata of a partitioned spout's last committed batch, for {@link LagReporting} implementations: the
 * coordinator thread {@linkplain #remember remembers} each batch's metadata when it is cut or emitted and marks it
 * {@linkplain #committed committed} in {@code success(txid)}; any thread reads {@link #last()}. Until this process
 * commits a batch, {@link #seed} gives the metadata the spout was first handed (the checkpoint's, after a restart).
 *
 * <p>Thread-safe: writers synchronize on this object; {@link #last()} reads a volatile snapshot.
 *
 * @param <P> the per-partition metadata type, an immutable value
 * @since 0.5.0
 */
@Stable
public final class CommittedMetadata<P> {
  /** Metadata of batches cut or emitted but not committed yet, by txid. */
  private final TreeMap<Long, PartitionedMetadata<P>> inFlight = new TreeMap<>();
  private volatile Optional<PartitionedMetadata<P>> last = Optional.empty();
  private boolean committedHere;

  /**
   * Takes {@code previous} (the metadata the engine handed a coordinator call) as the committed metadata if no batch
   * was committed through this object yet.
   *
   * @param previous the metadata given to the spout; empty before any batch
   */
  public synchronized void seed(Optional<PartitionedMetadata<P>> previous) {
    Objects.requireNonNull(previous, "previous");
    if (!committedHere && last.isEmpty() && previous.isPresent()) {
      last = previous;
    }
  }

  /**
   * Remembers the metadata of batch {@code txid} (a replay replaces it) until it commits.
   *
   * @param txid the batch's txid
   * @param metadata the metadata cut or emitted for that batch, not null
   */
  public synchronized void remember(long txid, PartitionedMetadata<P> metadata) {
    inFlight.put(txid, Objects.requireNonNull(metadata, "metadata"));
  }

  /**
   * Batch {@code txid} committed: its metadata becomes {@link #last()}; older batches are forgotten. A txid never
   * {@linkplain #remember remembered} here leaves {@link #last()} unchanged.
   *
   * @param txid the committed batch's txid, as given to {@code success(txid)}
   */
  public synchronized void committed(long txid) {
    PartitionedMetadata<P> metadata = inFlight.get(txid);
    inFlight.headMap(txid, true).clear();
    if (metadata != null) {
      committedHere = true;
      last = Optional.of(metadata);
    }
  }

  /** @return the metadata of the last committed batch, or of the seed; empty if neither is known */
  public Optional<PartitionedMetadata<P>> last() {
    return last;
  }
}
