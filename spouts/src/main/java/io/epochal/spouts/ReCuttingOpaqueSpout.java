package io.epochal.spouts;

import io.epochal.api.Evolving;
import io.epochal.codec.Codec;
import io.epochal.codec.Codecs;
import io.epochal.errors.InvalidRecordException;
import io.epochal.errors.SourceChangedException;
import io.epochal.spout.BatchAttempt;
import io.epochal.spout.Collector;
import io.epochal.spout.OpaqueSpout;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.function.LongFunction;

/**
 * An opaque spout that cuts its input differently on every replay: the case that breaks a
 * {@code TransactionalMap} and that an {@code OpaqueMap} must survive. The input is a fixed sequence of
 * {@code count} records (a copied list, or a pure generator of record {@code i}); the position is the offset of the
 * next record to emit ({@code Long}, encoded with {@link Codecs#longs()}).
 *
 * <p>Each {@link #emit} emits the records {@code [previous, previous + n)}, truncated at {@code count}, where the
 * batch length {@code n = }{@link #batchLength(BatchAttempt)} lies in {@code [minBatch, maxBatch]} and is drawn
 * from a {@link SplittableRandom} seeded by {@code (seed, txid, attempt)}. Attempt 1 of a txid draws freely; every
 * later attempt draws from {@code [minBatch, maxBatch]} without attempt 1's length, so whenever
 * {@code minBatch < maxBatch} a replay cuts a different batch than attempt 1 unless the end of the input truncates
 * both to the same records.
 *
 * <p><b>Replay promise:</b> opaque. A replay starts from the position it is given and may emit different records;
 * as long as every txid's batches continue from the committed position, each record is in exactly one committed
 * batch. Deterministic: the same {@code (seed, txid, attempt, previous)} always emits the same records.
 *
 * <p><b>Thread-safety:</b> immutable; thread-safe if the generator is.
 *
 * <p><b>Nulls:</b> null arguments throw {@link NullPointerException}; a {@code null} list element is rejected at
 * construction, a generator returning {@code null} makes {@link #emit} throw {@link InvalidRecordException}.
 *
 * @param <T> the record type
 * @since 0.1.0
 */
@Evolving
public final class ReCuttingOpaqueSpout<T> implements OpaqueSpout<T, Long> {
  private final String name;
  private final long count;
  private final LongFunction<? extends T> source;
  private final int minBatch;
  private final int maxBatch;
  private final long seed;

  private ReCuttingOpaqueSpout(String name, long count, LongFunction<? extends T> source, int minBatch,
      int maxBatch, long seed) {
    this.name = Objects.requireNonNull(name, "name");
    if (count < 0) {
      throw new IllegalArgumentException("count of spout " + name + " must be >= 0, was " + count);
    }
    Ranges.checkBatchSize(minBatch, "minBatch of spout " + name);
    if (maxBatch < minBatch) {
      throw new IllegalArgumentException("maxBatch of spout " + name + " must be >= minBatch " + minBatch
          + ", was " + maxBatch);
    }
    if (maxBatch == Integer.MAX_VALUE) {
      throw new IllegalArgumentException("maxBatch of spout " + name + " must be < Integer.MAX_VALUE");
    }
    this.count = count;
    this.source = Objects.requireNonNull(source, "source");
    this.minBatch = minBatch;
    this.maxBatch = maxBatch;
    this.seed = seed;
  }

  /**
   * A re-cutting spout over a copy of {@code records}.
   *
   * @param name the spout name, unique within the pipeline
   * @param records the records, copied; no {@code null} element
   * @param minBatch the minimum batch length, {@code >= 1}
   * @param maxBatch the maximum batch length, {@code >= minBatch}, {@code < Integer.MAX_VALUE}
   * @param seed the seed of all cuts
   * @param <T> the record type
   * @return a new spout
   * @throws NullPointerException if an argument or a record is {@code null}
   * @throws IllegalArgumentException if the batch bounds are bad
   */
  public static <T> ReCuttingOpaqueSpout<T> of(String name, List<? extends T> records, int minBatch, int maxBatch,
      long seed) {
    List<? extends T> copy = List.copyOf(records);
    return new ReCuttingOpaqueSpout<>(name, copy.size(), i -> copy.get((int) i), minBatch, maxBatch, seed);
  }

