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
  private final boolean durable;
  private final boolean replaysRecovered;
  private SortedMap<Long, byte[]> recovered;

  /**
   * @param durable whether {@link #record} writes to the checkpoint store ({@code EXACTLY_ONCE}); otherwise it keeps
   *     nothing: a replay in this run reuses the batch's metadata from memory, one after a restart is cut anew
   * @param replaysRecovered whether {@link #recovered} hands out what an earlier run recorded (not under
   *     {@code AT_MOST_ONCE}, which drops those batches instead: see {@link #pendingAt})
   */
  PendingBatches(String pipeline, CheckpointStore checkpoints, SortedMap<Long, byte[]> recovered, boolean durable,
      boolean replaysRecovered) {
    this.pipeline = pipeline;
    this.checkpoints = checkpoints;
    this.recovered = recovered;
    this.durable = durable;
    this.replaysRecovered = replaysRecovered;
  }

  /** The metadata an earlier run recorded for {@code txid} and did not commit, or null; does not consume it. */
  byte[] pendingAt(long txid) {
    return recovered.get(txid);
  }

  @Override
  public byte[] recovered(long txid) {
    if (!replaysRecovered) {
      return null;
    }
    byte[] metadata = recovered.get(txid);
    if (metadata != null) {
      LOG.info("pipeline '{}' replays recovered batch txid {} with its recorded metadata", pipeline, txid);
    }
    return metadata;
  }

  @Override
  public void record(long txid, byte[] metadata) {
    if (durable) {
      checkpoints.recordPending(pipeline, txid, metadata);
    }
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
