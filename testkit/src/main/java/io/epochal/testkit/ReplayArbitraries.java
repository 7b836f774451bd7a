package io.epochal.testkit;

import io.epochal.api.Evolving;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;

/**
 * jqwik generators for replay tests: inputs with skewed keys, batch cuts, parallelism and failure schedules, and whole
 * {@link ReplaySchedule}s combining them. Every generator shrinks towards the simplest case (short inputs over few
 * keys, one small batch size, one partition, few and early faults).
 *
 * <p>Stateless and thread-safe: static methods only.
 *
 * @since 0.1.0
 */
@Evolving
public final class ReplayArbitraries {
  private ReplayArbitraries() {
  }

  /**
   * Whole schedules over {@code inputs}; configure the other components on the returned arbitrary.
   *
   * @param <T> the record type
   * @param inputs generates the input records of a schedule, e.g. {@link #words(int)}
   * @return an arbitrary of schedules with the default cuts, parallelism and faults
   * @throws NullPointerException if {@code inputs} is null
   */
  public static <T> ScheduleArbitrary<T> schedules(Arbitrary<List<T>> inputs) {
    return new ScheduleArbitrary<>(inputs);
  }

  /**
   * Failure schedules: up to {@code maxFaults} faults at any {@link FaultPoint}, in txids {@code 1..maxTxid}, each
   * either a retryable failure or a crash with restart.
   *
   * @param maxTxid the highest txid a fault may hit, at least 1
   * @param maxFaults the most faults in one schedule, at least 0
   * @return an arbitrary of fault lists, shrinking towards fewer faults
   * @throws IllegalArgumentException if a bound is out of range
   */
  public static Arbitrary<List<Fault>> faultSchedules(int maxTxid, int maxFaults) {
    return faultSchedules(maxTxid, maxFaults, EnumSet.allOf(FaultPoint.class), true);
  }

  /**
   * Failure schedules at the given points only.
   *
   * @param maxTxid the highest txid a fault may hit, at least 1
   * @param maxFaults the most faults in one schedule, at least 0
   * @param points the fault points to draw from, not empty
   * @param crashes whether faults may be crashes (process restarts) as well as retryable failures
   * @return an arbitrary of fault lists, shrinking towards fewer faults
   * @throws IllegalArgumentException if {@code points} is empty or a bound is out of range
   */
  public static Arbitrary<List<Fault>> faultSchedules(int maxTxid, int maxFaults, Set<FaultPoint> points,
      boolean crashes) {
    if (maxTxid < 1 || maxFaults < 0) {
      throw new IllegalArgumentException("maxTxid must be >= 1 and maxFaults >= 0, were " + maxTxid + ", "
          + maxFaults);
    }
    if (points.isEmpty()) {
      throw new IllegalArgumentException("points must not be empty");
    }
    Arbitrary<Fault> fault = Combinators.combine(
        Arbitraries.of(EnumSet.copyOf(points).toArray(FaultPoint[]::new)),
        Arbitraries.longs().between(1, maxTxid),
        crashes ? Arbitraries.of(false, true) : Arbitraries.just(false),
        Arbitraries.integers().between(0, 3)).as(Fault::new);
    return fault.list().ofMaxSize(maxFaults);
  }

  /**
   * Batch cuts: 1..4 batch sizes in {@code 1..maxBatch} and 0..3 re-cut sizes for opaque replays.
   *
   * @param maxBatch the largest batch size, at least 1
   * @return an arbitrary of batch cuts
   * @throws IllegalArgumentException if {@code maxBatch < 1}
   */
  public static Arbitrary<BatchCuts> batchCuts(int maxBatch) {
    if (maxBatch < 1) {
      throw new IllegalArgumentException("maxBatch must be >= 1, was " + maxBatch);
    }
    Arbitrary<Integer> size = Arbitraries.integers().between(1, maxBatch);
    return Combinators.combine(size.list().ofMinSize(1).ofMaxSize(4), size.list().ofMaxSize(3)).as(BatchCuts::new);
  }

  /**
   * Partitions in {@code 1..maxPartitions}, batches in flight in {@code 1..maxInFlight}, threads in
   * {@code 1..maxThreads}.
   *
   * @param maxPartitions the most state partitions, at least 1
   * @param maxInFlight the most batches in flight, at least 1
   * @param maxThreads the most pipeline threads, at least 1
   * @return an arbitrary of parallelism settings
   */
  public static Arbitrary<Parallelism> parallelism(int maxPartitions, int maxInFlight, int maxThreads) {
    return Combinators.combine(Arbitraries.integers().between(1, maxPartitions),
        Arbitraries.integers().between(1, maxInFlight), Arbitraries.integers().between(1, maxThreads))
        .as(Parallelism::new);
  }

  /**
   * Inputs: lists of up to {@code maxSize} records.
   *
   * @param <T> the record type
   * @param record generates one record
   * @param maxSize the most records in one input
   * @return an arbitrary of record lists, shrinking towards shorter ones
   * @throws NullPointerException if {@code record} is null
   */
  public static <T> Arbitrary<List<T>> inputs(Arbitrary<T> record, int maxSize) {
    return Objects.requireNonNull(record, "record").list().ofMaxSize(maxSize);
  }

  /**
   * Words over a small, skewed vocabulary: a few frequent words and some rare short ones, so keys repeat.
   *
   * @return an arbitrary of words: {@code the}, {@code a}, {@code cat}, {@code dog} three times in four, else 1 to 3
   *     letters of {@code a..h}
   */
  public static Arbitrary<String> word() {
    return Arbitraries.frequencyOf(
        Tuple.of(6, Arbitraries.of("the", "a", "cat", "dog")),
        Tuple.of(2, Arbitraries.strings().withCharRange('a', 'h').ofMinLength(1).ofMaxLength(3)));
  }

  /**
   * Inputs of up to {@code maxWords} skewed words (see {@link #word()}).
   *
   * @param maxWords the most words in one input
   * @return an arbitrary of word lists
   */
  public static Arbitrary<List<String>> words(int maxWords) {
    return inputs(word(), maxWords);
  }

  /**
   * Sentences of 1..6 words over a small, skewed vocabulary (so that keys repeat within and across batches).
   *
   * @param maxSentences the most sentences in one input
   * @return an arbitrary of lists of sentences, each its words joined by single spaces
   */
  public static Arbitrary<List<String>> sentences(int maxSentences) {
    Arbitrary<String> sentence = word().list().ofMinSize(1).ofMaxSize(6).map(ws -> String.join(" ", ws));
    return sentence.list().ofMaxSize(maxSentences);
  }
}
