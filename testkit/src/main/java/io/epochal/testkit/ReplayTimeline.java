package io.epochal.testkit;

import io.epochal.api.Evolving;
import io.epochal.pipeline.BatchReport;
import io.epochal.pipeline.Partitioner;
import io.epochal.pipeline.PipelineListener;
import io.epochal.spout.BatchAttempt;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The numbered record of one replayed run: emissions, what states returned on reads, cells written (with their
 * partition) and, where a write reads back differently, what the store holds instead; faults fired, lease takeovers,
 * failed attempts, commits and restarts. Filled by the {@link FaultInjector} wrappers (what each {@code multiPut} wrote,
 * which fault fired) and by the {@link PipelineListener} of {@link #listener()} (attempts and commits); rendered into
 * the report of a failed {@link ReplayCheck}.
 *
 * <p>Attempt numbers are per incarnation, as the engine counts them: a restarted process starts every batch again at
 * attempt 1.
 *
 * <p>Thread-safe (partitions may write concurrently; their steps are numbered in the order they were recorded).
 *
 * @since 0.1.0
 */
@Evolving
public final class ReplayTimeline {
  /** Cells shown per write before the rest is summarized. */
  private static final int MAX_CELLS_SHOWN = 8;
  private static final int MAX_RECORDS_SHOWN = 12;

  private final List<TimelineEvent> events = new ArrayList<>();
  private final Map<Long, Integer> attempts = new HashMap<>();
  private int incarnation;
  private volatile int partitions = 1;
  private String restartNote = "rebuilds the pipeline over the same stores";

  /** Creates an empty timeline. */
  public ReplayTimeline() {
  }

  /**
   * Sets how many state partitions the pipeline has, so that written keys are shown with their partition.
   *
   * @param partitions the pipeline's partition count, at least 1 (default 1)
   * @throws IllegalArgumentException if {@code partitions < 1}
   */
  public void partitions(int partitions) {
    if (partitions < 1) {
      throw new IllegalArgumentException("partitions must be >= 1, was " + partitions);
    }
    this.partitions = partitions;
  }

  /** @return every step so far, in order */
  public synchronized List<TimelineEvent> events() {
    return List.copyOf(events);
  }

  /** @return the current incarnation (0 before the first restart) */
  public synchronized int incarnation() {
    return incarnation;
  }

  /**
   * Tells which attempt of a batch runs now, from the emissions and failures recorded.
   *
   * @param txid the batch
   * @return the attempt of batch {@code txid} that runs now in this incarnation (1 if none was seen)
   */
  public synchronized int attemptOf(long txid) {
    return attempts.getOrDefault(txid, 1);
  }

  /** @return a listener that records failed attempts and commits; add it to the pipeline under test */
  public PipelineListener listener() {
    return new PipelineListener() {
      @Override
      public void onBatchCommitted(BatchReport report) {
        committed(report);
      }

      @Override
      public void onAttemptFailed(BatchAttempt attempt, Throwable cause) {
        attemptFailed(attempt, cause);
      }
    };
  }

  /**
   * Records an emission of {@code attempt} with its records.
   *
   * @param attempt the txid and attempt number emitted
   * @param records the emitted records (the step shows the first few)
   */
  public synchronized void emitted(BatchAttempt attempt, List<?> records) {
    attempts.put(attempt.txid(), attempt.attempt());
    add(attempt.txid(), attempt.attempt(), -1, TimelineEvent.Kind.EMITTED, List.of(),
        records.size() + " record(s) " + abbreviate(records, MAX_RECORDS_SHOWN));
  }

  /**
   * Records that {@code cells} were written for batch {@code txid} (its current attempt).
   *
   * @param txid the batch that wrote
   * @param cells the written cells by key; one step per partition of the keys
   */
  public void wrote(long txid, Map<?, ?> cells) {
    byPartition(txid, TimelineEvent.Kind.WROTE, new ArrayList<>(cells.keySet()), cells);
  }

  /**
   * Records that {@code cells} were written for batch {@code txid}, and what the store held when read back right
   * after: keys whose read-back differs from what was written get a {@link TimelineEvent.Kind#LOST_WRITE} step.
   *
   * @param txid the batch that wrote
   * @param cells the written cells by key
   * @param held the read-back of the written keys (a key the store does not hold is missing)
   * @since 0.3.0
   */
  public void wrote(long txid, Map<?, ?> cells, Map<?, ?> held) {
    wrote(txid, cells);
    List<Object> differs = new ArrayList<>();
    Map<Object, Object> heldValues = new LinkedHashMap<>();
    for (Map.Entry<?, ?> e : cells.entrySet()) {
      Object back = held.get(e.getKey());
      if (!Objects.equals(back, e.getValue())) {
        differs.add(e.getKey());
        if (back != null) {
          heldValues.put(e.getKey(), back);
        }
      }
    }
    byPartition(txid, TimelineEvent.Kind.LOST_WRITE, differs, heldValues);
  }

  /**
   * Records what a read of batch {@code txid} returned: the value of each key of {@code keys}, {@code (absent)} for
   * the keys {@code result} does not have.
   *
   * @param txid the batch that read
   * @param keys the keys read, in the order to show them
   * @param result the values found, by key
   * @since 0.3.0
   */
  public void read(long txid, Collection<?> keys, Map<?, ?> result) {
    byPartition(txid, TimelineEvent.Kind.READ, new ArrayList<>(keys), result);
  }

  private void byPartition(long txid, TimelineEvent.Kind kind, List<?> keysInOrder, Map<?, ?> values) {
    if (keysInOrder.isEmpty()) {
      return;
    }
    int n = partitions;
    Map<Integer, List<Object>> byPartition = new TreeMap<>();
    for (Object key : keysInOrder) {
      byPartition.computeIfAbsent(partitionOf(key, n), p -> new ArrayList<>()).add(key);
    }
    synchronized (this) {
      for (Map.Entry<Integer, List<Object>> part : byPartition.entrySet()) {
        List<Object> keys = new ArrayList<>();
        StringBuilder detail = new StringBuilder();
        for (Object key : part.getValue()) {
          if (keys.size() < MAX_CELLS_SHOWN) {
            Object value = values.get(key);
            detail.append(keys.isEmpty() ? "" : ", ").append(key).append(" = ")
                .append(value == null ? "(absent)" : String.valueOf(value));
          }
          keys.add(key);
        }
        if (keys.size() > MAX_CELLS_SHOWN) {
          detail.append(", ... (").append(keys.size() - MAX_CELLS_SHOWN).append(" more)");
        }
        if (kind == TimelineEvent.Kind.LOST_WRITE) {
          detail.append(" (not what was written)");
        }
        add(txid, attemptOf(txid), part.getKey(), kind, keys, detail.toString());
      }
    }
  }

  /**
   * Records that a new owner took the pipeline's lease over before batch {@code txid}'s commit (a zombie fault).
   *
   * @param txid the batch whose commit the stale worker is about to make
   * @param detail what happened, e.g. the lease and its new owner
   * @since 0.3.0
   */
  public synchronized void leaseTaken(long txid, String detail) {
    add(txid, attemptOf(txid), -1, TimelineEvent.Kind.LEASE_TAKEN, List.of(), detail);
  }

  /**
   * Records that the store refused the stale worker's commit of batch {@code txid} (as a fenced store must).
   *
   * @param txid the batch whose commit was refused
   * @param detail what the store said, e.g. the exception
   * @since 0.3.0
   */
  public synchronized void fenced(long txid, String detail) {
    add(txid, attemptOf(txid), -1, TimelineEvent.Kind.FENCED, List.of(), detail);
  }

  /**
   * Records that the store accepted a stale worker's commit of batch {@code txid} after its lease was taken over.
   *
   * @param txid the batch whose stale commit landed
   * @param detail what landed, for the report
   * @since 0.3.0
   */
  public synchronized void fencingViolated(long txid, String detail) {
    add(txid, attemptOf(txid), -1, TimelineEvent.Kind.FENCING_VIOLATED, List.of(), detail);
  }

  /**
   * Sets what a restart does to the stores, shown on each {@link TimelineEvent.Kind#RESTARTED} step (default
   * {@code "rebuilds the pipeline over the same stores"}).
   *
   * @param note what a restart does, e.g. {@code "reopens the store from its directory"}
   * @since 0.3.0
   */
  public synchronized void restartNote(String note) {
    this.restartNote = Objects.requireNonNull(note, "note");
  }

  /**
   * Records that {@code fault} fired in batch {@code txid}.
   *
   * @param fault the fault that fired
   * @param txid the batch it fired in
   */
  public synchronized void fault(Fault fault, long txid) {
    add(txid, attemptOf(txid), -1, TimelineEvent.Kind.FAULT, List.of(), fault.toString());
  }

  /**
   * Records that the coordinator gave up {@code attempt} because of {@code cause}; the batch's next attempt is
   * counted from it.
   *
   * @param attempt the failed txid and attempt number
   * @param cause why it failed
   */
  public synchronized void attemptFailed(BatchAttempt attempt, Throwable cause) {
    attempts.put(attempt.txid(), attempt.attempt() + 1);
    add(attempt.txid(), attempt.attempt(), -1, TimelineEvent.Kind.ATTEMPT_FAILED, List.of(), String.valueOf(cause));
  }

  /**
   * Records the commit of a batch.
   *
   * @param report the committed batch's txid and attempts
   */
  public synchronized void committed(BatchReport report) {
    add(report.txid(), report.attempts(), -1, TimelineEvent.Kind.COMMITTED, List.of(), "");
  }

  /**
   * Records a process restart: incarnation {@code incarnation} resumes after the committed txid; the attempts seen
   * are forgotten.
   *
   * @param incarnation the new incarnation's number, 1 for the first restart
   * @param why what ended the previous incarnation, e.g. the simulated crash
   */
  public synchronized void restarted(int incarnation, String why) {
    this.incarnation = incarnation;
    attempts.clear();
    add(0, 0, -1, TimelineEvent.Kind.RESTARTED, List.of(), why + "; incarnation " + incarnation
        + " " + restartNote);
  }

  /**
   * Records that the pipeline stopped with {@code error}.
   *
   * @param error what stopped it
   */
  public synchronized void stopped(Throwable error) {
    add(0, 0, -1, TimelineEvent.Kind.STOPPED, List.of(), String.valueOf(error));
  }

  /** @return the numbered timeline, one step per line */
  public String render() {
    StringBuilder b = new StringBuilder();
    for (TimelineEvent e : events()) {
      b.append(e.render()).append('\n');
    }
    return b.toString();
  }

  @Override
  public String toString() {
    return render();
  }

  private void add(long txid, int attempt, int partition, TimelineEvent.Kind kind, List<Object> keys,
      String detail) {
    events.add(new TimelineEvent(events.size() + 1, incarnation, txid, attempt, partition, kind, keys, detail));
  }

  private static int partitionOf(Object key, int partitions) {
    try {
      return Partitioner.partition(key, partitions);
    } catch (RuntimeException e) {
      return -1; // a key type the partitioner does not know (a custom state's own keys)
    }
  }

  private static String abbreviate(List<?> items, int max) {
    if (items.size() <= max) {
      return items.toString();
    }
    return items.subList(0, max).toString().replaceFirst("]$", ", ... (" + (items.size() - max) + " more)]");
  }
}
