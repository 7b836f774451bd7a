package io.epochal.spouts;

import io.epochal.api.Evolving;
import io.epochal.codec.Codec;
import io.epochal.spout.BatchAttempt;
import io.epochal.spout.Collector;
import io.epochal.spout.TransactionalSpout;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A transactional, replayable in-memory spout over a list of records that may grow. Batch {@code txid} is the
 * {@link Range} of the next at most {@code batchSize} records after batch {@code txid - 1}'s range; a batch exists
 * as soon as one record follows it.
 *
 * <p><b>Replay promise:</b> transactional. Records are only ever appended, never changed or removed, so the same
 * range emits the same records in the same order on every call. A range beyond the current list (metadata from a
 * longer list, for example after a restart with fewer records) throws
 * {@link io.epochal.errors.SourceChangedException}.
 *
 * <p><b>Thread-safety:</b> thread-safe; {@link #append} and {@link #appendAll} may be called from any thread while
 * the engine runs the spout. Records are emitted outside the internal lock.
 *
 * <p><b>Nulls:</b> null arguments and null records throw {@link NullPointerException}; no record is ever
 * {@code null}.
 *
 * @param <T> the record type; records are emitted as the same instances, so use immutable records
 * @since 0.1.0
 */
@Evolving
public final class ListSpout<T> implements TransactionalSpout<T, Range> {
  private final String name;
  private final int batchSize;
  private final Object lock = new Object();
  private final ArrayList<T> records = new ArrayList<>(); // guarded by lock

  private ListSpout(String name, int batchSize) {
    this.name = Objects.requireNonNull(name, "name");
    this.batchSize = Ranges.checkBatchSize(batchSize, "batchSize of spout " + name);
  }

  /**
   * A spout over a copy of {@code records}, to which more may be appended.
   *
   * @param name the spout name, unique within the pipeline
   * @param records the initial records, copied; no {@code null} element
   * @param batchSize the maximum number of records per batch, {@code >= 1}
   * @param <T> the record type
   * @return a new spout
   * @throws NullPointerException if an argument or a record is {@code null}
   * @throws IllegalArgumentException if {@code batchSize < 1}
   */
  public static <T> ListSpout<T> of(String name, List<? extends T> records, int batchSize) {
    ListSpout<T> spout = new ListSpout<>(name, batchSize);
    spout.appendAll(records);
    return spout;
  }

  /**
   * An empty spout that records are appended to later.
   *
   * @param name the spout name, unique within the pipeline
   * @param batchSize the maximum number of records per batch, {@code >= 1}
   * @param <T> the record type
   * @return a new spout
   * @throws NullPointerException if {@code name} is {@code null}
   * @throws IllegalArgumentException if {@code batchSize < 1}
   */
  public static <T> ListSpout<T> empty(String name, int batchSize) {
    return new ListSpout<>(name, batchSize);
  }

  /**
   * Appends one record; it becomes part of the next batch with room for it.
   *
   * @param record the record
   * @throws NullPointerException if {@code record} is {@code null}
   */
  public void append(T record) {
    Objects.requireNonNull(record, "record");
    synchronized (lock) {
      records.add(record);
    }
  }

  /**
   * Appends records in order, atomically: a concurrent batch sees all of them or none.
   *
   * @param more the records, in order
   * @throws NullPointerException if {@code more} or one of its elements is {@code null} (then nothing is appended)
   */
  public void appendAll(Collection<? extends T> more) {
    List<T> copy = new ArrayList<>(Objects.requireNonNull(more, "records"));
    for (int i = 0; i < copy.size(); i++) {
      if (copy.get(i) == null) {
        throw new NullPointerException("record " + i + " of " + copy.size() + " is null");
      }
    }
    synchronized (lock) {
      records.addAll(copy);
    }
  }

  /** @return the number of records appended so far */
  public long size() {
    synchronized (lock) {
      return records.size();
    }
  }

  /** @return the maximum number of records per batch */
  public int batchSize() {
    return batchSize;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public Codec<Range> metadataCodec() {
    return Range.codec();
  }

  /**
   * {@inheritDoc}
   *
   * @throws io.epochal.errors.SourceChangedException if {@code previous} ends beyond the list
   */
  @Override
  public Optional<Range> nextBatch(long txid, Optional<Range> previous) {
    Objects.requireNonNull(previous, "previous");
    return Ranges.next(name, txid, previous, size(), batchSize);
  }

  /**
   * {@inheritDoc}
   *
   * @throws io.epochal.errors.SourceChangedException if {@code metadata} ends beyond the list
   */
  @Override
  public void emit(BatchAttempt attempt, Range metadata, Collector<T> out) {
    Objects.requireNonNull(attempt, "attempt");
    Objects.requireNonNull(metadata, "metadata");
    Objects.requireNonNull(out, "out");
    List<T> batch;
    synchronized (lock) {
      Ranges.checkAvailable(name, attempt, metadata, records.size());
      batch = new ArrayList<>(records.subList((int) metadata.start(), (int) metadata.end()));
    }
    for (T record : batch) {
      out.emit(record);
    }
  }

  @Override
  public String toString() {
    return "ListSpout(" + name + ", " + size() + " records, batchSize " + batchSize + ")";
  }
}
