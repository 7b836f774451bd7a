package io.epochal.store.ytsaurus.internal;

import io.epochal.store.table.Row;
import io.epochal.store.table.TableKey;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.BiFunction;

/**
 * The hook by which the epoch commit of a pipeline on a {@code YtTableStore} carries queue-consumer advances: one
 * instance per store. A queue spout configured with {@code advanceConsumerIn(store, pipeline)} {@linkplain #stage
 * stages} the advances of batch {@code txid} when it emits the batch (each emission replaces what the previous attempt
 * staged) and {@linkplain #committed drops} them when the batch is committed.
 *
 * <p>A pinned tablet transaction of the store asks {@link #forCommit} just before {@code commit_transaction}. The
 * transaction is the epoch commit of batch {@code t} of pipeline {@code P} exactly when it upserts {@code P}'s row of a
 * checkpoint table (a table whose schema attribute {@code epochal.layout} is {@code checkpoint:v1}, the layout
 * {@code TableCheckpointStore} documents: key {@code pipeline}, value {@code committed_txid}) with
 * {@code committed_txid = t} while the row, read in the same transaction, holds {@code t - 1}: only
 * {@code TableCheckpointStore.commit} moves the committed txid, so other writes of the row (pending metadata, attempt
 * reservations) carry nothing. The transaction then sends the staged advances of {@code (P, t)} with
 * {@code advance_queue_consumer(..., transaction_id)} before it commits: the consumer, the states and the checkpoint
 * commit or fail together.
 *
 * <p>Thread-safe.
 */
public final class ConsumerAdvances {
  /** The schema attribute and value that mark the checkpoint table of a {@code TableCheckpointStore}. */
  static final String LAYOUT_ATTRIBUTE = "epochal.layout";
  static final String CHECKPOINT_LAYOUT = "checkpoint:v1";
  static final String PIPELINE_COLUMN = "pipeline";
  static final String COMMITTED_TXID_COLUMN = "committed_txid";

  /**
   * One {@code advance_queue_consumer} call.
   *
   * @param pipeline the pipeline whose epoch carries it
   * @param consumerPath the consumer
   * @param queuePath the queue
   * @param partition the tablet index
   * @param oldOffset the offset the consumer must hold (the batch's range start)
   * @param newOffset the offset to set (the range end)
   */
  public record Advance(String pipeline, String consumerPath, String queuePath, int partition, long oldOffset,
      long newOffset) {
    /**
     * Checks the offsets.
     *
     * @param pipeline the pipeline whose epoch carries it
     * @param consumerPath the consumer
     * @param queuePath the queue
     * @param partition the tablet index, {@code >= 0}
     * @param oldOffset the offset the consumer must hold (the batch's range start), {@code >= 0}
     * @param newOffset the offset to set (the range end), {@code >= oldOffset}
     * @throws NullPointerException if a path or the pipeline is null
     * @throws IllegalArgumentException if the partition or an offset is out of range
     */
    public Advance {
      Objects.requireNonNull(pipeline, "pipeline");
      Objects.requireNonNull(consumerPath, "consumerPath");
      Objects.requireNonNull(queuePath, "queuePath");
      if (partition < 0 || oldOffset < 0 || newOffset < oldOffset) {
        throw new IllegalArgumentException("bad advance of partition " + partition + " from " + oldOffset + " to "
            + newOffset);
      }
    }
  }

  /**
   * A commit that carries advances: the pipeline and txid it commits, and the advances in staging order.
   *
   * @param pipeline the pipeline whose epoch the commit carries
   * @param txid the batch the commit commits
   * @param advances the advances the commit's transaction makes, in staging order
   */
  public record EpochCommit(String pipeline, long txid, List<Advance> advances) {
  }

  /** Per pipeline, per spout, per txid: the advances of the latest emission. Guarded by {@code this}. */
  private final Map<String, Map<String, TreeMap<Long, List<Advance>>>> staged = new HashMap<>();
  /** Per pipeline: the txids an epoch commit was found for (it may still have failed). Guarded by {@code this}. */
  private final Map<String, java.util.TreeSet<Long>> carried = new HashMap<>();

  /**
   * Stages the advances of the current emission of batch {@code txid} of {@code spout} in {@code pipeline},
   * replacing what an earlier attempt staged.
   *
   * @param pipeline the pipeline emitting the batch
   * @param spout the spout's name in the pipeline
   * @param txid the batch emitted
   * @param advances the consumer advances the batch's epoch commit must carry; copied
   */
  public synchronized void stage(String pipeline, String spout, long txid, List<Advance> advances) {
    TreeMap<Long, List<Advance>> bySpout = staged.computeIfAbsent(pipeline, p -> new HashMap<>())
        .computeIfAbsent(spout, s -> new TreeMap<>());
    bySpout.put(txid, List.copyOf(advances));
  }

