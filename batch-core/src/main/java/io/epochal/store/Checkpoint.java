package io.epochal.store;

import io.epochal.api.Stable;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A pipeline's persisted progress: the last committed txid with the spout metadata of that batch, the metadata of
 * batches that were started but not committed (recorded for transactional spouts so that a replay after a crash
 * emits the same records under the same txid), and the attempt reservation that keeps attempt numbers growing across
 * restarts (see {@link CheckpointStore#reserveAttempts}), and the outbox: the sink outputs of the committed batch,
 * kept until the next commit so that a restart finishes publishing them ({@link CheckpointStore#keepsOutbox}).
 *
 * @param committedTxid the last committed txid, 0 if none
 * @param committedMetadata the encoded spout metadata of batch {@code committedTxid}; empty array if none
 * @param pendingMetadata encoded metadata of started, uncommitted batches, by txid (all greater than committed)
 * @param attemptCeiling no run of the pipeline numbered an attempt above this; 0 if none was reserved
 * @param txidWindow no run of the pipeline started a txid more than this above the pipeline's committed txid of the
 *     time (its batches in flight), so no run started a txid above {@code committedTxid + txidWindow}; 0 if none was
 *     reserved
 * @param outbox the sink outputs of batch {@code committedTxid} (empty when it had none, or its sinks keep no outbox)
 *
 * @since 0.1.0
 */
@Stable
public record Checkpoint(long committedTxid, byte[] committedMetadata, SortedMap<Long, byte[]> pendingMetadata,
    long attemptCeiling, long txidWindow, List<OutboxEntry> outbox) {

  /** The progress of a pipeline that never committed a batch. */
  public static final Checkpoint EMPTY = new Checkpoint(0, new byte[0], new TreeMap<>());

  /**
   * Checks the components and copies {@code pendingMetadata} and {@code outbox} (the byte arrays are not copied).
   *
   * @param committedTxid the last committed txid, {@code >= 0}, 0 if none
   * @param committedMetadata the encoded spout metadata of batch {@code committedTxid}; empty array if none
   * @param pendingMetadata encoded metadata of started, uncommitted batches, by txid, each above {@code committedTxid}
   * @param attemptCeiling the highest attempt number any run reserved, {@code >= 0}
   * @param txidWindow the most batches in flight any run reserved, {@code >= 0}
   * @param outbox the sink outputs of batch {@code committedTxid}, each entry of that txid
   * @throws IllegalArgumentException if a number is negative, a pending txid is not after {@code committedTxid}, or
   *     an outbox entry is not of batch {@code committedTxid}
   * @throws NullPointerException if an argument is null
   */
  public Checkpoint {
    if (committedTxid < 0) {
      throw new IllegalArgumentException("committedTxid must be >= 0, was " + committedTxid);
    }
    if (attemptCeiling < 0 || txidWindow < 0) {
      throw new IllegalArgumentException("attemptCeiling (" + attemptCeiling + ") and txidWindow (" + txidWindow
          + ") must be >= 0");
    }
    Objects.requireNonNull(committedMetadata, "committedMetadata");
    TreeMap<Long, byte[]> copy = new TreeMap<>(Objects.requireNonNull(pendingMetadata, "pendingMetadata"));
    if (!copy.isEmpty() && copy.firstKey() <= committedTxid) {
      throw new IllegalArgumentException("pending txid " + copy.firstKey() + " is not after committed txid "
          + committedTxid);
    }
    pendingMetadata = Collections.unmodifiableSortedMap(copy);
    outbox = List.copyOf(Objects.requireNonNull(outbox, "outbox"));
    for (OutboxEntry e : outbox) {
      if (e.txid() != committedTxid) {
        throw new IllegalArgumentException("outbox entry " + e + " is not of the committed txid " + committedTxid);
      }
    }
  }

  /**
   * A checkpoint with an empty outbox.
   *
   * @param committedTxid the last committed txid, {@code >= 0}, 0 if none
   * @param committedMetadata the encoded spout metadata of batch {@code committedTxid}; empty array if none
   * @param pendingMetadata encoded metadata of started, uncommitted batches, by txid, each above {@code committedTxid}
   * @param attemptCeiling the highest attempt number any run reserved, {@code >= 0}
   * @param txidWindow the most batches in flight any run reserved, {@code >= 0}
   */
  public Checkpoint(long committedTxid, byte[] committedMetadata, SortedMap<Long, byte[]> pendingMetadata,
      long attemptCeiling, long txidWindow) {
    this(committedTxid, committedMetadata, pendingMetadata, attemptCeiling, txidWindow, List.of());
  }

  /**
   * A checkpoint without an attempt reservation and with an empty outbox.
   *
   * @param committedTxid the last committed txid, {@code >= 0}, 0 if none
   * @param committedMetadata the encoded spout metadata of batch {@code committedTxid}; empty array if none
   * @param pendingMetadata encoded metadata of started, uncommitted batches, by txid, each above {@code committedTxid}
   */
  public Checkpoint(long committedTxid, byte[] committedMetadata, SortedMap<Long, byte[]> pendingMetadata) {
    this(committedTxid, committedMetadata, pendingMetadata, 0, 0);
  }

  /**
   * Raises the attempt reservation.
   *
   * @param attemptCeiling the attempt ceiling the caller reserves
   * @param txidWindow the txid window the caller reserves
   * @return this checkpoint with the attempt reservation raised to at least the given values (never lowered)
   */
  public Checkpoint withReservation(long attemptCeiling, long txidWindow) {
    return new Checkpoint(committedTxid, committedMetadata, pendingMetadata,
        Math.max(this.attemptCeiling, attemptCeiling), Math.max(this.txidWindow, txidWindow), outbox);
  }

  /**
   * Commits a batch without sink outputs; pending metadata up to {@code txid} is dropped.
   *
   * @param txid the committed batch's txid, above {@link #committedTxid()}
   * @param metadata the batch's encoded spout metadata; copied
   * @return the checkpoint after committing batch {@code txid} with {@code metadata} and no sink outputs, keeping the
   *     reservation
   */
  public Checkpoint committed(long txid, byte[] metadata) {
    return committed(txid, metadata, List.of());
  }

  /**
   * Commits a batch with its sink outputs; pending metadata up to {@code txid} is dropped.
   *
   * @param txid the committed batch's txid, above {@link #committedTxid()}
   * @param metadata the batch's encoded spout metadata; copied
   * @param outbox the batch's sink outputs, each entry of batch {@code txid}
   * @return the checkpoint after committing batch {@code txid} with {@code metadata} and the batch's sink outputs
   *     {@code outbox} (replacing the previous batch's), keeping the reservation
   */
  public Checkpoint committed(long txid, byte[] metadata, List<OutboxEntry> outbox) {
    return new Checkpoint(txid, metadata.clone(), new TreeMap<>(pendingMetadata.tailMap(txid + 1)), attemptCeiling,
        txidWindow, outbox);
  }

  /**
   * Records a started batch's metadata.
   *
   * @param txid the started batch's txid, above {@link #committedTxid()}
   * @param metadata the batch's encoded spout metadata; copied; replaces any recorded for {@code txid}
   * @return this checkpoint with {@code metadata} recorded as pending for {@code txid}, keeping the reservation
   */
  public Checkpoint withPending(long txid, byte[] metadata) {
    TreeMap<Long, byte[]> pending = new TreeMap<>(pendingMetadata);
    pending.put(txid, metadata.clone());
    return new Checkpoint(committedTxid, committedMetadata, pending, attemptCeiling, txidWindow, outbox);
  }

  /** @return whether any batch was ever committed */
  public boolean hasCommitted() {
    return committedTxid > 0;
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof Checkpoint other) || other.committedTxid != committedTxid
        || other.attemptCeiling != attemptCeiling || other.txidWindow != txidWindow
        || !Arrays.equals(other.committedMetadata, committedMetadata) || !other.outbox.equals(outbox)
        || !other.pendingMetadata.keySet().equals(pendingMetadata.keySet())) {
      return false;
    }
    return pendingMetadata.entrySet().stream()
        .allMatch(e -> Arrays.equals(e.getValue(), other.pendingMetadata.get(e.getKey())));
  }

  @Override
  public int hashCode() {
    return Long.hashCode(committedTxid) * 31 + Arrays.hashCode(committedMetadata);
  }

  @Override
  public String toString() {
    return "Checkpoint[committedTxid=" + committedTxid + ", metadata=" + committedMetadata.length + " bytes, pending="
        + pendingMetadata.keySet() + ", attemptCeiling=" + attemptCeiling + ", txidWindow=" + txidWindow + ", outbox=" + outbox.size() + " entries]";
  }
}
