package io.epochal.spout;

import io.epochal.codec.Codec;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;

/** {@link Spouts#partitioned(PartitionedTransactionalSpout)}. Stateless apart from the delegate. */
final class PartitionedTransactionalAdapter<T, P> implements TransactionalSpout<T, PartitionedMetadata<P>> {
  private final PartitionedTransactionalSpout<T, P> spout;
  private final Codec<PartitionedMetadata<P>> codec;

  PartitionedTransactionalAdapter(PartitionedTransactionalSpout<T, P> spout) {
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
  public Optional<PartitionedMetadata<P>> nextBatch(long txid, Optional<PartitionedMetadata<P>> previous) {
    Objects.requireNonNull(previous, "previous");
    PartitionedMetadata<P> prev = previous.orElseGet(PartitionedMetadata::empty);
    TreeMap<String, P> next = new TreeMap<>(prev.partitions());
    TreeSet<String> inBatch = new TreeSet<>();
    for (String partition : PartitionSets.current(spout.name(), spout.partitions(), prev, txid)) {
      Optional<P> range = spout.nextPartitionBatch(partition, txid, prev.get(partition));
      Objects.requireNonNull(range, () -> "Spout " + spout.name() + " returned null for partition " + partition);
      if (range.isPresent()) {
        next.put(partition, range.get());
        inBatch.add(partition);
      }
    }
    return inBatch.isEmpty() ? Optional.empty() : Optional.of(new PartitionedMetadata<>(next, inBatch));
  }

  @Override
  public void emit(BatchAttempt attempt, PartitionedMetadata<P> metadata, Collector<T> out) {
    Objects.requireNonNull(attempt, "attempt");
    Objects.requireNonNull(metadata, "metadata");
    Objects.requireNonNull(out, "out");
    for (Map.Entry<String, P> e : metadata.batchPartitions().entrySet()) {
      spout.emitPartitionBatch(attempt, e.getKey(), e.getValue(), out);
    }
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
