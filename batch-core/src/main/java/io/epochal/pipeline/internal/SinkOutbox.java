package io.epochal.pipeline.internal;

import io.epochal.spout.BatchAttempt;
import io.epochal.state.Epoch;
import io.epochal.store.Outbox;
import io.epochal.store.OutboxEntry;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The outputs the sinks of one batch attempt staged in the epoch's outbox, collected by the executor and handed to
 * the checkpoint commit: each sink sees the attempt's epoch with an {@link Outbox} of its own in the staging
 * ({@link #epochFor}). Thread-safe (partitions stage concurrently). Internal.
 */
final class SinkOutbox {
  private record Slot(String sink, int partition) {
  }

  private final Epoch epoch;
  private final boolean kept;
  private final ConcurrentHashMap<Slot, byte[]> staged = new ConcurrentHashMap<>();

  /**
   * @param epoch the attempt's epoch
   * @param kept whether the checkpoint store keeps an outbox (else the sinks' epochs offer none)
   */
  SinkOutbox(Epoch epoch, boolean kept) {
    this.epoch = Objects.requireNonNull(epoch, "epoch");
    this.kept = kept;
  }

  /** The attempt's epoch as sink {@code sink} sees it: with its own outbox in the staging, if the store keeps one. */
  Epoch epochFor(String sink) {
    Outbox outbox = (partition, payload) -> {
      if (partition < 0) {
        throw new IllegalArgumentException("partition must be >= 0, was " + partition);
      }
      staged.put(new Slot(sink, partition), payload.clone());
    };
    return new Epoch() {
      @Override
      public String pipeline() {
        return epoch.pipeline();
      }

      @Override
      public BatchAttempt attempt() {
        return epoch.attempt();
      }

      @Override
      public <T> Optional<T> staging(Class<T> type) {
        if (kept && type == Outbox.class) {
          return Optional.of(type.cast(outbox));
        }
        return epoch.staging(type);
      }

      @Override
      public String toString() {
        return epoch + ", sink '" + sink + "'";
      }
    };
  }

  /** @return the staged entries, by sink name, then partition */
  List<OutboxEntry> entries() {
    List<OutboxEntry> out = new ArrayList<>(staged.size());
    staged.forEach((slot, payload) -> out.add(new OutboxEntry(slot.sink(), epoch.txid(), slot.partition(), payload)));
    out.sort(Comparator.comparing(OutboxEntry::sink).thenComparingInt(OutboxEntry::partition));
    return out;
  }
}