  /**
   * A re-cutting spout over {@code count} generated records.
   *
   * @param name the spout name, unique within the pipeline
   * @param count the number of records, {@code >= 0}
   * @param generator record {@code i} from {@code i}; must be pure for the replay promise to hold
   * @param minBatch the minimum batch length, {@code >= 1}
   * @param maxBatch the maximum batch length, {@code >= minBatch}, {@code < Integer.MAX_VALUE}
   * @param seed the seed of all cuts
   * @param <T> the record type
   * @return a new spout
   * @throws NullPointerException if an argument is {@code null}
   * @throws IllegalArgumentException if {@code count < 0} or the batch bounds are bad
   * @see #of(String, List, int, int, long)
   */
  public static <T> ReCuttingOpaqueSpout<T> generated(String name, long count, LongFunction<? extends T> generator,
      int minBatch, int maxBatch, long seed) {
    return new ReCuttingOpaqueSpout<>(name, count, generator, minBatch, maxBatch, seed);
  }

  /** @return the number of records */
  public long count() {
    return count;
  }

  /**
   * The batch length chosen for {@code attempt}, before truncation at the end of the input.
   *
   * @param attempt the batch attempt, not {@code null}
   * @return a length in {@code [minBatch, maxBatch]}; for attempts after the first, different from attempt 1's
   *     whenever {@code minBatch < maxBatch}
   */
  public int batchLength(BatchAttempt attempt) {
    Objects.requireNonNull(attempt, "attempt");
    if (minBatch == maxBatch) {
      return minBatch;
    }
    int first = new SplittableRandom(Ranges.seed(seed, attempt.txid(), 1)).nextInt(minBatch, maxBatch + 1);
    if (attempt.attempt() == 1) {
      return first;
    }
    int other = new SplittableRandom(Ranges.seed(seed, attempt.txid(), attempt.attempt()))
        .nextInt(minBatch, maxBatch);
    return other >= first ? other + 1 : other;
  }

  /**
   * The records {@link #emit} emits for {@code attempt} after {@code previous}, as a range of indexes.
   *
   * @param attempt the batch attempt (its txid and attempt number seed the cut)
   * @param previous the position the previous batch ended at (where this one starts), empty for the first batch
   * @return the indexes of the records emitted
   * @throws SourceChangedException if {@code previous} lies beyond the input
   */
  public Range cut(BatchAttempt attempt, Optional<Long> previous) {
    long start = start(previous, attempt.txid());
    return new Range(start, start + Math.min(count - start, batchLength(attempt)));
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public Codec<Long> metadataCodec() {
    return Codecs.longs();
  }

  /**
   * {@inheritDoc}
   *
   * @throws SourceChangedException if {@code previous} lies beyond the input
   */
  @Override
  public boolean isReady(long txid, Optional<Long> previous) {
    return start(previous, txid) < count;
  }

  /**
   * {@inheritDoc}
   *
   * @throws SourceChangedException if {@code previous} lies beyond the input
   * @throws InvalidRecordException if the generator returns {@code null}
   */
  @Override
  public Long emit(BatchAttempt attempt, Optional<Long> previous, Collector<T> out) {
    Objects.requireNonNull(out, "out");
    Range range = cut(Objects.requireNonNull(attempt, "attempt"), previous);
    for (long i = range.start(); i < range.end(); i++) {
      T record = source.apply(i);
      if (record == null) {
        throw new InvalidRecordException("Spout " + name + ": the generator returned null for record " + i
            + " (" + attempt + ")");
      }
      out.emit(record);
    }
    return range.end();
  }

  private long start(Optional<Long> previous, long txid) {
    long start = Objects.requireNonNull(previous, "previous").orElse(0L);
    if (start < 0 || start > count) {
      throw new SourceChangedException("Spout " + name + ": position " + start + " before txid " + txid
          + " lies outside the input of " + count + " records");
    }
    return start;
  }

  @Override
  public String toString() {
    return "ReCuttingOpaqueSpout(" + name + ", " + count + " records, batches " + minBatch + ".." + maxBatch
        + ", seed " + seed + ")";
  }
}
