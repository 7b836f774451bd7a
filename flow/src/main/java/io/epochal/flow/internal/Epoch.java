package io.epochal.flow.internal;

import io.epochal.store.table.EpochBuffer;

/**
 * One partition's epoch: batch {@code txid} between the partition's {@code begin(epoch)} and {@code end()} or
 * {@code abort()}.
 * Accessors remember their epoch and refuse to work once it has ended. Internal.
 */
final class Epoch {
  final long txid;
  final EpochBuffer buffer;
  private volatile boolean ended;

  Epoch(long txid, EpochBuffer buffer) {
    this.txid = txid;
    this.buffer = buffer;
  }

  void end() {
    ended = true;
  }

  boolean ended() {
    return ended;
  }

  @Override
  public String toString() {
    return "epoch " + txid + (ended ? " (ended)" : "");
  }
}
