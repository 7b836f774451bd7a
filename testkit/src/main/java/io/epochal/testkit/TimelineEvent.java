package io.epochal.testkit;

import io.epochal.api.Evolving;
import java.util.List;
import java.util.Objects;

/**
 * One step of a recorded run (see {@link ReplayTimeline}).
 *
 * <p>Immutable.
 *
 * @param seq the step's number in the run, from 1
 * @param incarnation the process incarnation it happened in (0 for the first start, +1 per simulated crash)
 * @param txid the batch, 0 when none (a restart)
 * @param attempt the batch's attempt in this incarnation, 0 when unknown or none
 * @param partition the state partition, -1 when none or unknown
 * @param kind what happened
 * @param keys for {@link Kind#WROTE}: the keys written, in write order; for {@link Kind#READ}: the keys read; for
 *     {@link Kind#LOST_WRITE}: the keys whose read-back differs; empty otherwise
 * @param detail a human-readable description (records emitted, cells written, the fault or the cause)
 * @since 0.1.0
 */
@Evolving
public record TimelineEvent(int seq, int incarnation, long txid, int attempt, int partition, Kind kind,
    List<Object> keys, String detail) {

  /** What a step did. */
  public enum Kind {
    /** The spout emitted an attempt of a batch. */
    EMITTED,
    /** A backing map or map state answered a read: the values it returned, {@code (absent)} for missing keys. */
    READ,
    /** A state wrote cells (one {@code multiPut} of a backing map, or one update of a map state). */
    WROTE,
    /**
     * Read back right after a {@code multiPut}, the backing map does not hold what it was just given (a dropped key,
     * a lost write, a cache that does not see its writes): the detail shows what it holds.
     */
    LOST_WRITE,
    /** A new owner took the pipeline's lease over (a zombie fault); the stale worker's commit follows. */
    LEASE_TAKEN,
    /** The store refused a stale worker's commit after its lease was taken over (as it must); the worker dies. */
    FENCED,
    /** The store accepted a stale worker's commit after its lease was taken over: a fencing violation. */
    FENCING_VIOLATED,
    /** A scheduled fault fired. */
    FAULT,
    /** The coordinator gave up an attempt and will replay the batch. */
    ATTEMPT_FAILED,
    /** The batch is committed (its checkpoint is written). */
    COMMITTED,
    /**
     * The process died; the harness builds a new pipeline, over the same store objects or over stores reopened from
     * their durable part (the detail says which).
     */
    RESTARTED,
    /** The pipeline stopped with an error that is not a scheduled fault. */
    STOPPED
  }

  /**
   * Validates the step and copies its keys.
   *
   * @param seq the step's number in the run, from 1
   * @param incarnation the process incarnation it happened in
   * @param txid the batch, 0 when none
   * @param attempt the batch's attempt in this incarnation, 0 when unknown or none
   * @param partition the state partition, -1 when none or unknown
   * @param kind what happened
   * @param keys the keys the step concerns, possibly empty
   * @param detail a human-readable description
   * @throws NullPointerException if {@code kind}, {@code keys} (or one of them) or {@code detail} is null
   */
  public TimelineEvent {
    Objects.requireNonNull(kind, "kind");
    keys = List.copyOf(keys);
    Objects.requireNonNull(detail, "detail");
  }

  /** @return this step as one numbered line of a timeline */
  public String render() {
    StringBuilder b = new StringBuilder();
    b.append(String.format("%3d. ", seq));
    if (txid > 0) {
      b.append("txid ").append(txid);
      if (attempt > 0) {
        b.append(" attempt ").append(attempt);
      }
      if (partition >= 0) {
        b.append(" partition ").append(partition);
      }
      b.append(": ");
    }
    b.append(switch (kind) {
      case EMITTED -> "emitted ";
      case READ -> "read ";
      case WROTE -> "wrote ";
      case LOST_WRITE -> "LOST WRITE: read back ";
      case LEASE_TAKEN -> "LEASE TAKEN OVER: ";
      case FENCED -> "fenced: ";
      case FENCING_VIOLATED -> "FENCING VIOLATED: ";
      case FAULT -> "FAULT ";
      case ATTEMPT_FAILED -> "attempt failed: ";
      case COMMITTED -> "committed";
      case RESTARTED -> "RESTART: ";
      case STOPPED -> "STOPPED: ";
    });
    b.append(detail);
    return b.toString();
  }

  @Override
  public String toString() {
    return render();
  }
}
