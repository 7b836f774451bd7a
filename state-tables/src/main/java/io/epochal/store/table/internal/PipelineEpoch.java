package io.epochal.store.table.internal;

import io.epochal.errors.EpochalException;
import io.epochal.errors.ErrorContext;
import io.epochal.store.Checkpoint;
import io.epochal.store.table.CommitProtocol;
import io.epochal.store.table.EpochBuffer;
import io.epochal.store.table.Lease;
import io.epochal.store.table.Row;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableKey;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * One pipeline's lease and epoch buffer. Under the epoch protocol the buffer holds every state write of the current
 * attempt (per table, last write of a key wins; a delete is a marker) until {@link #commit} writes it
 * with the checkpoint row in one store transaction under the lease, or {@link #abort} drops it. Thread-safe
 * (partitions write concurrently; the buffer is guarded by {@code this}). Internal.
 */
public final class PipelineEpoch implements EpochBuffer {
  private static final long UNTAGGED = 0;

  private final Epochs epochs;
  private final String pipeline;
  private final Lease lease;
  /** Buffered writes per table path, in first-write order. Guarded by {@code this}. */
  private final LinkedHashMap<String, Buffered> buffer = new LinkedHashMap<>();
  /** The txid the buffered writes were declared for through {@code openEpoch(pipeline, attempt)}, else UNTAGGED. */
  private long tag = UNTAGGED;

  /** A buffered delete (a buffered upsert is its {@link Row}); no {@code Optional} per buffered write. */
  private static final Object DELETED = new Object();

  private static final class Buffered {
    final Table table;
    /** By key, a {@link Row} or {@link #DELETED}. */
    final LinkedHashMap<TableKey, Object> writes;

    Buffered(Table table, int expected) {
      this.table = table;
      this.writes = new LinkedHashMap<>(Math.max(16, (int) (expected / 0.75f) + 1)); // presized: no rehash per batch
    }
  }

  PipelineEpoch(Epochs epochs, String pipeline, Lease lease) {
    this.epochs = epochs;
    this.pipeline = pipeline;
    this.lease = lease;
  }

  @Override
  public String pipeline() {
    return pipeline;
  }

  @Override
  public CommitProtocol protocol() {
    return epochs.protocol();
  }

  @Override
  public io.epochal.store.table.TableStore store() {
    return epochs.store();
  }

  @Override
  public String tablePrefix() {
    return epochs.tablePrefix();
  }

  @Override
  public void claim(String path, String claimant) {
    epochs.claim(Objects.requireNonNull(path, "path"), Objects.requireNonNull(claimant, "claimant"));
  }

  /** @return the lease this pipeline writes under */
  public Lease lease() {
    return lease;
  }

  /**
   * Declares that the caller writes for batch {@code txid}.
   *
   * @param txid the batch whose attempt opens the epoch, at least 1
   * @return this epoch state, now tagged with {@code txid}
   * @throws IllegalArgumentException if {@code txid < 1}
   * @throws IllegalStateException if the buffer holds writes declared for another txid (neither committed nor
   *     aborted: a protocol bug)
   */
  public synchronized PipelineEpoch forTxid(long txid) {
    if (txid < 1) {
      throw new IllegalArgumentException("txid must be at least 1, was " + txid);
    }
    if (tag != UNTAGGED && tag != txid && !buffer.isEmpty()) {
      throw new IllegalStateException("pipeline '" + pipeline + "': the epoch buffer holds writes of txid " + tag
          + ", neither committed nor aborted, and txid " + txid + " starts writing");
    }
    tag = txid;
    return this;
  }

  @Override
  public List<Optional<Row>> lookup(Table table, List<TableKey> keys) {
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(keys, "keys");
    int n = keys.size();
    @SuppressWarnings("unchecked")
    Optional<Row>[] out = new Optional[n];
    int[] missAt = new int[n];
    int missCount = 0;
    synchronized (this) {
      Buffered b = buffer.get(table.path());
      for (int i = 0; i < n; i++) {
        TableKey key = Objects.requireNonNull(keys.get(i), "key");
        Object written = b == null ? null : b.writes.get(key);
        if (written != null) {
          out[i] = written == DELETED ? Optional.empty() : Optional.of((Row) written);
        } else {
          missAt[missCount++] = i;
        }
      }
    }
    if (missCount == n) {
      return Collections.unmodifiableList(epochs.store().lookup(table, keys));
    }
    if (missCount > 0) {
      List<TableKey> misses = new ArrayList<>(missCount);
      for (int i = 0; i < missCount; i++) {
        misses.add(keys.get(missAt[i]));
      }
      List<Optional<Row>> stored = epochs.store().lookup(table, misses);
      for (int i = 0; i < missCount; i++) {
        out[missAt[i]] = stored.get(i);
      }
    }
    return Collections.unmodifiableList(Arrays.asList(out));
  }

  @Override
  public void write(Table table, Collection<Row> upserts, Collection<TableKey> deletes) {
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(upserts, "upserts");
    Objects.requireNonNull(deletes, "deletes");
    if (upserts.isEmpty() && deletes.isEmpty()) {
      return;
    }
    for (Row r : upserts) {
      checkFits(table, Objects.requireNonNull(r, "row").key());
    }
    for (TableKey k : deletes) {
      checkFits(table, Objects.requireNonNull(k, "key"));
    }
    if (epochs.protocol() == CommitProtocol.PER_KEY) {
      try (StoreTransaction tx = epochs.store().begin(lease)) {
        tx.upsert(table, upserts);
        tx.delete(table, deletes);
        tx.commit();
      }
      return;
    }
    synchronized (this) {
      Buffered b = buffer.get(table.path());
      if (b == null) {
        b = new Buffered(table, upserts.size() + deletes.size());
        buffer.put(table.path(), b);
      } else if (!b.table.schema().equals(table.schema())) {
        throw new EpochalException("pipeline '" + pipeline + "': table " + table.path() + " is written with two "
            + "schemas in one epoch (two states declare the table differently)", null, false,
            ErrorContext.of(table.path(), null).withPipeline(pipeline));
      }
      for (Row r : upserts) {
        b.writes.put(r.key(), r);
      }
      for (TableKey k : deletes) {
        b.writes.put(k, DELETED);
      }
    }
  }

  /** @return the number of buffered row writes (for tests and metrics) */
  public synchronized int bufferedWrites() {
    int n = 0;
    for (Buffered b : buffer.values()) {
      n += b.writes.size();
    }
    return n;
  }

  /**
   * Writes the buffered rows of every table and the checkpoint of batch {@code txid} (with its sink outputs in the
   * outbox) in one store transaction under the lease. The buffer is emptied whatever the outcome (a failed attempt is replayed and buffers again).
   */
  void commit(long txid, byte[] metadata, List<io.epochal.store.OutboxEntry> outbox) {
    List<Buffered> drained;
    long drainedTag;
    synchronized (this) {
      drained = new ArrayList<>(buffer.values());
      drainedTag = tag;
      buffer.clear();
      tag = UNTAGGED;
    }
    if (drainedTag != UNTAGGED && drainedTag != txid && !drained.isEmpty()) {
      throw new IllegalStateException("pipeline '" + pipeline + "': commit of txid " + txid
          + " but the epoch buffer holds writes of txid " + drainedTag + "; nothing written");
    }
    try (StoreTransaction tx = epochs.store().begin(lease)) {
      Checkpoint next = epochs.next(pipeline, epochs.base(tx, pipeline), txid, metadata, outbox);
      for (Buffered b : drained) {
        List<Row> upserts = new ArrayList<>(b.writes.size());
        List<TableKey> deletes = new ArrayList<>();
        for (Map.Entry<TableKey, Object> e : b.writes.entrySet()) {
          if (e.getValue() instanceof Row r) {
            upserts.add(r);
          } else {
            deletes.add(e.getKey());
          }
        }
        tx.upsert(b.table, upserts);
        tx.delete(b.table, deletes);
      }
      epochs.commitCheckpoint(tx, pipeline, next);
    } catch (RuntimeException e) {
      epochs.forget(pipeline);
      throw e;
    }
  }

  /** Drops the buffer: the attempt of {@code txid} failed. */
  synchronized void abort(long txid) {
    buffer.clear();
    tag = UNTAGGED;
  }

  private void checkFits(Table table, TableKey key) {
    if (!key.schema().equals(table.schema())) {
      throw new EpochalException("pipeline '" + pipeline + "': key " + key + " does not belong to table "
          + table.path() + " (it was made for another schema)", null, false,
          ErrorContext.of(table.path(), key.describeParts()).withPipeline(pipeline));
    }
  }

  @Override
  public String toString() {
    return "PipelineEpoch[" + pipeline + ", " + epochs.protocol() + ", " + lease + "]";
  }
}
