package io.epochal.testkit;

import io.epochal.api.Evolving;
import io.epochal.pipeline.CombinerAggregator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * What a {@link ReplayCheck} compares the final state of a faulty run with.
 *
 * <ul>
 *   <li>{@link #aggregate(Function, CombinerAggregator)}: the fold of an aggregation, computed with a plain loop. The
 *       default of the map targets ({@code ReplayCheck.forBackingMap(..).aggregate(keyFn, aggregator)} and the
 *       others): the kit knows what the pipeline means.</li>
 *   <li>{@link #fold(String, Function)}: the state a plain function of the input says (a reference model).</li>
 *   <li>{@link #failureFree()}: the final state of a run of the same code over the same input, cuts and
 *       parallelism, without faults, on fresh stores. The default of {@code forPipeline}, where the kit has no model.
 *       It needs no model of the code and catches every difference that failures make, but it <b>cannot catch a
 *       bug that shows without failures</b> (a read cache that never sees its own writes, a dropped key, an
 *       off-by-one in the aggregation): such a store is wrong in the reference run too, and the two runs agree.</li>
 * </ul>
 *
 * <p>With a model ({@link #aggregate} or {@link #fold}) the check runs the failure-free run as well and compares
 * both with the model: the report says which reference disagrees (the faulty run, or already the failure-free run,
 * which means the code is wrong without any fault). With {@link #failureFree()} alone the report calls the values of
 * the reference run "failure-free run", never "expected".
 *
 * <p>Immutable and thread-safe if the fold is.
 *
 * @param <T> the record type
 * @param <K> the key type of the state
 * @param <V> the value type of the state
 * @since 0.1.0
 */
@Evolving
public final class Oracle<T, K, V> {
  private final Function<? super List<T>, ? extends Map<K, V>> fold;
  private final String description;

  private Oracle(Function<? super List<T>, ? extends Map<K, V>> fold, String description) {
    this.fold = fold;
    this.description = description;
  }

  /**
   * The final state of the same schedule run without faults (the default of {@code forPipeline}).
   *
   * @param <T> the record type
   * @param <K> the key type of the state
   * @param <V> the value type of the state
   * @return the oracle; {@link #isFailureFree()} is true
   */
  public static <T, K, V> Oracle<T, K, V> failureFree() {
    return new Oracle<>(null, "the failure-free run of the same input");
  }

  /**
   * The state {@code fold} computes from the whole input.
   *
   * @param <T> the record type
   * @param <K> the key type of the state
   * @param <V> the value type of the state
   * @param description what the fold computes, shown in failure reports (e.g. {@code "word counts"})
   * @param fold the expected state of a whole input (every record, in order); must not return null
   * @return the oracle
   * @throws NullPointerException if an argument is null
   */
  public static <T, K, V> Oracle<T, K, V> fold(String description,
      Function<? super List<T>, ? extends Map<K, V>> fold) {
    Objects.requireNonNull(description, "description");
    return new Oracle<>(Objects.requireNonNull(fold, "fold"), description);
  }

  /**
   * The aggregation of the input by key, folded with a plain loop: {@code combine} of {@code init(record)} per key
   * in input order.
   *
   * @param <T> the record type
   * @param <K> the key type of the state
   * @param <V> the value type of the state
   * @param keyFn the key of a record, as the pipeline groups by
   * @param aggregator the pipeline's aggregator
   * @return the oracle
   * @throws NullPointerException if an argument is null
   */
  public static <T, K, V> Oracle<T, K, V> aggregate(Function<? super T, ? extends K> keyFn,
      CombinerAggregator<? super T, V> aggregator) {
    Objects.requireNonNull(keyFn, "keyFn");
    Objects.requireNonNull(aggregator, "aggregator");
    return new Oracle<>(input -> {
      Map<K, V> out = new LinkedHashMap<>();
      for (T record : input) {
        out.merge(keyFn.apply(record), aggregator.init(record), aggregator::combine);
      }
      return out;
    }, "the aggregation of the input");
  }

  /** @return whether this oracle is the failure-free run alone (no model of the pipeline) */
  public boolean isFailureFree() {
    return fold == null;
  }

  /** @return the expected state of {@code input} by the fold (not for {@link #failureFree()}) */
  Map<K, V> expected(List<T> input) {
    return Map.copyOf(Objects.requireNonNull(fold.apply(input), "the oracle's fold returned null"));
  }

  /** @return what the oracle is, as shown in reports */
  public String describe() {
    return description;
  }

  @Override
  public String toString() {
    return "Oracle(" + description + ")";
  }
}
