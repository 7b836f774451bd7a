package io.epochal.spout;

import io.epochal.codec.Codec;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;

/** {@link Spouts#partitioned(PartitionedOpaqueSpout)}. Stateless apart from the delegate. */
final class PartitionedOpaqueAdapter<T, P> implements OpaqueSpout<T, PartitionedMetadata<P>> {
  private final PartitionedOpaqueSpout<T, P> spout;
  private final Codec<PartitionedMetadata<P>> codec;

  PartitionedOpaqueAdapter(PartitionedOpaqueSpout<T, P> spout) {
    this.spout = spout;
    this.codec = PartitionedMetadata.codec(
        Objects.requireNonNull(spout.partitionMetadataCodec(), "partitionMetadataCodec of " + spout.name()));
  }

  @Override
  public String name() {
    return spout.name();
  }

  @Override
  public Codec<PartitionedMetadata<P>> metadataCodec() {
    return codec;
  }

  @Override
  public boolean isReady(long txid, Optional<PartitionedMetadata<P>> previous) {
    Objects.requireNonNull(previous, "previous");
    PartitionedMetadata<P> prev = previous.orElseGet(PartitionedMetadata::empty);
    for (String partition : PartitionSets.current(spout.name(), spout.partitions(), prev, txid)) {
      if (spout.hasMore(partition, prev.get(partition))) {
        return true;
      }
    }
    return false;
  }

  @Override
  public PartitionedMetadata<P> emit(BatchAttempt attempt, Optional<PartitionedMetadata<P>> previous,
      Collector<T> out) {
    Objects.requireNonNull(attempt, "attempt");
    Objects.requireNonNull(previous, "previous");
    Objects.requireNonNull(out, "out");
    PartitionedMetadata<P> prev = previous.orElseGet(PartitionedMetadata::empty);
    TreeMap<String, P> next = new TreeMap<>(prev.partitions());
    TreeSet<String> inBatch = new TreeSet<>();
    for (String partition : PartitionSets.current(spout.name(), spout.partitions(), prev, attempt.txid())) {
      Optional<P> from = prev.get(partition);
      if (spout.hasMore(partition, from)) {
        P after = spout.emitPartitionBatch(attempt, partition, from, out);
        next.put(partition, Objects.requireNonNull(after,
            () -> "Spout " + spout.name() + " returned a null position for partition " + partition + ", " + attempt));
        inBatch.add(partition);
      }
    }
    return inBatch.isEmpty() ? prev : new PartitionedMetadata<>(next, inBatch);
  }

  @Override
  public void close() {
    spout.close();
  }

  @Override
  public String toString() {
    return "partitioned(" + spout.name() + ")";
  }
}
