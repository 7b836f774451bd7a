package io.epochal.store;

import java.util.Arrays;
import java.util.Collections;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A pipeline's persisted progress: the last committed txid with the spout metadata of that batch, and the metadata
 * of batches that were started but not committed (recorded for transactional spouts so that a replay after a crash
 * emits the same records under the same txid).
 *
 * @param committedTxid the last committed txid, 0 if none
 * @param committedMetadata the encoded spout metadata of batch {@code committedTxid}; empty array if none
 * @param pendingMetadata encoded metadata of started, uncommitted batches, by txid (all greater than committed)
 */
public record Checkpoint(long committedTxid, byte[] committedMetadata, SortedMap<Long, byte[]> pendingMetadata) {

  /** The progress of a pipeline that never committed a batch. */
  public static final Checkpoint EMPTY = new Checkpoint(0, new byte[0], new TreeMap<>());

  public Checkpoint {
    if (committedTxid < 0) {
      throw new IllegalArgumentException("committedTxid must be >= 0, was " + committedTxid);
    }
    Objects.requireNonNull(committedMetadata, "committedMetadata");
    TreeMap<Long, byte[]> copy = new TreeMap<>(Objects.requireNonNull(pendingMetadata, "pendingMetadata"));
    if (!copy.isEmpty() && copy.firstKey() <= committedTxid) {
      throw new IllegalArgumentException("pending txid " + copy.firstKey() + " is not after committed txid "
          + committedTxid);
    }
    pendingMetadata = Collections.unmodifiableSortedMap(copy);
  }

  /** @return whether any batch was ever committed */
  public boolean hasCommitted() {
    return committedTxid > 0;
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof Checkpoint other) || other.committedTxid != committedTxid
        || !Arrays.equals(other.committedMetadata, committedMetadata)
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
        + pendingMetadata.keySet() + "]";
  }
}