  /**
   * Drops what {@code spout} staged for {@code txid} (its emission failed); nothing happens if it staged nothing.
   *
   * @param pipeline the pipeline emitting the batch
   * @param spout the spout's name in the pipeline
   * @param txid the batch whose emission failed
   */
  public synchronized void unstage(String pipeline, String spout, long txid) {
    Map<String, TreeMap<Long, List<Advance>>> p = staged.get(pipeline);
    if (p != null && p.containsKey(spout)) {
      p.get(spout).remove(txid);
    }
  }

  /**
   * Batch {@code txid} of {@code pipeline} committed: drops everything staged up to it.
   *
   * @param pipeline the pipeline that committed
   * @param txid the batch committed
   * @return the txids up to {@code txid} whose staged advances no transaction of this store carried (their epoch was
   *     committed elsewhere: a misconfiguration, the consumer did not move); normally empty
   */
  public synchronized List<Long> committed(String pipeline, long txid) {
    List<Long> missed = new ArrayList<>();
    Map<String, TreeMap<Long, List<Advance>>> p = staged.get(pipeline);
    java.util.TreeSet<Long> seen = carried.getOrDefault(pipeline, new java.util.TreeSet<>());
    if (p != null) {
      for (TreeMap<Long, List<Advance>> bySpout : p.values()) {
        Map<Long, List<Advance>> done = bySpout.headMap(txid, true);
        done.forEach((t, list) -> {
          if (!list.isEmpty() && !seen.contains(t) && !missed.contains(t)) {
            missed.add(t);
          }
        });
        done.clear();
      }
    }
    seen.headSet(txid, true).clear();
    return missed;
  }

  /** @return the advances staged for {@code (pipeline, txid)}, in spout order; empty if none */
  synchronized List<Advance> staged(String pipeline, long txid) {
    Map<String, TreeMap<Long, List<Advance>>> p = staged.get(pipeline);
    List<Advance> out = new ArrayList<>();
    if (p != null) {
      new TreeMap<>(p).values().forEach(bySpout -> out.addAll(bySpout.getOrDefault(txid, List.of())));
    }
    return out;
  }

  private synchronized boolean stagesAnything() {
    for (Map<String, TreeMap<Long, List<Advance>>> p : staged.values()) {
      for (TreeMap<Long, List<Advance>> bySpout : p.values()) {
        if (!bySpout.isEmpty()) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * Finds the epoch commits among a transaction's writes that carry staged advances.
   *
   * @param writes the transaction's writes per table (a {@code null} row is a delete)
   * @param lookup reads a row in the same transaction (its snapshot)
   * @return the epoch commits (normally none or one) with their advances
   */
  public List<EpochCommit> forCommit(Map<YtTable, LinkedHashMap<TableKey, Row>> writes,
      BiFunction<YtTable, TableKey, Optional<Row>> lookup) {
    if (!stagesAnything()) {
      return List.of();
    }
    List<EpochCommit> out = new ArrayList<>();
    for (Map.Entry<YtTable, LinkedHashMap<TableKey, Row>> e : writes.entrySet()) {
      YtTable table = e.getKey();
      if (!CHECKPOINT_LAYOUT.equals(table.schema().attributes().get(LAYOUT_ATTRIBUTE))) {
        continue;
      }
      for (Map.Entry<TableKey, Row> w : e.getValue().entrySet()) {
        Row row = w.getValue();
        if (row == null || !(w.getKey().get(PIPELINE_COLUMN) instanceof String pipeline)) {
          continue;
        }
        long txid = row.getLong(COMMITTED_TXID_COLUMN);
        List<Advance> advances = staged(pipeline, txid);
        if (advances.isEmpty()) {
          continue;
        }
        long stored = lookup.apply(table, w.getKey()).map(r -> r.getLong(COMMITTED_TXID_COLUMN)).orElse(0L);
        if (stored == txid - 1) {
          out.add(new EpochCommit(pipeline, txid, advances));
          synchronized (this) {
            carried.computeIfAbsent(pipeline, x -> new java.util.TreeSet<>()).add(txid);
          }
        } else if (stored >= txid) {
          committed(pipeline, stored); // a commit that landed without its success being heard: drop its staging
        }
      }
    }
    return out;
  }
}
