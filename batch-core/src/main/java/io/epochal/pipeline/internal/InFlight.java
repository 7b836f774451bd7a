package io.epochal.pipeline.internal;

import io.epochal.spout.BatchAttempt;
import io.epochal.store.CheckpointEpoch;
import java.util.Optional;
import java.util.concurrent.Future;

/** One batch between its first emission and its commit. Used by the coordinator thread only. Internal. */
final class InFlight {
  final long txid;
  /** The attempt number of the current emission; 0 before the first one. */
  int attempt;
  /** How many tries of this batch began (the retry policy counts them). */
  int tries = 1;
  /** The batch's metadata once known (transactional: fixed before emission; opaque: after emission). */
  Optional<Object> meta = Optional.empty();
  byte[] metaBytes;
  /** {@code AT_MOST_ONCE}: the batch's position is recorded as pending, so it is never replayed. */
  boolean positionRecorded;
  /** What the source fixed in {@code open} for its emission (a merged source's shares), else null. */
  Object opened;
  /** How many records the current attempt emitted (the records themselves go to the process phase only). */
  int records;
  Future<Object[]> processed;
  /** Phase timings and staged outputs of the current attempt, for the {@code BatchReport}. */
  long emitNanos;
  /** Written by the worker thread that ran the process phase, read after its future completed. */
  volatile long processNanos;
  long stateNanos;
  long durableNanos;
  long outputs;
  /** The epoch of the current attempt once its commit phase began, else null. */
  CheckpointEpoch epoch;

  InFlight(long txid) {
    this.txid = txid;
  }

  BatchAttempt attemptId() {
    return new BatchAttempt(txid, Math.max(1, attempt));
  }
}
