package io.epochal.pipeline.internal;

import io.epochal.store.CheckpointStore;
import java.util.SortedMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pending metadata of transactional batches: what the checkpoint recovered (batches fixed but not committed by
 * an earlier process, replayed with exactly that metadata) and what new batches record before they are emitted.
 * Used by the coordinator thread only.
 */
final class PendingBatches implements BatchSource.Pending {
  private static final Logger LOG = LoggerFactory.getLogger(PendingBatches.class);

  private final String pipeline;
  private final CheckpointStore checkpoints;
  private SortedMap<Long, byte[]> recovered;

  PendingBatches(String pipeline, CheckpointStore checkpoints, SortedMap<Long, byte[]> recovered) {
    this.pipeline = pipeline;
    this.checkpoints = checkpoints;
    this.recovered = recovered;
  }

  @Override
  public byte[] recovered(long txid) {
    byte[] metadata = recovered.get(txid);
    if (metadata != null) {
      LOG.info("pipeline '{}' replays recovered batch txid {} with its recorded metadata", pipeline, txid);
    }
    return metadata;
  }

  @Override
  public void record(long txid, byte[] metadata) {
    checkpoints.recordPending(pipeline, txid, metadata);
  }

  /** Forgets the recovered metadata up to the committed {@code txid}. */
  void committed(long txid) {
    if (!recovered.isEmpty()) {
      recovered = recovered.tailMap(txid + 1);
    }
  }

  /** How many recovered batches are still to be replayed. */
  int size() {
    return recovered.size();
  }
}
